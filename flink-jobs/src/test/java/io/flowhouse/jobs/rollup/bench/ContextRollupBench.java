// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup.bench;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.Boundary;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import io.flowhouse.jobs.rollup.ContextRollups;
import io.flowhouse.jobs.rollup.RollupConfigKeys;
import io.flowhouse.jobs.rollup.RollupSettings;
import io.flowhouse.jobs.rollup.RollupTopology;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * Component benchmark (not a test) of the rollups with enrichment off and on, as the job wires
 * them: {@code n} synthetic enriched flows (8 exporters, 64 interfaces, 40 country pairs, 500 AS
 * pairs each seen on two in interfaces, event time over 20 minutes) go through {@link
 * RollupTopology} (off) or {@link ContextRollups} (on: the plain rollups plus the context rollups)
 * of the default resolutions (1 m, 1 h) into discarding sinks, on a MiniCluster, with object reuse
 * on. It prints flows per CPU-second of the job's task threads (ThreadMXBean, sampled every 100 ms,
 * so threads that ended still count) and of the whole JVM, per mode, alternating the modes {@code
 * rounds} times after a warm-up of each.
 *
 * <pre>
 * mvn -B -ntp -o -Pfast -pl flink-jobs test-compile
 * mvn -B -ntp -o -q -pl flink-jobs dependency:build-classpath -Dmdep.outputFile=/tmp/jobs.cp \
 *     -Dmdep.includeScope=test
 * cd flink-jobs &amp;&amp; java -Xmx2g -cp target/test-classes:target/classes:$(cat /tmp/jobs.cp) \
 *     io.flowhouse.jobs.rollup.bench.ContextRollupBench 2000000 1 2
 * </pre>
 *
 * Arguments: flows per run (default 2,000,000), parallelism (1), rounds (2), modes (off,on), {@code
 * rollup.combine-buckets} (default: the key's default; 0 sends every piece on its own).
 */
public final class ContextRollupBench {

    private static final long T0 = 1_705_320_000_000L;
    private static final long SPAN_MILLIS = Duration.ofMinutes(20).toMillis();
    private static final String[] COUNTRIES = {"AU", "JP", "DE", "US", "FR", "BR", "IN", "ZA"};

    /** Flink's task thread names: "operator (i/n)#attempt". */
    private static final Pattern TASK_THREAD = Pattern.compile(".*\\(\\d+/\\d+\\)#\\d+$");

    private static int combineBuckets;

    private ContextRollupBench() {}

    public static void main(String[] args) throws Exception {
        long n = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000L;
        int parallelism = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        List<String> modes = List.of((args.length > 3 ? args[3] : "off,on").split(","));
        combineBuckets =
                args.length > 4
                        ? Integer.parseInt(args[4])
                        : RollupConfigKeys.COMBINE_BUCKETS.defaultValue();
        System.out.printf(
                Locale.ROOT,
                "flows %,d, parallelism %d, combine buckets %d%n",
                n,
                parallelism,
                combineBuckets);
        for (String m : modes) {
            run(m, Math.max(n / 10, 50_000), parallelism, false);
        }
        for (int r = 0; r < rounds; r++) {
            for (String m : modes) {
                run(m, n, parallelism, true);
            }
        }
    }

    private static void run(String mode, long n, int parallelism, boolean print) throws Exception {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.OBJECT_REUSE, true);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.getConfig().enableObjectReuse();
        env.setParallelism(parallelism);
        RollupSettings s = settings();
        DataStream<EnrichedFlow> flows =
                env.fromSequence(0, n - 1)
                        .map(i -> flow(i, n), TypeInformation.of(EnrichedFlow.class))
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<EnrichedFlow>forMonotonousTimestamps()
                                        .withTimestampAssigner(
                                                (e, t) -> e.flow().timeReceivedMillis()));
        if (mode.equals("on")) {
            ContextRollups.attach(
                    flows, s, r -> new DiscardingSink<>(), r -> new DiscardingSink<>());
        } else if (mode.equals("off")) {
            RollupTopology.attach(
                    flows.map(EnrichedFlow::flow, TypeInformation.of(FlowRecord.class)),
                    s,
                    r -> new DiscardingSink<>());
        } else {
            throw new IllegalArgumentException("mode " + mode + " (expected: off, on)");
        }
        ThreadCpu cpu = new ThreadCpu();
        long jvm0 = jvmCpuNanos();
        long t0 = System.nanoTime();
        cpu.start();
        env.execute("context rollup bench " + mode);
        cpu.finish();
        double wall = (System.nanoTime() - t0) / 1e9;
        double jvm = (jvmCpuNanos() - jvm0) / 1e9;
        double tasks = cpu.taskNanos() / 1e9;
        if (print) {
            System.out.printf(
                    Locale.ROOT,
                    "%-3s flows %,d  wall %.1f s  task CPU %.1f s  JVM CPU %.1f s  "
                            + "flows/task-CPU-s %,.0f  flows/JVM-CPU-s %,.0f  load %.1f%n",
                    mode,
                    n,
                    wall,
                    tasks,
                    jvm,
                    n / tasks,
                    n / jvm,
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }

    private static RollupSettings settings() {
        return new RollupSettings(
                true,
                RollupConfigKeys.RESOLUTIONS.defaultValue(),
                RollupConfigKeys.TOP_N.defaultValue(),
                RollupConfigKeys.MAX_OUT_OF_ORDERNESS.defaultValue(),
                RollupConfigKeys.ALLOWED_LATENESS.defaultValue(),
                Duration.ZERO,
                Map.of(),
                combineBuckets,
                RollupConfigKeys.TOP_CAPACITY.defaultValue(),
                RollupConfigKeys.TOP_SHARDS.defaultValue(),
                RollupConfigKeys.MAX_BUCKETS_PER_EXPORTER.defaultValue());
    }

    private static final InterfaceContext[] IN = new InterfaceContext[64];
    private static final InterfaceContext[] OUT = new InterfaceContext[64];

    static {
        for (int i = 0; i < IN.length; i++) {
            IN[i] = new InterfaceContext("xe-0/0/" + i, "", 0, Boundary.EXTERNAL, "", "");
            OUT[i] = new InterfaceContext("ae" + i, "", 0, Boundary.INTERNAL, "", "");
        }
    }

    /** Flow {@code i} of {@code n}: event time rises evenly over the span; keys mixed. */
    static EnrichedFlow flow(long i, long n) {
        long t = T0 + i * SPAN_MILLIS / n;
        int h = (int) (i * 0x9E3779B97F4A7C15L >>> 33);
        int pair = (h >>> 15) % 500;
        // An AS pair comes in on one of two interfaces, as routing makes it.
        int iface = (pair + (h & 1)) & 63;
        int oface = (h >>> 6) & 63;
        FlowRecord f =
                FlowRecord.builder()
                        .version(10)
                        .exporterAddress(IpAddress.ofIpv4(0xc000_0200 | (h >>> 12) & 7))
                        .flowStartMillis(t - 5_000)
                        .flowEndMillis(t)
                        .timeReceivedMillis(t)
                        .srcAddr(IpAddress.ofIpv4(0xc633_6400 | (h & 0xff)))
                        .dstAddr(IpAddress.ofIpv4(0xcb00_7100 | ((h >>> 8) & 0xff)))
                        .protocol((h & 1) == 0 ? 6 : 17)
                        .srcPort(1024 + (h & 0x3fff))
                        .dstPort((h & 2) == 0 ? 443 : 53)
                        .inputInterface(iface)
                        .outputInterface(oface)
                        .bytes(64 + (h & 0xfff))
                        .packets(1 + (h & 7))
                        .build();
        FlowContext c =
                new FlowContext(
                        Attributes.NONE,
                        IN[iface],
                        OUT[oface],
                        COUNTRIES[(h >>> 15) & 7],
                        COUNTRIES[(h >>> 18) % 5],
                        64_500 + pair % 50,
                        13_335 + pair / 50,
                        Attributes.NONE,
                        Attributes.NONE);
        return new EnrichedFlow(f, c);
    }

    private static long jvmCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** The CPU time of Flink's task threads, sampled until {@link #finish}. */
    private static final class ThreadCpu extends Thread {
        private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        private final Map<Long, Long> first = new HashMap<>();
        private final Map<Long, Long> last = new HashMap<>();
        private volatile boolean done;

        ThreadCpu() {
            super("bench-thread-cpu");
            setDaemon(true);
            for (ThreadInfo t : mx.dumpAllThreads(false, false)) {
                first.put(t.getThreadId(), Math.max(0, mx.getThreadCpuTime(t.getThreadId())));
            }
        }

        @Override
        public void run() {
            while (!done) {
                sample();
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private synchronized void sample() {
            for (ThreadInfo t : mx.dumpAllThreads(false, false)) {
                if (TASK_THREAD.matcher(t.getThreadName()).matches()) {
                    long c = mx.getThreadCpuTime(t.getThreadId());
                    if (c >= 0) {
                        last.put(t.getThreadId(), c);
                    }
                }
            }
        }

        void finish() throws InterruptedException {
            done = true;
            join();
            sample();
        }

        synchronized long taskNanos() {
            long sum = 0;
            for (Map.Entry<Long, Long> e : last.entrySet()) {
                sum += e.getValue() - first.getOrDefault(e.getKey(), 0L);
            }
            return sum;
        }
    }
}
