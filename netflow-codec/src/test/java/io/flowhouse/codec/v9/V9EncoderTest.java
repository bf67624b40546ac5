// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.v9;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.codec.template.Template;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class V9EncoderTest {

    private static final long EXPORT = 1_700_000_000_750L;
    private static final long UPTIME = 3_600_000L;

    private static final Template V4 =
            Template.of(
                    256,
                    List.of(
                            FieldSpecifier.of(V9Encoder.IPV4_SRC_ADDR, 4),
                            FieldSpecifier.of(V9Encoder.IPV4_DST_ADDR, 4),
                            FieldSpecifier.of(V9Encoder.L4_SRC_PORT, 2),
                            FieldSpecifier.of(V9Encoder.L4_DST_PORT, 2),
                            FieldSpecifier.of(V9Encoder.PROTOCOL, 1),
                            FieldSpecifier.of(V9Encoder.IN_BYTES, 8),
                            FieldSpecifier.of(V9Encoder.IN_PKTS, 4),
                            FieldSpecifier.of(V9Encoder.FIRST_SWITCHED, 4),
                            FieldSpecifier.of(V9Encoder.LAST_SWITCHED, 4)));

    private static final Template V6 =
            Template.of(
                    257,
                    List.of(
                            FieldSpecifier.of(V9Encoder.IPV6_SRC_ADDR, 16),
                            FieldSpecifier.of(V9Encoder.IPV6_DST_ADDR, 16),
                            FieldSpecifier.of(V9Encoder.PROTOCOL, 1),
                            FieldSpecifier.of(V9Encoder.IN_BYTES, 4),
                            FieldSpecifier.of(V9Encoder.IN_PKTS, 4)));

    private static final Template SAMPLING =
            new Template(
                    258,
                    List.of(
                            FieldSpecifier.of(V9Encoder.SCOPE_SYSTEM, 4),
                            FieldSpecifier.of(V9Encoder.SAMPLING_INTERVAL, 4),
                            FieldSpecifier.of(V9Encoder.SAMPLING_ALGORITHM, 1)),
                    1);

    private static FlowRecord v4(int i) {
        return FlowRecord.builder()
                .ipVersion(4)
                .srcAddr(IpAddress.parse("192.0.2.10"))
                .dstAddr(IpAddress.parse("203.0.113." + i))
                .srcPort(53)
                .dstPort(33_000 + i)
                .protocol(17)
                .bytes(5_000_000_000L + i) // needs the 8-byte field
                .packets(3)
                .flowStartMillis(EXPORT - 10_000)
                .flowEndMillis(EXPORT - 2_000)
                .build();
    }

    private static FlowRecord v6(int i) {
        return FlowRecord.builder()
                .ipVersion(6)
                .srcAddr(IpAddress.parse("2001:db8::" + (i + 1)))
                .dstAddr(IpAddress.parse("2001:db8:1::1"))
                .protocol(58)
                .bytes(128)
                .packets(2)
                .build();
    }

    @Test
    void writesHeaderCountAndPaddedFlowSets() {
        ByteBuffer b = ByteBuffer.allocate(1500);
        V9Encoder.Message m =
                V9Encoder.begin(b, new V9Encoder.Header(EXPORT, UPTIME, 77, 9))
                        .templates(List.of(V4, V6))
                        .optionsTemplates(List.of(SAMPLING))
                        .optionsData(SAMPLING, List.<long[]>of(new long[] {9, 100, 1}))
                        .data(V4, List.of(v4(1), v4(2), v4(3)));
        int len = m.finish();
        assertThat(len).isEqualTo(b.position());
        assertThat(b.getShort(0)).isEqualTo((short) 9);
        assertThat(b.getShort(2))
                .as("count = 2 templates + 1 options template + 1 + 3")
                .isEqualTo((short) 7);
        assertThat(b.getInt(4)).isEqualTo((int) UPTIME);
        assertThat(b.getInt(8)).isEqualTo(1_700_000_000);
        assertThat(b.getInt(12)).isEqualTo(77);
        assertThat(b.getInt(16)).isEqualTo(9);
        // Every FlowSet length is a multiple of 4 (padding) and they tile the packet.
        int pos = V9Encoder.HEADER_SIZE;
        int sets = 0;
        while (pos < len) {
            int setLen = b.getShort(pos + 2) & 0xffff;
            assertThat(setLen % 4).isZero();
            pos += setLen;
            sets++;
        }
        assertThat(pos).isEqualTo(len);
        assertThat(sets).isEqualTo(4);
        // Options data record: 4 + 4 + 1 = 9 bytes, padded to 12, plus the 4-byte set header.
        assertThat(V9Encoder.flowSetSize(V9Encoder.recordLength(SAMPLING))).isEqualTo(16);
    }

    @Test
    void decodesBackIncludingSamplingAndIpv6() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(1500);
        V9Encoder.begin(b, new V9Encoder.Header(EXPORT, UPTIME, 1, 9))
                .templates(List.of(V4, V6))
                .optionsTemplates(List.of(SAMPLING))
                .optionsData(SAMPLING, List.<long[]>of(new long[] {9, 100, 1}))
                .data(V4, List.of(v4(1), v4(2)))
                .data(V6, List.of(v6(0), v6(1), v6(2)))
                .finish();
        b.flip();
        DecodeResult r =
                new NetflowDecoder()
                        .decode(
                                b,
                                new DecodeContext(
                                        new ExporterKey(IpAddress.parse("127.0.0.1"), 9995), 0),
                                new InMemoryTemplateCache());
        assertThat(r.problems()).isEmpty();
        assertThat(r.records()).hasSize(5);
        assertThat(r.optionsRecords()).isEqualTo(1);
        FlowRecord a = r.records().get(0);
        assertThat(a.bytes()).isEqualTo(5_000_000_001L);
        assertThat(a.dstAddr()).isEqualTo(IpAddress.parse("203.0.113.1"));
        // Times are relative to the boot time the header implies: exact to the millisecond.
        assertThat(a.flowStartMillis()).isEqualTo(EXPORT - 10_000);
        assertThat(a.flowEndMillis()).isEqualTo(EXPORT - 2_000);
        assertThat(a.samplingRate()).isEqualTo(100);
        FlowRecord c = r.records().get(4);
        assertThat(c.srcAddr()).isEqualTo(IpAddress.parse("2001:db8::3"));
        assertThat(c.ipVersion()).isEqualTo(6);
        assertThat(c.packets()).isEqualTo(2);
    }

    @Test
    void refusesValuesThatDoNotFitTheirField() {
        ByteBuffer b = ByteBuffer.allocate(1500);
        V9Encoder.Message m = V9Encoder.begin(b, new V9Encoder.Header(EXPORT, UPTIME, 1, 1));
        FlowRecord big = v6(0).toBuilder().bytes(1L << 32).build();
        assertThatThrownBy(() -> m.data(V6, List.of(big)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not fit 4 octets");
        assertThatThrownBy(() -> m.data(V4, List.of(v6(0)))).hasMessageContaining("is IPv4");
        assertThatThrownBy(() -> m.templates(List.of(SAMPLING)))
                .hasMessageContaining("is an options template");
        Template enterprise = Template.of(300, List.of(new FieldSpecifier(1, 4, 9)));
        assertThatThrownBy(() -> m.templates(List.of(enterprise)))
                .hasMessageContaining("no v9 form");
        FlowRecord beforeBoot = v4(1).toBuilder().flowStartMillis(EXPORT - UPTIME - 5_000).build();
        assertThatThrownBy(() -> m.data(V4, List.of(beforeBoot))).hasMessageContaining("from boot");
    }
}
