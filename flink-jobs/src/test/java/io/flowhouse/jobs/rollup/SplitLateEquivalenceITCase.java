// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.FlowTimestamps;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The splitter that drops the pieces of closed windows against the plain splitter whose pieces the
 * windows drop: the same flows (on time, late within and beyond the allowed lateness, dated ahead,
 * spanning more windows than the bound) through both rollups, 1 min from the flows and 1 h derived,
 * on a MiniCluster with one subtask; the rows of both resolutions (buckets and top N, every firing
 * with its version) and the late pieces (each one counted, by piece and bytes) must be the same.
 */
class SplitLateEquivalenceITCase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
                            .build());

    private static final String WINDOWS = "windows drop";
    private static final String SPLIT = "split drops late";

    private static final long T0 = 1_705_320_000_000L; // 2024-01-15 12:00:00 UTC
    private static final long MINUTE = 60_000L;
    private static final int FLOWS = 2_000;

    private static List<FlowRecord> flows() {
        Random rnd = new Random(16);
        List<IpAddress> exporters =
                List.of(
                        IpAddress.parse("192.0.2.1"),
                        IpAddress.parse("192.0.2.2"),
                        IpAddress.parse("2001:db8::3"));
        List<FlowRecord> out = new ArrayList<>();
        long received = T0;
        for (int i = 0; i < FLOWS; i++) {
            received += rnd.nextInt(1_500);
            int kind = rnd.nextInt(100);
            long end;
            long start;
            if (kind < 60) { // on time
                end = received - rnd.nextInt(5_000);
                start = end - rnd.nextInt(120_000);
            } else if (kind < 80) { // late by up to 30 min, long
                end = received - rnd.nextInt(30 * (int) MINUTE);
                start = end - rnd.nextInt(120 * (int) MINUTE);
            } else if (kind < 95) { // dated ahead
                end = received + rnd.nextInt(120_000);
                start = end - rnd.nextInt(10 * (int) MINUTE);
            } else if (kind < 98) { // no start
                end = received - rnd.nextInt(10 * (int) MINUTE);
                start = 0;
            } else { // days old, longer than the splitter's bound
                end = received - rnd.nextInt(3 * 24 * 60) * MINUTE;
                start = end - rnd.nextInt(30 * 60) * MINUTE;
            }
            out.add(
                    FlowRecord.builder()
                            .version(10)
                            .exporterAddress(exporters.get(rnd.nextInt(exporters.size())))
                            .flowStartMillis(start)
                            .flowEndMillis(end)
                            .timeReceivedMillis(received)
                            .srcAddr(IpAddress.parse("198.51.100." + rnd.nextInt(40)))
                            .dstAddr(IpAddress.parse("203.0.113." + rnd.nextInt(40)))
                            .protocol(rnd.nextBoolean() ? 6 : 17)
                            .srcPort(1024 + rnd.nextInt(20))
                            .dstPort(rnd.nextBoolean() ? 443 : 53)
                            .srcAs(64_500 + rnd.nextInt(5))
                            .dstAs(64_500 + rnd.nextInt(5))
                            .inputInterface(rnd.nextInt(6))
                            .outputInterface(rnd.nextInt(6))
                            .bytes(40 + rnd.nextInt(1_000_000))
                            .packets(1 + rnd.nextInt(1_000))
                            .build());
        }
        return out;
    }

    /** Every row and late piece of one run, as text, marked by what it is. */
    private static List<String> run(boolean splitDropsLate) throws Exception {
        RollupSettings s =
                new RollupSettings(
                        true,
                        List.of(Duration.ofMinutes(1), Duration.ofHours(1)),
                        5,
                        Duration.ofSeconds(10),
                        Duration.ofMinutes(2),
                        Duration.ZERO,
                        Map.of(),
                        PieceCombiner.DEFAULT_MAX_BUCKETS,
                        RollupConfigKeys.TOP_CAPACITY.defaultValue(),
                        RollupConfigKeys.TOP_SHARDS.defaultValue(),
                        BucketBudget.DEFAULT_MAX_BUCKETS);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        // Watermarks on events only (no periodic ticks): the same in both runs.
        env.getConfig().setAutoWatermarkInterval(0);
        DataStream<FlowRecord> in =
                env.fromData(flows(), TypeInformation.of(FlowRecord.class))
                        .assignTimestampsAndWatermarks(
                                FlowTimestamps.flows(Duration.ZERO, Duration.ZERO));
        List<RollupTopology.Streams> st = RollupTopology.streams(in, s, splitDropsLate);
        DataStream<String> all =
                st.get(0)
                        .rows()
                        .map(r -> "1m " + r)
                        .union(
                                st.get(1).rows().map(r -> "1h " + r),
                                st.get(0).late().map(r -> "late " + r));
        return RollupStreams.collect(all, splitDropsLate ? SPLIT : WINDOWS);
    }

    /** A counter summed over the operators of a job whose name starts with {@code operator}. */
    private static long counter(String job, String operator, String name) {
        long n = 0;
        for (Map.Entry<MetricGroup, Map<String, Metric>> g :
                REPORTER.getMetricsByGroup().entrySet()) {
            Map<String, String> v = g.getKey().getAllVariables();
            String op = v.get("<operator_name>");
            if (!job.equals(v.get("<job_name>")) || op == null || !op.startsWith(operator)) {
                continue;
            }
            if (g.getValue().get(name) instanceof Counter c) {
                n += c.getCount();
            }
        }
        return n;
    }

    @Test
    void droppingAtTheSplitGivesTheSameRowsAndLatePiecesAsTheWindows() throws Exception {
        // The split first: its run has the JIT's warm-up, so its figure below is the higher one.
        long cpu0 = cpuNanos();
        List<String> split = run(true);
        long cpu1 = cpuNanos();
        List<String> windows = run(false);
        long cpu2 = cpuNanos();
        long late = windows.stream().filter(r -> r.startsWith("late ")).count();
        // Not vacuous: many pieces late, many rows of both resolutions.
        assertThat(late).isGreaterThan(10_000);
        assertThat(windows.stream().filter(r -> r.startsWith("1m "))).hasSizeGreaterThan(1_000);
        assertThat(windows.stream().filter(r -> r.startsWith("1h "))).hasSizeGreaterThan(50);
        assertThat(split).hasSameSizeAs(windows).containsExactlyInAnyOrderElementsOf(windows);
        long lateBytes =
                windows.stream()
                        .filter(r -> r.startsWith("late "))
                        .mapToLong(r -> Long.parseLong(r.replaceAll(".*, bytes=(\\d+),.*", "$1")))
                        .sum();
        String pieces = "rollup_late_pieces_total";
        String bytes = "rollup_late_bytes_total";
        // The windows counted every late piece; with the split dropping, the split counted them
        // all and the windows none (one subtask).
        assertThat(counter(WINDOWS, "late pieces", pieces)).isEqualTo(late);
        assertThat(counter(WINDOWS, "late pieces", bytes)).isEqualTo(lateBytes);
        assertThat(counter(WINDOWS, "split", pieces)).isZero();
        assertThat(counter(SPLIT, "split", pieces)).isEqualTo(late);
        assertThat(counter(SPLIT, "split", bytes)).isEqualTo(lateBytes);
        assertThat(counter(SPLIT, "late pieces", pieces)).isZero();
        System.out.printf(
                Locale.ROOT,
                "SPLIT LATE A/B: %,d flows, %,d late pieces; this JVM's cpu: windows drop %.1f s,"
                        + " split drops %.1f s; load %.1f%n",
                FLOWS,
                late,
                (cpu2 - cpu1) / 1e9,
                (cpu1 - cpu0) / 1e9,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
