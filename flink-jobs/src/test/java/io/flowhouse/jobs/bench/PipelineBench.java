// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.bench;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.FlowPipelineJob;
import io.flowhouse.jobs.KafkaTopics;
import io.flowhouse.jobs.PipelineConnectors;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.tables.JobTables;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * Throughput harness (not a test): the test captures, replayed as {@code loops} x 8 distinct
 * exporters, are produced to a real in-process Kafka broker; then the production topology runs on a
 * local MiniCluster, bounded at the topic's end, once into a discarding sink (decode only) and once
 * into a real local ClickHouse (end to end, checked with the exact {@code FINAL} query). Prints
 * flows/s of each, measured from job submission to job end (so it includes job start-up).
 *
 * <pre>
 * mvn -B -ntp -o -Pfast -pl flink-jobs test-compile
 * mvn -B -ntp -o -q -pl flink-jobs dependency:build-classpath -Dmdep.outputFile=/tmp/jobs.cp \
 *     -Dmdep.includeScope=test
 * cd flink-jobs &amp;&amp; java -Xmx2g -cp target/test-classes:target/classes:$(cat /tmp/jobs.cp) \
 *     io.flowhouse.jobs.bench.PipelineBench 40 2
 * </pre>
 */
public final class PipelineBench {

    private static final String[] CAPTURES = {
        "netflow-v5-softflowd.pcap",
        "netflow-v5-nfreplay.pcap",
        "netflow-v9-softflowd.pcap",
        "netflow-v9-pmacct.pcap",
        "netflow-v9-nfreplay.pcap",
        "ipfix-softflowd.pcap",
        "ipfix-pmacct.pcap",
        "ipfix-biflow-softflowd.pcap",
    };

    private PipelineBench() {}

    public static void main(String[] args) throws Exception {
        int loops = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        int parallelism = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        String modes = args.length > 2 ? args[2] : "decode,clickhouse,rollups";
        // Optional: buckets of the rollups' local pre-aggregation (0 = off), for A/B runs.
        String combineBuckets = args.length > 3 && !args[3].equals("-") ? args[3] : null;
        // Optional: a directory with country.mmdb and asn.mmdb, or an enrichment rules file
        // (*.yaml, e.g. "exporters: []" for enrichment without GeoIP databases): the rollups run
        // with enrichment.
        String geo = args.length > 4 && !args[4].equals("-") ? args[4] : null;
        // Optional: "packets" turns the packets path on (an empty packets topic, as in a
        // deployment without captures): the rollups then take the packet flows beside decode's.
        boolean packets = args.length > 5 && args[5].equals("packets");
        if (loops < 1 || loops > 1000) {
            throw new IllegalArgumentException("loops " + loops + " (expected: 1..1000)");
        }
        if (modes.equals("topic")) {
            runTopicOnly(loops, parallelism);
            return;
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(4).build().start();
                LocalClickHouse ch = LocalClickHouse.launch()) {
            List<RawDatagram> all = new ArrayList<>();
            int n = 0;
            for (int loop = 0; loop < loops; loop++) {
                for (String c : CAPTURES) {
                    all.addAll(
                            Captures.datagrams(
                                    c,
                                    IpAddress.ofIpv4(0x0a00_0000 | n), // 10.0.0.0/8
                                    20_000 + (n % 40_000)));
                    n++;
                }
            }
            // Decode and raw flows only, as before the rollups and the packets path came.
            PipelineSettings s = settings(kafka.bootstrapServers(), ch, parallelism, DECODE_ONLY);
            kafka.createTopic(s.rawTopic(), 4);
            long t0 = System.nanoTime();
            Captures.produce(kafka.bootstrapServers(), s.rawTopic(), all);
            double produceSec = (System.nanoTime() - t0) / 1e9;
            System.out.printf(
                    Locale.ROOT,
                    "produced %d datagrams of %d exporters in %.1f s%n",
                    all.size(),
                    n,
                    produceSec);

            long flows = expectedFlows(loops);
            if (modes.contains("rollups")) {
                runRollups(kafka, ch, parallelism, flows, combineBuckets, geo, packets);
            }
            if (!modes.contains("decode")) {
                return;
            }
            double cpu0 = jvmCpuSeconds();
            double decodeSec = run(s, new DiscardingSink<>(), null);
            double decodeCpu = jvmCpuSeconds() - cpu0;
            System.out.printf(
                    Locale.ROOT,
                    "decode only   p=%d: %d flows in %.1f s = %,.0f flows/s; JVM (Flink + broker)"
                            + " CPU %.1f s = %,.0f flows per CPU-second%n",
                    parallelism,
                    flows,
                    decodeSec,
                    flows / decodeSec,
                    decodeCpu,
                    flows / decodeCpu);

            JobTables o = s.clickhouse().tables().withPassword(ch.password());
            PipelineSettings s2 = settings(kafka.bootstrapServers(), ch, parallelism, DECODE_ONLY);
            cpu0 = jvmCpuSeconds();
            double ch0 = processCpuSeconds(ch.pid().orElse(-1L));
            double e2eSec = run(s2, o.flows(), o);
            double e2eCpu = jvmCpuSeconds() - cpu0;
            double chCpu = processCpuSeconds(ch.pid().orElse(-1L)) - ch0;
            String got =
                    ch.queryScalar(
                            "SELECT count() FROM " + s.clickhouse().database() + ".flows FINAL");
            System.out.printf(
                    Locale.ROOT,
                    "into clickhouse p=%d: %d flows in %.1f s = %,.0f flows/s (rows FINAL: %s,"
                            + " expected %d); CPU JVM %.1f s + clickhouse-server %.1f s = %,.0f"
                            + " flows per CPU-second%n",
                    parallelism,
                    flows,
                    e2eSec,
                    flows / e2eSec,
                    got,
                    flows,
                    e2eCpu,
                    chCpu,
                    flows / (e2eCpu + chCpu));
            System.out.printf(
                    Locale.ROOT,
                    "load average during the run: %s%n",
                    Files.readString(Path.of("/proc/loadavg")).trim());
        }
    }

    /**
     * The production topology of the streaming job: decode, raw flows into ClickHouse and the
     * rollups ({@code flows_1m}, {@code flows_1h}) into ClickHouse; checks that the 1-minute
     * interface rows of one direction count every flow.
     */
    private static void runRollups(
            EmbeddedKafka kafka,
            LocalClickHouse ch,
            int parallelism,
            long flows,
            String combineBuckets,
            String geo,
            boolean packets)
            throws Exception {
        List<String> extra =
                new ArrayList<>(List.of("--flowhouse.packets.enabled", Boolean.toString(packets)));
        if (combineBuckets != null) {
            extra.addAll(List.of("--flowhouse.rollup.combine-buckets", combineBuckets));
        }
        if (geo != null && geo.endsWith(".yaml")) {
            extra.addAll(List.of("--enrich.rules-file", geo));
        } else if (geo != null) {
            extra.addAll(
                    List.of(
                            "--enrich.geoip.country-database",
                            Path.of(geo, "country.mmdb").toString(),
                            "--enrich.geoip.asn-database",
                            Path.of(geo, "asn.mmdb").toString()));
        }
        PipelineSettings s =
                settings(kafka.bootstrapServers(), ch, parallelism, extra.toArray(String[]::new));
        JobTables o = s.clickhouse().tables().withPassword(ch.password());
        String db = s.clickhouse().database();
        double cpu0 = jvmCpuSeconds();
        double ch0 = processCpuSeconds(ch.pid().orElse(-1L));
        // Files, as on a cluster: memory checkpoint storage refuses the rollup windows' state.
        Configuration c = new Configuration();
        c.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                Files.createTempDirectory("fj-bench-cp").toUri().toString());
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(s.parallelism(), c);
        FlowPipelineJob.configure(env, s);
        KafkaTopics.ensure(s);
        FlowPipelineJob.build(
                env, PipelineConnectors.sources(s), PipelineConnectors.sinks(s, o), s);
        long t0 = System.nanoTime();
        env.execute("bench-rollups");
        double sec = (System.nanoTime() - t0) / 1e9;
        double cpu = jvmCpuSeconds() - cpu0;
        double chCpu = processCpuSeconds(ch.pid().orElse(-1L)) - ch0;
        String got =
                ch.queryScalar(
                        "SELECT sum(flows) FROM "
                                + db
                                + ".flows_1m FINAL WHERE kind = 'interface' AND direction = 0");
        String got1h =
                ch.queryScalar(
                        "SELECT sum(flows) FROM "
                                + db
                                + ".flows_1h FINAL WHERE kind = 'interface' AND direction = 0");
        System.out.printf(
                Locale.ROOT,
                "with rollups  p=%d combine-buckets=%s enrich=%s packets=%s: %d flows in %.1f s = %,.0f flows/s (1m interface flows: %s,"
                        + " 1h: %s, expected %d); CPU JVM %.1f s + clickhouse-server %.1f s ="
                        + " %,.0f flows per JVM CPU-second%n",
                parallelism,
                combineBuckets == null ? "default" : combineBuckets,
                geo == null ? "off" : "on",
                packets ? "on" : "off",
                flows,
                sec,
                flows / sec,
                got,
                got1h,
                flows,
                cpu,
                chCpu,
                flows / cpu);
        if (geo != null) {
            System.out.printf(
                    Locale.ROOT,
                    "  context 1m interface flows: %s; load %s%n",
                    ch.queryScalar(
                            "SELECT sum(flows) FROM "
                                    + db
                                    + ".flows_context_1m FINAL WHERE kind = 'interface'"
                                    + " AND direction = 0"),
                    Files.readString(Path.of("/proc/loadavg")).trim());
        }
    }

    /** CPU time of this JVM (Flink MiniCluster, the in-process broker, the producer). */
    private static double jvmCpuSeconds() {
        return ((com.sun.management.OperatingSystemMXBean)
                                ManagementFactory.getOperatingSystemMXBean())
                        .getProcessCpuTime()
                / 1e9;
    }

    /** utime + stime of a process from /proc, or 0 when unknown. */
    private static double processCpuSeconds(long pid) {
        if (pid <= 0) {
            return 0;
        }
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // Fields 14 and 15 of stat (utime, stime) in clock ticks of 1/100 s.
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * The topic-only job ({@code clickhouse.enabled=false}, rollups off): decode into the
     * decoded-flows topic, exactly once, the production sinks as they are; no ClickHouse. CPU of
     * this JVM: Flink and the in-process broker together (a profile tells their threads apart).
     */
    private static void runTopicOnly(int loops, int parallelism) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(4).build().start()) {
            List<RawDatagram> all = new ArrayList<>();
            int n = 0;
            for (int loop = 0; loop < loops; loop++) {
                for (String c : CAPTURES) {
                    all.addAll(
                            Captures.datagrams(
                                    c, IpAddress.ofIpv4(0x0a00_0000 | n), 20_000 + (n % 40_000)));
                    n++;
                }
            }
            PipelineSettings s =
                    PipelineSettings.from(
                            JobArgs.resolve(
                                    Map.of(),
                                    "--kafka.bootstrap-servers",
                                    kafka.bootstrapServers(),
                                    "--kafka.topic.raw",
                                    "flows.raw.bench",
                                    "--kafka.topic.rejected",
                                    "flows.rejected.bench",
                                    "--kafka.topic.templates",
                                    "flows.templates.bench",
                                    "--kafka.group-id",
                                    "bench-" + System.nanoTime(),
                                    "--kafka.start",
                                    "earliest",
                                    "--kafka.stop",
                                    "latest",
                                    "--job.parallelism",
                                    Integer.toString(parallelism),
                                    "--job.checkpoint-interval",
                                    "5 s",
                                    "--flowhouse.packets.enabled",
                                    "false",
                                    "--rollup.enabled",
                                    "false",
                                    "--clickhouse.enabled",
                                    "false",
                                    "--flows-topic.enabled",
                                    "true",
                                    "--flows-topic.topic",
                                    "flows.decoded.bench",
                                    "--flows-topic.partitions",
                                    "4"),
                            Map.of());
            kafka.createTopic(s.rawTopic(), 4);
            Captures.produce(kafka.bootstrapServers(), s.rawTopic(), all);
            long flows = expectedFlows(loops);
            double cpu0 = jvmCpuSeconds();
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.createLocalEnvironment(
                            s.parallelism(), new Configuration());
            FlowPipelineJob.configure(env, s);
            KafkaTopics.ensure(s);
            FlowPipelineJob.build(
                    env, PipelineConnectors.sources(s), PipelineConnectors.sinks(s), s);
            long t0 = System.nanoTime();
            env.execute("bench-topic-only");
            double sec = (System.nanoTime() - t0) / 1e9;
            double cpu = jvmCpuSeconds() - cpu0;
            System.out.printf(
                    Locale.ROOT,
                    "topic only p=%d: %d flows in %.1f s = %,.0f flows/s; JVM (Flink + broker) CPU"
                            + " %.1f s = %,.0f flows per CPU-second; load %s%n",
                    parallelism,
                    flows,
                    sec,
                    flows / sec,
                    cpu,
                    flows / cpu,
                    Files.readString(Path.of("/proc/loadavg")).trim());
        }
    }

    private static long expectedFlows(int loops) {
        return loops * (2279L * 2 + 2991 + 2995 + 2991 + 2991 + 2995 + 1673);
    }

    /** Settings that leave the packets path and the rollups out. */
    private static final String[] DECODE_ONLY = {
        "--flowhouse.packets.enabled", "false", "--flowhouse.rollup.enabled", "false"
    };

    private static PipelineSettings settings(
            String bootstrap, LocalClickHouse ch, int p, String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers", bootstrap,
                                "--kafka.topic.raw", "flows.raw.bench",
                                "--kafka.topic.rejected", "flows.rejected.bench",
                                "--kafka.topic.templates", "flows.templates.bench",
                                "--kafka.group-id", "bench-" + System.nanoTime(),
                                "--kafka.start", "earliest",
                                "--kafka.stop", "latest",
                                "--job.parallelism", Integer.toString(p),
                                "--job.checkpoint-interval", "5 s",
                                "--clickhouse.url", ch.httpUrl(),
                                "--clickhouse.database", "flowhouse_bench",
                                "--clickhouse.user", ch.user(),
                                "--clickhouse.batch-size", "100000",
                                "--clickhouse.flush-interval", "1 s"));
        args.addAll(List.of(extra));
        return PipelineSettings.from(
                JobArgs.resolve(Map.of(), args.toArray(String[]::new)), Map.of());
    }

    private static double run(PipelineSettings s, Sink<FlowRecord> flows, JobTables statsOptions)
            throws Exception {
        Configuration c = new Configuration();
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(s.parallelism(), c);
        FlowPipelineJob.configure(env, s);
        KafkaTopics.ensure(s);
        FlowPipelineJob.build(
                env,
                PipelineConnectors.sources(s),
                PipelineConnectors.sinks(s)
                        .withFlows(flows)
                        .withStats(statsOptions == null ? null : statsOptions.exporterStats()),
                s);
        long t0 = System.nanoTime();
        env.execute("bench");
        return (System.nanoTime() - t0) / 1e9;
    }
}
