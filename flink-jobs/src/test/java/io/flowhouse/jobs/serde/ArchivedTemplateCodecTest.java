// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.model.ArchivedTemplate;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ArchivedTemplateCodecTest {

    @Test
    void roundTrip() {
        ArchivedTemplate t =
                new ArchivedTemplate(
                        IpAddress.parse("2001:db8::7"),
                        4739,
                        10,
                        0xffff_fffeL,
                        256,
                        new byte[] {1, 2, 3, 4},
                        1_705_320_000_123L);
        assertThat(ArchivedTemplateCodec.decode(ArchivedTemplateCodec.encode(t))).isEqualTo(t);
        assertThat(new String(ArchivedTemplateCodec.key(t), StandardCharsets.UTF_8))
                .isEqualTo("2001:db8::7|4739|10|4294967294|256");
    }

    @Test
    void refusesOtherFormatsAndBadLengths() {
        byte[] v =
                ArchivedTemplateCodec.encode(
                        new ArchivedTemplate(
                                IpAddress.parse("192.0.2.1"), 1, 9, 1, -1, new byte[3], 5));
        byte[] shorter = java.util.Arrays.copyOf(v, v.length - 1);
        assertThatThrownBy(() -> ArchivedTemplateCodec.decode(shorter))
                .hasMessageContaining("expected: equal");
        v[0] = 9;
        assertThatThrownBy(() -> ArchivedTemplateCodec.decode(v))
                .hasMessageContaining("format 9 (expected: 1 or 2)");
    }

    @Test
    void endsRoundTripAndVersionOneReadsAsLiveWithUnknownLastSeen() {
        ArchivedTemplate ended =
                new ArchivedTemplate(
                        IpAddress.parse("192.0.2.9"),
                        4739,
                        10,
                        7,
                        300,
                        new byte[] {9, 8, 7},
                        1_000L,
                        2_000L,
                        3_000L,
                        ArchivedTemplate.End.WITHDRAWN);
        byte[] v = ArchivedTemplateCodec.encode(ended);
        assertThat(v).hasSize(ArchivedTemplateCodec.valueSize(ended));
        assertThat(ArchivedTemplateCodec.decode(v)).isEqualTo(ended);

        // Version 1, as written before: no last-seen, end or end time.
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1 + 16 + 2 + 1 + 4 + 4 + 8 + 4 + 2);
        b.put((byte) 1).putLong(0).putLong(0xffff_c000_0209L).putShort((short) 2055).put((byte) 9);
        b.putInt(0).putInt(256).putLong(5_000L).putInt(2).put(new byte[] {1, 2});
        ArchivedTemplate old = ArchivedTemplateCodec.decode(b.array());
        assertThat(old.end()).isEqualTo(ArchivedTemplate.End.LIVE);
        assertThat(old.lastSeenMillis()).isEqualTo(Long.MAX_VALUE);
        assertThat(old.learnedMillis()).isEqualTo(5_000L);
        assertThat(old.exporterAddress()).isEqualTo(IpAddress.parse("192.0.2.9"));

        // An end that contradicts its time is malformed (skipped by the reader).
        byte[] bad = ArchivedTemplateCodec.encode(ended);
        bad[1 + 16 + 2 + 1 + 4 + 4 + 8 + 8 + 8] = 0;
        assertThatThrownBy(() -> ArchivedTemplateCodec.decode(bad))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
