// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class HeaderCheckTest {

    private static HeaderCheck.Verdict check(ByteBuffer b) {
        return HeaderCheck.check(b);
    }

    @Test
    void realCapturesPass() throws Exception {
        for (String f :
                new String[] {
                    "netflow-v5-softflowd.pcap", "netflow-v9-softflowd.pcap", "ipfix-pmacct.pcap"
                }) {
            for (CaptureDatagrams.Datagram d : CaptureDatagrams.datagrams(f)) {
                assertThat(check(d.buffer()).ok()).isTrue();
            }
        }
    }

    @Test
    void rejectsWithReasons() {
        assertThat(check(ByteBuffer.wrap(new byte[] {0})).reason())
                .isEqualTo(HeaderCheck.Reason.TOO_SHORT);
        assertThat(check(ByteBuffer.wrap(new byte[] {0, 7, 0, 0})).reason())
                .isEqualTo(HeaderCheck.Reason.UNSUPPORTED_VERSION);
        ByteBuffer v5 = ByteBuffer.allocate(24 + 48);
        v5.putShort(0, (short) 5).putShort(2, (short) 31);
        assertThat(check(v5).reason()).isEqualTo(HeaderCheck.Reason.BAD_COUNT);
        v5.putShort(2, (short) 2);
        assertThat(check(v5).reason()).isEqualTo(HeaderCheck.Reason.LENGTH_MISMATCH);
        v5.putShort(2, (short) 1);
        assertThat(check(v5).ok()).isTrue();
        ByteBuffer ipfix = ByteBuffer.allocate(40);
        ipfix.putShort(0, (short) 10).putShort(2, (short) 41);
        HeaderCheck.Verdict v = check(ipfix);
        assertThat(v.reason()).isEqualTo(HeaderCheck.Reason.LENGTH_MISMATCH);
        assertThat(v.version()).isEqualTo(10);
        assertThat(v.text()).contains("41");
        ipfix.putShort(2, (short) 40);
        assertThat(check(ipfix).ok()).isTrue();
        assertThat(check(ByteBuffer.allocate(19).putShort(0, (short) 9)).reason())
                .isEqualTo(HeaderCheck.Reason.TOO_SHORT);
    }

    @Test
    void leavesPositionAlone() {
        ByteBuffer b = ByteBuffer.allocate(64);
        b.putShort(4, (short) 9);
        b.position(4);
        check(b);
        assertThat(b.position()).isEqualTo(4);
    }
}
