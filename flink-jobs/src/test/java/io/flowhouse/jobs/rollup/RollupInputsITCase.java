// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.FlowTimestamps;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rollups of two inputs, each split and combined on its own ({@link RollupInput}), write the
 * same rows as the rollups of their union: the bucket and top-N rows of both resolutions, and the
 * context rows with enrichment (every flow on time; see {@link #LATENESS}).
 */
class RollupInputsITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final long T0 = 1_705_320_000_000L; // 12:00:00
    private static final Duration[] RESOLUTIONS = {Duration.ofMinutes(1), Duration.ofHours(1)};

    /**
     * Longer than any flow, so no piece is late: each input's split judges lateness by its own
     * watermark, where a split of the union took the least of both (README-rollups), so late pieces
     * may differ; on-time ones may not.
     */
    private static final Duration LATENESS = Duration.ofMinutes(10);

    /** Flows of one exporter over 70 minutes in receive-time order, some spanning windows. */
    private static List<FlowRecord> flows(String exporter, int n, int seed) {
        List<FlowRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int k = i * 31 + seed;
            long end = T0 + i * 70L * 60_000L / n;
            out.add(
                    FlowRecord.builder()
                            .version(10)
                            .exporterAddress(IpAddress.parse(exporter))
                            .flowStartMillis(end - (k % 5) * 40_000L)
                            .flowEndMillis(end)
                            .timeReceivedMillis(end)
                            .srcAddr(IpAddress.ofIpv4(0xc6336400 | (k % 17))) // 198.51.100.x
                            .dstAddr(IpAddress.ofIpv4(0xcb007100 | (k % 11))) // 203.0.113.x
                            .protocol(k % 3 == 0 ? 17 : 6)
                            .srcPort(40_000 + k % 100)
                            .dstPort(k % 2 == 0 ? 443 : 53)
                            .inputInterface(1 + k % 3)
                            .outputInterface(4 + k % 2)
                            .srcAs(64_512 + k % 4)
                            .dstAs(64_600 + k % 3)
                            .bytes(100 + k % 1_000)
                            .packets(1 + k % 10)
                            .build());
        }
        return out;
    }

    private static DataStream<FlowRecord> source(
            StreamExecutionEnvironment env, List<FlowRecord> flows) {
        return env.fromData(flows, TypeInformation.of(FlowRecord.class))
                // The flows' watermark: their receive time, as the raw source gives it.
                .assignTimestampsAndWatermarks(FlowTimestamps.flows(Duration.ZERO, Duration.ZERO));
    }

    private static StreamExecutionEnvironment env() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        return env;
    }

    /** The last firing of each row (by version), keyed by everything but the counters. */
    private static <T> Map<Object, T> last(
            List<T> rows, Function<T, Object> key, Function<T, Long> version) {
        Map<Object, T> out = new HashMap<>();
        for (T r : rows) {
            out.merge(key.apply(r), r, (a, b) -> version.apply(b) >= version.apply(a) ? b : a);
        }
        return out;
    }

    /** The rows that differ (or are missing on one side), keyed. */
    private static <T> List<String> differences(Map<Object, T> expected, Map<Object, T> actual) {
        List<String> out = new ArrayList<>();
        Set<Object> keys = new HashSet<>(expected.keySet());
        keys.addAll(actual.keySet());
        for (Object k : keys) {
            if (!Objects.equals(expected.get(k), actual.get(k))) {
                out.add(k + ": expected " + expected.get(k) + ", was " + actual.get(k));
            }
        }
        return out;
    }

    private static Object key(RollupRow r) {
        return List.of(
                r.kind(),
                r.windowStart(),
                r.exporter(),
                r.iface(),
                r.direction(),
                r.protocol(),
                r.port(),
                r.srcAs(),
                r.dstAs(),
                r.rank());
    }

    /** A context row's bucket (its key has equals and hashCode) and window. */
    private static Object contextKey(ContextRow r) {
        return List.of(r.windowStart(), r.key());
    }

    private static List<RollupRow> plain(List<RollupTopology.Streams> streams) throws Exception {
        DataStream<RollupRow> all = streams.get(0).rows();
        for (RollupTopology.Streams st : streams.subList(1, streams.size())) {
            all = all.union(st.rows());
        }
        return RollupStreams.collect(all, "rows");
    }

    @Test
    void twoInputsWriteTheRowsOfTheirUnion() throws Exception {
        RollupSettings s = RollupStreams.settings(LATENESS, RESOLUTIONS);
        List<FlowRecord> a = flows("192.0.2.1", 600, 0);
        List<FlowRecord> b = flows("192.0.2.2", 400, 7);

        StreamExecutionEnvironment apart = env();
        List<RollupRow> inputs =
                plain(
                        RollupTopology.streams(
                                List.of(
                                        RollupInput.main(source(apart, a)),
                                        new RollupInput<>(source(apart, b), "packets")),
                                s,
                                true));
        StreamExecutionEnvironment together = env();
        List<RollupRow> union =
                plain(RollupTopology.streams(source(together, a).union(source(together, b)), s));

        Map<Object, RollupRow> expected = last(union, RollupInputsITCase::key, RollupRow::version);
        assertThat(expected).hasSizeGreaterThan(100);
        assertThat(differences(expected, last(inputs, RollupInputsITCase::key, RollupRow::version)))
                .isEmpty();
    }

    @Test
    void twoEnrichedInputsWriteTheContextRowsOfTheirUnion() throws Exception {
        RollupSettings s = RollupStreams.settings(LATENESS, RESOLUTIONS);
        List<FlowRecord> a = flows("192.0.2.1", 600, 0);
        List<FlowRecord> b = flows("192.0.2.2", 400, 7);

        StreamExecutionEnvironment apart = env();
        List<DataStream<ContextRow>> inputs =
                ContextRollups.streams(
                        List.of(
                                RollupInput.main(enriched(source(apart, a))),
                                new RollupInput<>(enriched(source(apart, b)), "packets")),
                        s,
                        null);
        StreamExecutionEnvironment together = env();
        List<DataStream<ContextRow>> union =
                ContextRollups.streams(
                        enriched(source(together, a)).union(enriched(source(together, b))),
                        s,
                        null);

        Map<Object, ContextRow> expected =
                last(collect(union), RollupInputsITCase::contextKey, ContextRow::version);
        assertThat(expected).hasSizeGreaterThan(50);
        assertThat(
                        differences(
                                expected,
                                last(
                                        collect(inputs),
                                        RollupInputsITCase::contextKey,
                                        ContextRow::version)))
                .isEmpty();
    }

    private static DataStream<EnrichedFlow> enriched(DataStream<FlowRecord> flows) {
        return flows.map(f -> new EnrichedFlow(f, ContextRollups.none(f)))
                .returns(TypeInformation.of(EnrichedFlow.class));
    }

    private static List<ContextRow> collect(List<DataStream<ContextRow>> rows) throws Exception {
        DataStream<ContextRow> all = rows.get(0);
        for (DataStream<ContextRow> r : rows.subList(1, rows.size())) {
            all = all.union(r);
        }
        return RollupStreams.collect(all, "context rows");
    }
}
