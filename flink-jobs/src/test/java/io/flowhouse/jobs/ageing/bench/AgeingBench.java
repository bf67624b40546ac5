// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.packet.FlowHash;
import io.flowhouse.codec.packet.PacketBatchCodec;
import io.flowhouse.codec.packet.PacketSummary;
import io.flowhouse.jobs.ageing.AgeingSettings;
import io.flowhouse.jobs.ageing.BucketedFlowAgeingFunction;
import io.flowhouse.jobs.ageing.FlowAgeingFunction;
import io.flowhouse.jobs.ageing.PacketBucketSelector;
import io.flowhouse.jobs.ageing.PacketFlowKey;
import io.flowhouse.jobs.ageing.PacketFlowKeySelector;
import io.flowhouse.jobs.ageing.PacketFlowTopology;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Flow ageing benchmark (not a test; results in flink-jobs/BENCHMARKS-ageing.md).
 *
 * <pre>
 * state FLOWS        FLOWS concurrent flows in the heap backend: bytes per flow (heap after GC,
 *                    before and after), then every flow updated again; longest GC pause seen
 * operator PACKETS FLOWS   packets/s of FlowAgeingFunction alone on one thread (CPU time)
 * kafka PACKETS FLOWS [WARMUP]  packets.raw on an embedded broker -> MiniCluster (parallelism 1):
 *                    source + deserialize + keyBy + ageing; packets/s per core of process CPU,
 *                    measured on a second job in the same JVM (the first, of at most 500 k
 *                    packets, warms up). Packet i belongs to flow i % FLOWS at T0 + i/1000 ms,
 *                    so FLOWS flows are open at once, each with PACKETS / FLOWS packets, and all
 *                    end at the end of the input (timeouts 120 s / 30 s)
 * reprocess PACKETS FLOWS  packets.raw on an embedded broker -> ReprocessJob in BATCH mode on a
 *                    MiniCluster (parallelism 2) -> a local clickhouse-server: raw flows and
 *                    1 m + 1 h rollups; flows/s of wall time
 * </pre>
 *
 * <p>A last argument {@code keyed} or {@code bucketed} (the default) picks the flow table ({@code
 * flowhouse.packets.flow-table}), so one build measures both back to back; the reprocess mode
 * passes it to the job ({@code auto} when not given, the job's default).
 */
public final class AgeingBench {

    private static final long T0 = 1_705_320_000_000L;

    /** The flow table measured: bucketed (default) or keyed. */
    private static boolean bucketed = true;

    /** The flow table option of the reprocess mode: bucketed, keyed or auto (the default). */
    private static String flowTable = "auto";

    /** Packets of the warm-up job of the kafka mode; 0: min(packets, 500 k). */
    private static long warmupPackets;

    private AgeingBench() {}

    public static void main(String[] argv) throws Exception {
        String[] args = argv;
        String last = args.length > 0 ? args[args.length - 1] : "";
        if (last.equals("keyed") || last.equals("bucketed") || last.equals("auto")) {
            bucketed = !last.equals("keyed");
            flowTable = last;
            args = java.util.Arrays.copyOf(args, args.length - 1);
        }
        String mode = args.length > 0 ? args[0] : "state";
        long a = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000L;
        long b = args.length > 2 ? Long.parseLong(args[2]) : 100_000L;
        warmupPackets = args.length > 3 ? Long.parseLong(args[3]) : 0;
        System.out.println(
                "flow table: "
                        + (bucketed ? "bucketed" : "keyed")
                        + " (reprocess: "
                        + flowTable
                        + ")");
        switch (mode) {
            case "state" -> state((int) a);
            case "operator" -> operator(a, (int) b);
            case "kafka" -> kafka(a, (int) b);
            case "reprocess" -> reprocess(a, (int) b);
            default -> throw new IllegalArgumentException("mode " + mode);
        }
    }

    static PacketSummary packet(long i, int flows, long millis) {
        int f = (int) (i % flows);
        return new PacketSummary(
                millis * 1_000_000L,
                1,
                0,
                0,
                0,
                0,
                4,
                IpAddress.ofIpv4(0x0a00_0000 | (f >>> 8)),
                IpAddress.ofIpv4(0xc633_6400 | (f & 0xff)),
                1024 + (f & 0x3fff),
                443,
                17,
                0,
                64,
                0,
                1200,
                1214,
                false);
    }

    private static KeyedOneInputStreamOperatorTestHarness<?, PacketSummary, FlowRecord> harness(
            AgeingSettings s) throws Exception {
        KeyedOneInputStreamOperatorTestHarness<?, PacketSummary, FlowRecord> h;
        if (s.bucketedTable()) {
            h =
                    ProcessFunctionTestHarnesses.forKeyedProcessFunction(
                            new BucketedFlowAgeingFunction(s),
                            new PacketBucketSelector(false, s.flowTableBuckets()),
                            Types.INT);
        } else {
            h =
                    ProcessFunctionTestHarnesses.forKeyedProcessFunction(
                            new FlowAgeingFunction(s),
                            new PacketFlowKeySelector(false),
                            TypeInformation.of(PacketFlowKey.class));
        }
        h.open();
        return h;
    }

    private static AgeingSettings settings() {
        AgeingSettings d = AgeingSettings.defaults();
        return d.withTimeouts(Duration.ofHours(1), Duration.ofHours(1), Duration.ofSeconds(10))
                .withMaxActiveFlows(0)
                .withFlowTable(bucketed, d.flowTableBuckets());
    }

    static void state(int flows) throws Exception {
        AtomicLong maxPause = new AtomicLong();
        AtomicLong gcs = new AtomicLong();
        watchGc(maxPause, gcs);
        MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
        var h = harness(settings());
        try {
            long before = usedAfterGc(mem);
            long t0 = System.nanoTime();
            for (long i = 0; i < flows; i++) {
                PacketSummary p = packet(i, flows, T0 + i / 1000);
                h.processElement(p, T0 + i / 1000);
            }
            long after = usedAfterGc(mem);
            double secs = (System.nanoTime() - t0) / 1e9;
            // Hold them and touch every flow once more: one more pass of updates.
            for (long i = 0; i < flows; i++) {
                h.processElement(packet(i, flows, T0 + 60_000), T0 + 60_000);
            }
            long entries = h.numKeyedStateEntries();
            int timers = h.numEventTimeTimers();
            System.out.printf(
                    Locale.ROOT,
                    "state: %d flows (%d state entries, %d timers) in %.1f s; heap %d -> %d bytes:"
                            + " %.1f bytes per flow (key, value, state-table entry, timer);"
                            + " %d GCs, longest pause %d ms%n",
                    flows,
                    entries,
                    timers,
                    secs,
                    before,
                    after,
                    (after - before) / (double) flows,
                    gcs.get(),
                    maxPause.get());
        } finally {
            h.close();
        }
    }

    static void operator(long packets, int flows) throws Exception {
        PacketSummary[] pool = new PacketSummary[Math.min(flows * 4, 4_000_000)];
        for (int i = 0; i < pool.length; i++) {
            pool[i] = packet(i, flows, T0 + i / 100);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        var h = harness(settings());
        try {
            long cpu0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            long shift = 0;
            for (long i = 0; i < packets; i++) {
                int k = (int) (i % pool.length);
                if (k == 0 && i > 0) {
                    shift += pool.length / 100 + 1;
                    h.processWatermark(T0 + shift - 10_000);
                }
                PacketSummary p = pool[k];
                h.processElement(p, p.timestampNanos() / 1_000_000L);
            }
            h.processWatermark(Long.MAX_VALUE);
            double cpu = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
            double wall = (System.nanoTime() - t0) / 1e9;
            System.out.printf(
                    Locale.ROOT,
                    "operator: %d packets over %d flows: %.2f s CPU, %.2f s wall, %.0f packets/s"
                            + " per core; %d flows out%n",
                    packets,
                    flows,
                    cpu,
                    wall,
                    packets / cpu,
                    h.extractOutputValues().size());
        } finally {
            h.close();
        }
    }

    static void kafka(long packets, int flows) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(1).build().start()) {
            // A first, small run loads the classes and warms the JIT, so the measured run shows
            // the per-packet cost rather than the MiniCluster's start.
            // A fourth argument sets a longer warm-up (the JIT compilers stay busy for seconds of
            // the measured run after 500 k packets, and after 5 M as well).
            long warmup = warmupPackets > 0 ? warmupPackets : Math.min(packets, 500_000L);
            double[] cold = kafkaRun(kafka, "packets.warmup", warmup, flows);
            double[] warm = kafkaRun(kafka, "packets.bench", packets, flows);
            System.out.printf(
                    Locale.ROOT,
                    "kafka: %d packets over %d flows through packets.raw -> ageing (parallelism 1,"
                            + " broker in the same JVM): %.2f s wall, %.2f s process CPU;"
                            + " %.0f packets/s wall, %.0f packets/s per core"
                            + " (cold first run of %d packets: %.2f s CPU, %.0f packets/s per"
                            + " core); of the measured CPU, %.2f s in the JIT compiler threads:"
                            + " %.0f packets/s per core of the rest%n",
                    packets,
                    flows,
                    warm[0],
                    warm[1],
                    packets / warm[0],
                    packets / warm[1],
                    warmup,
                    cold[1],
                    warmup / cold[1],
                    warm[2],
                    packets / (warm[1] - warm[2]));
        }
    }

    /** One job over a fresh topic: {wall seconds, process CPU seconds, JIT compile seconds}. */
    private static double[] kafkaRun(EmbeddedKafka kafka, String topic, long packets, int flows)
            throws Exception {
        kafka.createTopic(topic, 1);
        produce(kafka.bootstrapServers(), topic, packets, flows);
        Configuration c = new Configuration();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
        env.setParallelism(1);
        AgeingSettings s =
                settings()
                        .withTimeouts(
                                Duration.ofSeconds(120),
                                Duration.ofSeconds(30),
                                Duration.ofSeconds(10));
        PacketFlowTopology.attach(
                        env,
                        PacketFlowTopology.kafkaSource(
                                kafka.bootstrapServers(),
                                topic,
                                "bench-" + topic,
                                OffsetsInitializer.earliest(),
                                OffsetsInitializer.latest()),
                        s)
                .sinkTo(new DiscardingSink<>());
        var os =
                (com.sun.management.OperatingSystemMXBean)
                        ManagementFactory.getOperatingSystemMXBean();
        System.gc();
        double jit0 = compilerCpuSeconds();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        env.execute("ageing bench " + topic);
        return new double[] {
            (System.nanoTime() - t0) / 1e9,
            (os.getProcessCpuTime() - cpu0) / 1e9,
            compilerCpuSeconds() - jit0
        };
    }

    /**
     * CPU seconds of the JIT compiler threads so far (Linux: /proc/self/task/N/stat, clock ticks of
     * 10 ms), so that the report can tell compiling from processing. A new job in the same JVM
     * still keeps C1/C2 busy for seconds, however long the warm-up; a long-running job pays it
     * once.
     */
    private static double compilerCpuSeconds() throws java.io.IOException {
        double ticks = 0;
        java.nio.file.Path tasks = java.nio.file.Path.of("/proc/self/task");
        if (!java.nio.file.Files.isDirectory(tasks)) {
            return 0;
        }
        try (var dirs = java.nio.file.Files.list(tasks)) {
            for (java.nio.file.Path d : (Iterable<java.nio.file.Path>) dirs::iterator) {
                try {
                    String comm = java.nio.file.Files.readString(d.resolve("comm")).trim();
                    if (!comm.startsWith("C1 Compiler") && !comm.startsWith("C2 Compiler")) {
                        continue;
                    }
                    String stat = java.nio.file.Files.readString(d.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                } catch (java.io.IOException | RuntimeException e) {
                    // The thread ended meanwhile (compiler threads come and go).
                }
            }
        }
        return ticks / 100.0;
    }

    static void reprocess(long packets, int flows) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).build().start();
                io.flowhouse.testkit.clickhouse.LocalClickHouse ch =
                        io.flowhouse.testkit.clickhouse.LocalClickHouse.launch()) {
            String topic = "packets.bench";
            kafka.createTopic(topic, 2);
            produce(kafka.bootstrapServers(), topic, packets, flows);
            String[] args = {
                "--from",
                "earliest",
                "--to",
                "latest",
                "--topic",
                "packets.raw",
                "--kafka.bootstrap-servers",
                kafka.bootstrapServers(),
                "--flowhouse.packets.topic",
                topic,
                "--clickhouse.url",
                ch.httpUrl(),
                "--clickhouse.user",
                ch.user(),
                "--clickhouse.database",
                "bench",
                "--clickhouse.batch-size",
                "100000",
                "--job.parallelism",
                "2",
                "--flowhouse.packets.flow-table",
                flowTable
            };
            io.flowhouse.jobs.reprocess.ReprocessArgs a =
                    io.flowhouse.jobs.reprocess.ReprocessArgs.parse(args);
            var s = io.flowhouse.jobs.reprocess.ReprocessJob.settings(a.job());
            var o = s.clickhouse().tables().withPassword(ch.password());
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            io.flowhouse.jobs.reprocess.ReprocessJob.build(env, s, a, o);
            long t0 = System.nanoTime();
            env.execute("reprocess bench");
            double wall = (System.nanoTime() - t0) / 1e9;
            String rows = ch.query("SELECT count(), sum(packets) FROM bench.flows FINAL").get(0);
            System.out.println(
                    "tables: "
                            + ch.query("SELECT name FROM system.tables WHERE database = 'bench'")
                            + " parts: "
                            + ch.query(
                                    "SELECT table, sum(rows) FROM system.parts WHERE database = 'bench' AND active GROUP BY table"));
            String buckets = ch.query("SELECT count() FROM bench.flows_1m FINAL").get(0);
            long n = Long.parseLong(rows.split("\t")[0]);
            System.out.printf(
                    Locale.ROOT,
                    "reprocess: %d packets -> %s (flows, packets) in ClickHouse, %s 1-minute rollup"
                            + " rows, BATCH mode, parallelism 2: %.1f s wall, %.0f flows/s,"
                            + " %.0f packets/s%n",
                    packets,
                    rows.replace('\t', '/'),
                    buckets,
                    wall,
                    n / wall,
                    packets / wall);
        }
    }

    private static void produce(String bootstrap, String topic, long packets, int flows)
            throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(1 << 20));
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            PacketBatchCodec.Encoder enc = PacketBatchCodec.encoder(1, 1024 * 48);
            for (long i = 0; i < packets; i++) {
                PacketSummary s = packet(i, flows, T0 + i / 1000);
                enc.add(s);
                if (enc.count() == 1024 || i == packets - 1) {
                    byte[] key =
                            Integer.toString(FlowHash.partition(s.flowHash(), 64))
                                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                    acks.add(producer.send(new ProducerRecord<>(topic, key, enc.finish())));
                    if (acks.size() >= 1000) {
                        for (Future<RecordMetadata> f : acks) {
                            f.get(60, TimeUnit.SECONDS);
                        }
                        acks.clear();
                    }
                }
            }
            producer.flush();
            for (Future<RecordMetadata> f : acks) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static long usedAfterGc(MemoryMXBean mem) throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return mem.getHeapMemoryUsage().getUsed();
    }

    private static void watchGc(AtomicLong maxPause, AtomicLong count) {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc)
                    .addNotificationListener(
                            (n, hb) -> {
                                if (!n.getType()
                                        .equals(
                                                GarbageCollectionNotificationInfo
                                                        .GARBAGE_COLLECTION_NOTIFICATION)) {
                                    return;
                                }
                                var info =
                                        GarbageCollectionNotificationInfo.from(
                                                (CompositeData) n.getUserData());
                                if (info.getGcName().contains("Concurrent")
                                        || info.getGcAction().contains("System.gc")
                                        || info.getGcCause().contains("System.gc")) {
                                    return;
                                }
                                count.incrementAndGet();
                                maxPause.accumulateAndGet(
                                        info.getGcInfo().getDuration(), Math::max);
                            },
                            null,
                            null);
        }
    }
}
