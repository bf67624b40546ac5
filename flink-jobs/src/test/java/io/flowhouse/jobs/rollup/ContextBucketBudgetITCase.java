// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.Boundary;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The context rollups on a MiniCluster with a small bucket bound: an exporter naming a new
 * interface and AS pair in every flow opens at most the bound of buckets per kind and window, the
 * rest is summed in the kind's bucket of zeros (direction and boundaries kept), every kind's totals
 * stay exact, and an exporter within the bound keeps every bucket as it was.
 */
class ContextBucketBudgetITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = new MiniClusterExtension();

    private static final long T0 = 1_705_320_000_000L; // 12:00:00
    private static final IpAddress HOSTILE = IpAddress.parse("192.0.2.66");
    private static final IpAddress GOOD = IpAddress.parse("192.0.2.99");
    private static final int BOUND = 40;
    private static final int HOSTILE_FLOWS = 500;
    private static final int GOOD_FLOWS = 20;

    private static EnrichedFlow flow(IpAddress exporter, int i, long bytes, boolean distinct) {
        int iface = distinct ? 1_000 + i : 7;
        FlowRecord f =
                FlowRecord.builder()
                        .version(10)
                        .exporterAddress(exporter)
                        .flowStartMillis(T0 + 1_000 + i)
                        .flowEndMillis(T0 + 1_000 + i)
                        .timeReceivedMillis(T0 + 1_000 + i)
                        .srcAddr(IpAddress.parse("198.51.100.1"))
                        .dstAddr(IpAddress.parse("203.0.113.7"))
                        .protocol(6)
                        .dstPort(443)
                        .inputInterface(iface)
                        .outputInterface(iface + 1)
                        .bytes(bytes)
                        .packets(1)
                        .build();
        FlowContext c =
                new FlowContext(
                        Attributes.NONE,
                        new InterfaceContext("in-" + iface, "", 0, Boundary.EXTERNAL, "", ""),
                        new InterfaceContext(
                                "out-" + (iface + 1), "", 0, Boundary.INTERNAL, "", ""),
                        "AU",
                        "JP",
                        distinct ? 64_500 + i : 15_169,
                        13_335,
                        Attributes.NONE,
                        Attributes.NONE);
        return new EnrichedFlow(f, c);
    }

    @Test
    void anExporterOpensAtMostTheBoundPerKindAndTotalsStayExact() throws Exception {
        RollupSettings s = RollupStreams.settings(Duration.ZERO, BOUND, Duration.ofMinutes(1));
        List<EnrichedFlow> flows = new ArrayList<>();
        long hostileBytes = 0;
        for (int i = 0; i < HOSTILE_FLOWS; i++) {
            flows.add(flow(HOSTILE, i, 100 + i, true));
            hostileBytes += 100 + i;
        }
        long goodBytes = 0;
        for (int i = 0; i < GOOD_FLOWS; i++) {
            flows.add(flow(GOOD, i, 10, false));
            goodBytes += 10;
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<EnrichedFlow> in =
                env.fromData(flows, TypeInformation.of(EnrichedFlow.class))
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<EnrichedFlow>forMonotonousTimestamps()
                                        .withTimestampAssigner(
                                                (e, t) -> e.flow().timeReceivedMillis()));
        List<ContextRow> out =
                RollupStreams.collect(ContextRollups.rows(in, Duration.ofMinutes(1), s), "context");

        for (int kind = ContextRow.INTERFACE; kind <= ContextRow.BOUNDARY_AS; kind++) {
            int k = kind;
            List<ContextRow> hostile =
                    out.stream()
                            .filter(r -> r.kind() == k && r.exporter().equals(HOSTILE))
                            .toList();
            List<ContextRow> good =
                    out.stream().filter(r -> r.kind() == k && r.exporter().equals(GOOD)).toList();
            long factor = kind == ContextRow.INTERFACE ? 2 : 1; // once per direction
            assertThat(hostile.stream().mapToLong(ContextRow::bytes).sum())
                    .as("kind %d hostile bytes", kind)
                    .isEqualTo(factor * hostileBytes);
            assertThat(hostile.stream().mapToLong(ContextRow::flows).sum())
                    .isEqualTo(factor * HOSTILE_FLOWS);
            assertThat(good.stream().mapToLong(ContextRow::bytes).sum())
                    .isEqualTo(factor * goodBytes);
            // Within the bound: one bucket per direction, every flow in it, named.
            assertThat(good).hasSize((int) factor).allMatch(r -> r.flows() == GOOD_FLOWS);
            if (kind == ContextRow.COUNTRY_PAIR) {
                assertThat(hostile)
                        .singleElement()
                        .satisfies(r -> assertThat(r.srcCountry()).isEqualTo("AU"));
                continue;
            }
            // The bound's buckets plus the bucket of zeros (one per direction for interfaces).
            assertThat(hostile).hasSize(BOUND + (int) factor);
            List<ContextRow> zeros =
                    hostile.stream().filter(r -> r.iface() == 0 && r.srcAs() == 0).toList();
            assertThat(zeros).hasSize((int) factor);
            assertThat(zeros.stream().mapToLong(ContextRow::flows).sum())
                    .isEqualTo(factor * HOSTILE_FLOWS - BOUND);
            assertThat(zeros)
                    .allSatisfy(
                            r -> {
                                assertThat(r.ifName()).isEmpty();
                                assertThat(r.inBoundary() + r.outBoundary()).isPositive();
                            });
        }
    }
}
