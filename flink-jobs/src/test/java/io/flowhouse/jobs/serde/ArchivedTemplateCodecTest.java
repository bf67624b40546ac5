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
}
