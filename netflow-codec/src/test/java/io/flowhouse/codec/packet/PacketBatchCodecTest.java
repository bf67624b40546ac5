// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.packet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.flow.IpAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PacketBatchCodecTest {

    @Test
    void roundTripsRandomSummaries() {
        Random random = new Random(42);
        List<PacketSummary> in = new ArrayList<>();
        long ts = 1_705_320_000_000_000_000L;
        for (int i = 0; i < 5_000; i++) {
            boolean v6 = random.nextBoolean();
            ts += random.nextInt(2_000_000) - 500_000;
            IpAddress src =
                    v6
                            ? new IpAddress(random.nextLong(), random.nextLong())
                            : IpAddress.ofIpv4(random.nextInt());
            IpAddress dst =
                    v6
                            ? new IpAddress(random.nextLong(), random.nextLong())
                            : IpAddress.ofIpv4(random.nextInt());
            in.add(
                    new PacketSummary(
                            ts,
                            random.nextInt(4),
                            random.nextBoolean() ? random.nextInt(4096) : 0,
                            random.nextInt(8) == 0 ? 1 + random.nextInt(4095) : 0,
                            random.nextBoolean() ? random.nextLong() & 0xffff_ffff_ffffL : 0,
                            random.nextLong() & 0xffff_ffff_ffffL,
                            v6 ? 6 : 4,
                            src,
                            dst,
                            random.nextInt(65536),
                            random.nextInt(65536),
                            random.nextInt(256),
                            random.nextInt(256),
                            random.nextInt(256),
                            random.nextInt(512),
                            random.nextInt(65536),
                            random.nextInt(70_000),
                            random.nextInt(10) == 0));
        }
        PacketBatchCodec.Encoder encoder = PacketBatchCodec.encoder(1, 64);
        for (PacketSummary s : in) {
            encoder.add(s);
        }
        assertThat(encoder.count()).isEqualTo(in.size());
        byte[] batch = encoder.finish();
        assertThat(encoder.count()).isZero();
        assertThat(PacketBatchCodec.decode(batch)).containsExactlyElementsOf(in);
        // The reused encoder writes an independent second batch.
        encoder.add(in.get(7));
        assertThat(PacketBatchCodec.decode(encoder.finish())).containsExactly(in.get(7));
    }

    @Test
    void rejectsForeignAndTruncatedBatches() {
        PacketBatchCodec.Encoder encoder = PacketBatchCodec.encoder(1, 0);
        encoder.add(
                new PacketSummary(
                        1,
                        0,
                        0,
                        0,
                        0,
                        0,
                        4,
                        IpAddress.ofIpv4(1),
                        IpAddress.ofIpv4(2),
                        1,
                        2,
                        17,
                        0,
                        64,
                        0,
                        28,
                        42,
                        false));
        byte[] batch = encoder.finish();
        assertThatThrownBy(() -> PacketBatchCodec.decode(Arrays.copyOf(batch, batch.length - 3)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated");
        byte[] other = batch.clone();
        other[4] = 2;
        assertThatThrownBy(() -> PacketBatchCodec.decode(other)).hasMessageContaining("format 2");
        assertThatThrownBy(() -> PacketBatchCodec.decode(new byte[20]))
                .hasMessageContaining("magic");
    }
}
