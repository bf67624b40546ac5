// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.v5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class V5EncoderTest {

    private static final long EXPORT = 1_700_000_000_250L;
    private static final V5Encoder.Header HEADER =
            new V5Encoder.Header(EXPORT, 86_400_000L, 4242, 1, 7, 1, 100);

    static FlowRecord flow(int i) {
        return FlowRecord.builder()
                .ipVersion(4)
                .srcAddr(IpAddress.parse("192.0.2." + (1 + i)))
                .dstAddr(IpAddress.parse("198.51.100.7"))
                .nextHop(IpAddress.parse("203.0.113.1"))
                .srcPort(40_000 + i)
                .dstPort(443)
                .protocol(6)
                .tcpFlags(0x1b)
                .tos(0xb8)
                .bytes(1_000_000L + i)
                .packets(900 + i)
                .flowStartMillis(EXPORT - 30_000)
                .flowEndMillis(EXPORT - 1_000 + i)
                .inputInterface(3)
                .outputInterface(65_535)
                .srcAs(64_512)
                .dstAs(65_534)
                .srcPrefixLen(24)
                .dstPrefixLen(32)
                .build();
    }

    @Test
    void headerLayoutFollowsTheCiscoFormat() {
        ByteBuffer b = ByteBuffer.allocate(V5Encoder.size(2));
        int n = V5Encoder.encode(HEADER, List.of(flow(0), flow(1)), b);
        assertThat(n).isEqualTo(24 + 2 * 48).isEqualTo(b.position());
        assertThat(b.getShort(0)).isEqualTo((short) 5);
        assertThat(b.getShort(2)).isEqualTo((short) 2);
        assertThat(b.getInt(4)).isEqualTo(86_400_000);
        assertThat(b.getInt(8)).isEqualTo(1_700_000_000);
        assertThat(b.getInt(12)).isEqualTo(250_000_000);
        assertThat(b.getInt(16)).isEqualTo(4242);
        assertThat(b.get(20)).isEqualTo((byte) 1);
        assertThat(b.get(21)).isEqualTo((byte) 7);
        assertThat(b.getShort(22) & 0xffff).isEqualTo((1 << 14) | 100);
    }

    @Test
    void decodesBackToTheSameFlows() throws Exception {
        List<FlowRecord> flows = new ArrayList<>();
        for (int i = 0; i < V5Encoder.MAX_RECORDS; i++) {
            flows.add(flow(i));
        }
        ByteBuffer b = ByteBuffer.allocate(V5Encoder.size(flows.size()));
        V5Encoder.encode(HEADER, flows, b);
        b.flip();
        DecodeResult r =
                new NetflowDecoder()
                        .decode(
                                b,
                                new DecodeContext(
                                        new ExporterKey(IpAddress.parse("127.0.0.1"), 2055), 0),
                                new InMemoryTemplateCache());
        assertThat(r.problems()).isEmpty();
        assertThat(r.sequenceNumber()).isEqualTo(4242);
        assertThat(r.exportTimeMillis()).isEqualTo(EXPORT);
        assertThat(r.records()).hasSize(30);
        for (int i = 0; i < flows.size(); i++) {
            FlowRecord want = flows.get(i);
            FlowRecord got = r.records().get(i);
            assertThat(got.srcAddr()).isEqualTo(want.srcAddr());
            assertThat(got.dstAddr()).isEqualTo(want.dstAddr());
            assertThat(got.nextHop()).isEqualTo(want.nextHop());
            assertThat(got.srcPort()).isEqualTo(want.srcPort());
            assertThat(got.bytes()).isEqualTo(want.bytes());
            assertThat(got.packets()).isEqualTo(want.packets());
            assertThat(got.flowStartMillis()).isEqualTo(want.flowStartMillis());
            assertThat(got.flowEndMillis()).isEqualTo(want.flowEndMillis());
            assertThat(got.outputInterface()).isEqualTo(65_535);
            assertThat(got.srcAs()).isEqualTo(64_512);
            assertThat(got.dstAs()).isEqualTo(65_534);
            assertThat(got.tos()).isEqualTo(0xb8);
            assertThat(got.tcpFlags()).isEqualTo(0x1b);
            assertThat(got.samplingRate()).isEqualTo(100);
        }
    }

    @Test
    void refusesWhatV5CannotCarry() {
        ByteBuffer b = ByteBuffer.allocate(2048);
        FlowRecord v6 =
                flow(0).toBuilder()
                        .ipVersion(6)
                        .srcAddr(IpAddress.parse("2001:db8::1"))
                        .dstAddr(IpAddress.parse("2001:db8::2"))
                        .build();
        assertThatThrownBy(() -> V5Encoder.encode(HEADER, List.of(v6), b))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("IPv4 only");
        assertThatThrownBy(
                        () ->
                                V5Encoder.encode(
                                        HEADER,
                                        List.of(flow(0).toBuilder().bytes(1L << 32).build()),
                                        b))
                .hasMessageContaining("bytes");
        assertThatThrownBy(
                        () ->
                                V5Encoder.encode(
                                        HEADER,
                                        List.of(flow(0).toBuilder().srcAs(70_000).build()),
                                        b))
                .hasMessageContaining("source AS");
        assertThatThrownBy(() -> V5Encoder.encode(HEADER, Collections.nCopies(31, flow(0)), b))
                .hasMessageContaining("31 records");
        assertThat(b.position()).isZero();
        assertThatThrownBy(
                        () -> V5Encoder.encode(HEADER, List.of(flow(0)), ByteBuffer.allocate(71)))
                .isInstanceOf(BufferOverflowException.class);
    }
}
