// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.nio.ByteBuffer;
import java.util.HexFormat;
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
    void sflowV5PassesAndIsToldFromNetflowV5() throws Exception {
        for (String f : new String[] {"sflow-ovs-rate10.pcap", "sflow-pmacct-rate1.pcap.gz"}) {
            for (CaptureDatagrams.Datagram d : CaptureDatagrams.datagrams(f)) {
                HeaderCheck.Verdict v = check(d.buffer());
                assertThat(v.ok()).as(v.text()).isTrue();
                assertThat(v.version()).isEqualTo(FlowRecord.VERSION_SFLOW5);
            }
        }
        for (CaptureDatagrams.Datagram d :
                CaptureDatagrams.datagrams("netflow-v5-softflowd.pcap")) {
            assertThat(check(d.buffer()).version()).isEqualTo(5);
        }
        // 32-bit 5, IPv4 agent, 0 samples: a complete header.
        byte[] header =
                HexFormat.of()
                        .parseHex("0000000500000001c00002010000000000000001000000000000" + "0000");
        assertThat(check(ByteBuffer.wrap(header)).ok()).isTrue();
        assertThat(check(ByteBuffer.wrap(header, 0, 27)).reason())
                .isEqualTo(HeaderCheck.Reason.TOO_SHORT);
        byte[] badType = header.clone();
        badType[7] = 3;
        assertThat(check(ByteBuffer.wrap(badType)).reason())
                .isEqualTo(HeaderCheck.Reason.BAD_ADDRESS_TYPE);
        byte[] v6 = header.clone();
        v6[7] = 2;
        assertThat(check(ByteBuffer.wrap(v6)).reason()).isEqualTo(HeaderCheck.Reason.TOO_SHORT);
        byte[] tooMany = header.clone();
        tooMany[27] = 1;
        HeaderCheck.Verdict v = check(ByteBuffer.wrap(tooMany));
        assertThat(v.reason()).isEqualTo(HeaderCheck.Reason.BAD_COUNT);
        assertThat(v.text()).contains("1 samples");
        // sFlow v4, and a 32-bit 9: neither NetFlow nor sFlow v5.
        assertThat(check(ByteBuffer.wrap(HexFormat.of().parseHex("00000004"))).reason())
                .isEqualTo(HeaderCheck.Reason.UNSUPPORTED_VERSION);
        assertThat(check(ByteBuffer.wrap(HexFormat.of().parseHex("0000000900000001"))).reason())
                .isEqualTo(HeaderCheck.Reason.UNSUPPORTED_VERSION);
    }

    @Test
    void theFacadeDispatchesOnTheFirstWord() throws Exception {
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        CaptureDatagrams.Datagram sflow =
                CaptureDatagrams.datagrams("sflow-ovs-rate10.pcap").get(0);
        DecodeResult r = decoder.decode(sflow.buffer(), sflow.context(), cache);
        assertThat(r.version()).isEqualTo(FlowRecord.VERSION_SFLOW5);
        assertThat(r.sflow()).isNotNull();
        CaptureDatagrams.Datagram v5 =
                CaptureDatagrams.datagrams("netflow-v5-softflowd.pcap").get(0);
        DecodeResult n = decoder.decode(v5.buffer(), v5.context(), cache);
        assertThat(n.version()).isEqualTo(5);
        assertThat(n.sflow()).isNull();
        assertThatThrownBy(
                        () ->
                                decoder.decode(
                                        ByteBuffer.wrap(
                                                HexFormat.of().parseHex("0000000400000001")),
                                        sflow.context(),
                                        cache))
                .isInstanceOf(UnsupportedVersionException.class);
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
