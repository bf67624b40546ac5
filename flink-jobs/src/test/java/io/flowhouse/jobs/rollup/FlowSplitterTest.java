// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

class FlowSplitterTest {

    private static final long T0 = 1_705_320_000_000L; // 2024-01-15T12:00:00Z, a minute boundary
    private static final long MINUTE = 60_000L;

    static FlowRecord flow(long start, long end, long bytes, long packets) {
        return FlowRecord.builder()
                .version(10)
                .exporterAddress(IpAddress.parse("192.0.2.10"))
                .flowStartMillis(start)
                .flowEndMillis(end)
                .timeReceivedMillis(end)
                .srcAddr(IpAddress.parse("198.51.100.1"))
                .dstAddr(IpAddress.parse("203.0.113.7"))
                .protocol(6)
                .dstPort(443)
                .inputInterface(3)
                .outputInterface(4)
                .srcAs(64_500)
                .dstAs(64_501)
                .bytes(bytes)
                .packets(packets)
                .build();
    }

    static List<RollupRow> split(FlowRecord f, long resolution) {
        List<RollupRow> out = new ArrayList<>();
        new FlowSplitter(resolution)
                .flatMap(
                        f,
                        new Collector<>() {
                            @Override
                            public void collect(RollupRow r) {
                                out.add(r);
                            }

                            @Override
                            public void close() {}
                        });
        return out;
    }

    private static List<RollupRow> kind(List<RollupRow> rows, RollupKind k, int direction) {
        return rows.stream()
                .filter(r -> r.kind() == k.code() && r.direction() == direction)
                .toList();
    }

    @Test
    void aTenMinuteFlowCountsInTenOneMinuteBuckets() {
        List<RollupRow> rows = split(flow(T0, T0 + 10 * MINUTE - 1, 6_000_000, 6_000), MINUTE);
        List<RollupRow> in = kind(rows, RollupKind.INTERFACE, 0);
        assertThat(in).hasSize(10);
        for (int i = 0; i < 10; i++) {
            RollupRow r = in.get(i);
            assertThat(r.windowStart()).isEqualTo(T0 + i * MINUTE);
            assertThat(r.iface()).isEqualTo(3);
            assertThat(r.bytes()).isBetween(599_990L, 600_001L);
            assertThat(r.packets()).isBetween(599L, 601L);
            assertThat(r.flows()).isEqualTo(i == 9 ? 1 : 0);
        }
        assertThat(in.stream().mapToLong(RollupRow::bytes).sum()).isEqualTo(6_000_000);
        assertThat(in.stream().mapToLong(RollupRow::packets).sum()).isEqualTo(6_000);
        // Every kind gets the same pieces: in, out, proto/port, AS pair, talker, conversation.
        assertThat(rows).hasSize(60);
        assertThat(kind(rows, RollupKind.INTERFACE, 1)).allMatch(r -> r.iface() == 4);
        assertThat(kind(rows, RollupKind.PROTO_PORT, 0))
                .allMatch(r -> r.protocol() == 6 && r.port() == 443);
        assertThat(kind(rows, RollupKind.AS_PAIR, 0))
                .allMatch(r -> r.srcAs() == 64_500 && r.dstAs() == 64_501);
    }

    @Test
    void overlapDecidesTheShare() {
        // 90 s flow from 12:00:30 to 12:02:00: 30 s, 60 s, 0 s of it in three minutes.
        List<RollupRow> in =
                kind(
                        split(flow(T0 + 30_000, T0 + 120_000, 900, 9), MINUTE),
                        RollupKind.INTERFACE,
                        0);
        assertThat(in).extracting(RollupRow::bytes).containsExactly(300L, 600L, 0L);
        assertThat(in).extracting(RollupRow::flows).containsExactly(0L, 0L, 1L);
    }

    @Test
    void aShortFlowStaysInOneBucketAndSamplingScales() {
        FlowRecord f = flow(T0 + 1_000, T0 + 2_000, 100, 2).toBuilder().samplingRate(10).build();
        List<RollupRow> in = kind(split(f, MINUTE), RollupKind.INTERFACE, 0);
        assertThat(in).hasSize(1);
        assertThat(in.get(0).bytes()).isEqualTo(1_000);
        assertThat(in.get(0).packets()).isEqualTo(20);
        assertThat(in.get(0).flows()).isEqualTo(1);
    }

    @Test
    void piecesAlwaysAddUpExactly() {
        Random rnd = new Random(42);
        for (int i = 0; i < 2_000; i++) {
            long start = T0 + rnd.nextInt(3_600_000);
            long end = start + rnd.nextInt(1_800_000);
            long bytes = rnd.nextLong() >>> 2;
            long packets = rnd.nextInt(1_000_000);
            long res = rnd.nextBoolean() ? MINUTE : 3_600_000L;
            List<RollupRow> in =
                    kind(split(flow(start, end, bytes, packets), res), RollupKind.INTERFACE, 0);
            assertThat(in.stream().mapToLong(RollupRow::bytes).sum()).isEqualTo(bytes);
            assertThat(in.stream().mapToLong(RollupRow::packets).sum()).isEqualTo(packets);
            assertThat(in.stream().mapToLong(RollupRow::flows).sum()).isEqualTo(1);
            assertThat(in).allMatch(r -> r.bytes() >= 0 && r.packets() >= 0);
        }
    }

    @Test
    void aFlowWithABogusStartIsSpreadOverAtMostTheCap() {
        List<RollupRow> in =
                kind(split(flow(1_000L, T0, 1_000_000, 1_000), MINUTE), RollupKind.INTERFACE, 0);
        assertThat(in).hasSize((int) FlowSplitter.MAX_WINDOWS + 1);
        assertThat(in.stream().mapToLong(RollupRow::bytes).sum()).isEqualTo(1_000_000);
    }

    @Test
    void shareIsExactBeyondSixtyFourBits() {
        assertThat(FlowSplitter.share(Long.MAX_VALUE / 2, 1_000_000, 3_000_000))
                .isEqualTo(Long.MAX_VALUE / 2 / 3);
        assertThat(FlowSplitter.share(10, 1, 3)).isEqualTo(3);
    }

    private static FlowRecord ports(int protocol, int src, int dst) {
        return FlowRecord.builder()
                .version(10)
                .exporterAddress(IpAddress.parse("192.0.2.10"))
                .flowStartMillis(T0)
                .flowEndMillis(T0)
                .protocol(protocol)
                .srcPort(src)
                .dstPort(dst)
                .bytes(1)
                .packets(1)
                .build();
    }

    @Test
    void protocolPortBucketsCountAFlowUnderItsServicePort() {
        // Request and answer of the same service land in one bucket.
        assertThat(FlowSplitter.servicePort(ports(6, 51_000, 443))).isEqualTo(443);
        assertThat(FlowSplitter.servicePort(ports(6, 443, 51_000))).isEqualTo(443);
        assertThat(FlowSplitter.servicePort(ports(17, 53, 40_000))).isEqualTo(53);
        // An absent port does not count; ICMP keeps type * 256 + code.
        assertThat(FlowSplitter.servicePort(ports(17, 0, 123))).isEqualTo(123);
        assertThat(FlowSplitter.servicePort(ports(47, 1723, 0))).isEqualTo(1723);
        assertThat(FlowSplitter.servicePort(ports(1, 0, 8 * 256))).isEqualTo(8 * 256);
        assertThat(FlowSplitter.servicePort(ports(58, 0, 129 * 256))).isEqualTo(129 * 256);
        List<RollupRow> rows = split(ports(6, 443, 51_000), MINUTE);
        assertThat(kind(rows, RollupKind.PROTO_PORT, 0))
                .extracting(RollupRow::port)
                .containsExactly(443);
    }
}
