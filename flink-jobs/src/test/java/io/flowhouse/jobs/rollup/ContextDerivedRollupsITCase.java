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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Context rollups of a resolution that a finer one divides, derived from the finer one's deltas on
 * a MiniCluster: the final rows equal those summed from the flows, a late flow within the allowance
 * re-fires the finer and then the coarser bucket with its complete counts and a higher version, and
 * a flow beyond the finest allowance is dropped for every resolution.
 */
class ContextDerivedRollupsITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = new MiniClusterExtension();

    private static final long T0 = 1_705_320_000_000L; // 12:00:00
    private static final long MINUTE = 60_000L;
    private static final String[] COUNTRIES = {"AU", "JP", "DE", "US", "FR"};

    private static EnrichedFlow flow(long start, long end, long received, int i, long bytes) {
        int iface = i % 7;
        FlowRecord f =
                FlowRecord.builder()
                        .version(10)
                        .exporterAddress(IpAddress.ofIpv4(0xc000_0200 | (i % 3)))
                        .flowStartMillis(start)
                        .flowEndMillis(end)
                        .timeReceivedMillis(received)
                        .srcAddr(IpAddress.parse("198.51.100.1"))
                        .dstAddr(IpAddress.parse("203.0.113.7"))
                        .protocol(i % 2 == 0 ? 6 : 17)
                        .dstPort(443)
                        .inputInterface(iface)
                        .outputInterface(iface + 10)
                        .bytes(bytes)
                        .packets(1 + i % 5)
                        .build();
        FlowContext c =
                new FlowContext(
                        Attributes.NONE,
                        new InterfaceContext("in-" + iface, "", 0, Boundary.EXTERNAL, "", ""),
                        new InterfaceContext(
                                "out-" + (iface + 10), "", 0, Boundary.INTERNAL, "", ""),
                        COUNTRIES[i % 5],
                        COUNTRIES[(i / 5) % 5],
                        64_500 + i % 11,
                        13_335,
                        Attributes.NONE,
                        Attributes.NONE);
        return new EnrichedFlow(f, c);
    }

    private static DataStream<EnrichedFlow> source(
            StreamExecutionEnvironment env, List<EnrichedFlow> flows) {
        return env.fromData(flows, TypeInformation.of(EnrichedFlow.class))
                // The flows' watermark: their receive time, as the raw source gives it.
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.<EnrichedFlow>forGenerator(
                                        ctx -> new PieceWatermarks<>(0))
                                .withTimestampAssigner((e, t) -> e.flow().timeReceivedMillis()));
    }

    /** The last (highest version) row of each window and bucket. */
    private static Map<List<Object>, ContextRow> last(List<ContextRow> rows) {
        Map<List<Object>, ContextRow> out = new HashMap<>();
        for (ContextRow r : rows) {
            out.merge(
                    List.of(r.windowStart(), r.key()),
                    r,
                    (a, b) -> a.version() >= b.version() ? a : b);
        }
        return out;
    }

    @Test
    void derivedRowsEqualTheRowsSummedFromTheFlows() throws Exception {
        RollupSettings s =
                RollupStreams.settings(
                        Duration.ofMinutes(2), Duration.ofMinutes(1), Duration.ofMinutes(10));
        List<EnrichedFlow> flows = new ArrayList<>();
        // 25 minutes of flows up to 1 minute long, each received a little after its end, some
        // out of order (within the allowance).
        for (int i = 0; i < 3_000; i++) {
            long end = T0 + i * 500L;
            long received = end + (i % 13 == 0 ? -40_000 : 0) + 1_000;
            flows.add(flow(end - (i % 4) * 20_000L, end, Math.max(received, T0), i, 100 + i));
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        List<DataStream<ContextRow>> both = ContextRollups.streams(source(env, flows), s, null);
        List<ContextRow> derived = RollupStreams.collect(both.get(1), "context derived");

        StreamExecutionEnvironment env2 = StreamExecutionEnvironment.getExecutionEnvironment();
        env2.setParallelism(1);
        List<ContextRow> fromFlows =
                RollupStreams.collect(
                        ContextRollups.rows(source(env2, flows), Duration.ofMinutes(10), s),
                        "context from flows");

        Map<List<Object>, ContextRow> d = last(derived);
        Map<List<Object>, ContextRow> f = last(fromFlows);
        assertThat(d).isNotEmpty();
        assertThat(d.keySet()).isEqualTo(f.keySet());
        for (Map.Entry<List<Object>, ContextRow> e : f.entrySet()) {
            ContextRow a = d.get(e.getKey());
            ContextRow b = e.getValue();
            assertThat(List.of(a.bytes(), a.packets(), a.flows()))
                    .as("%s", e.getKey())
                    .isEqualTo(List.of(b.bytes(), b.packets(), b.flows()));
        }
        long bytes = flows.stream().mapToLong(x -> x.flow().bytes()).sum();
        for (int kind :
                new int[] {ContextRow.INTERFACE, ContextRow.COUNTRY_PAIR, ContextRow.BOUNDARY_AS}) {
            long inKind =
                    d.values().stream()
                            .filter(r -> r.kind() == kind && r.direction() == 0)
                            .mapToLong(ContextRow::bytes)
                            .sum();
            assertThat(inKind).as("kind %d", kind).isEqualTo(bytes);
        }
    }

    @Test
    void aLateFlowReFiresTheDerivedBucketAndOneBeyondTheAllowanceIsDroppedForAll()
            throws Exception {
        RollupSettings s =
                RollupStreams.settings(
                        Duration.ofMinutes(2), Duration.ofMinutes(1), Duration.ofMinutes(2));
        long at = T0 + 4 * MINUTE;
        List<EnrichedFlow> flows =
                List.of(
                        flow(at + 20_000, at + 20_000, at + 20_000, 0, 100), // 12:04 bucket
                        flow(at + 150_000, at + 150_000, at + 150_000, 0, 10), // 12:04-12:06 fire
                        flow(at + 40_000, at + 40_000, at + 40_000, 0, 50), // late, within 2 min
                        flow(T0 + 10_000, T0 + 10_000, T0 + 10_000, 0, 7)); // past the allowance
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        // One subtask: the watermark follows the order of the flows.
        env.setParallelism(1);
        List<DataStream<ContextRow>> both = ContextRollups.streams(source(env, flows), s, null);
        DataStream<ContextRow> marked =
                both.get(0)
                        .union(
                                both.get(1)
                                        .map(
                                                r ->
                                                        new ContextRow(
                                                                r.kind(),
                                                                r.windowStart(),
                                                                r.exporter(),
                                                                r.iface(),
                                                                r.direction() + 10,
                                                                r.ifName(),
                                                                r.inBoundary(),
                                                                r.outBoundary(),
                                                                r.protocol(),
                                                                r.srcAs(),
                                                                r.dstAs(),
                                                                r.srcCountry(),
                                                                r.dstCountry(),
                                                                r.bytes(),
                                                                r.packets(),
                                                                r.flows(),
                                                                r.version()))
                                        .returns(ContextRowTypeInfo.INSTANCE));
        List<ContextRow> out = RollupStreams.collect(marked, "context late");
        List<ContextRow> countries =
                out.stream().filter(r -> r.kind() == ContextRow.COUNTRY_PAIR).toList();
        assertThat(countries.stream().filter(r -> r.direction() == 0))
                .extracting(ContextRow::windowStart, ContextRow::bytes, ContextRow::flows)
                .containsExactlyInAnyOrder(
                        Tuple.tuple(at, 100L, 1L),
                        Tuple.tuple(at, 150L, 2L),
                        Tuple.tuple(at + 2 * MINUTE, 10L, 1L));
        List<ContextRow> twoMinutes = countries.stream().filter(r -> r.direction() == 10).toList();
        assertThat(twoMinutes)
                .extracting(ContextRow::windowStart, ContextRow::bytes, ContextRow::flows)
                .containsExactlyInAnyOrder(
                        Tuple.tuple(at, 100L, 1L),
                        Tuple.tuple(at, 150L, 2L),
                        Tuple.tuple(at + 2 * MINUTE, 10L, 1L));
        ContextRow first = twoMinutes.stream().filter(r -> r.bytes() == 100).findFirst().get();
        ContextRow again = twoMinutes.stream().filter(r -> r.bytes() == 150).findFirst().get();
        assertThat(again.version()).isGreaterThan(first.version());
        // The 12:00 flow came after its minute's allowance: no resolution has it.
        assertThat(out).noneMatch(r -> r.windowStart() == T0);
    }
}
