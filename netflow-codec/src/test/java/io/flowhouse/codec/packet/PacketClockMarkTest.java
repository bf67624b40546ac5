// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.packet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PacketClockMarkTest {

    @Test
    void roundTripsAndIsAnEmptyBatchToAReaderThatDoesNotKnowMarks() {
        for (PacketClockMark.Kind kind : PacketClockMark.Kind.values()) {
            PacketClockMark m = new PacketClockMark(kind, 1_700_000_000_123_456_789L, 7);
            byte[] value = m.encode(1);
            assertThat(value).hasSize(PacketClockMark.SIZE);
            assertThat(PacketClockMark.decode(value)).isEqualTo(m);
            assertThat(PacketBatchCodec.decode(value)).isEmpty();
            PacketSummary s = m.summary();
            assertThat(PacketClockMark.isMark(s)).isTrue();
            assertThat(PacketClockMark.of(s)).isEqualTo(m);
        }
    }

    @Test
    void aBatchOfPacketsIsNoMark() {
        PacketBatchCodec.Encoder e = PacketBatchCodec.encoder(1, 256);
        byte[] empty = e.finish();
        assertThat(PacketClockMark.decode(empty)).isNull();
        PacketSummary packet = PacketBatchCodec.decode(batchOfOne()).get(0);
        assertThat(PacketClockMark.isMark(packet)).isFalse();
        assertThat(PacketClockMark.of(packet)).isNull();
        assertThat(PacketClockMark.decode(batchOfOne())).isNull();
        assertThat(PacketClockMark.decode(new byte[] {1, 2, 3})).isNull();
        assertThat(PacketClockMark.decode(null)).isNull();
    }

    private static byte[] batchOfOne() {
        PacketSummary p =
                new PacketSummary(
                        1_000L,
                        1,
                        0,
                        0,
                        0,
                        0,
                        4,
                        io.flowhouse.codec.flow.IpAddress.ofIpv4(0x0a000001),
                        io.flowhouse.codec.flow.IpAddress.ofIpv4(0x0a000002),
                        1234,
                        80,
                        6,
                        0,
                        64,
                        2,
                        60,
                        74,
                        false);
        PacketBatchCodec.Encoder e = PacketBatchCodec.encoder(1, 256);
        e.add(p);
        return e.finish();
    }
}
