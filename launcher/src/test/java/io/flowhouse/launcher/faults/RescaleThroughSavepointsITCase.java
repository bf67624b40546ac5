// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.launcher.FlowhouseMain;
import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.ServicesManager;
import io.flowhouse.testkit.kafka.TopicReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The job rescaled 1 -> 2 -> 4 -> 2 through savepoints with the launcher's own commands ({@code job
 * cancel ID --savepoint DIR}, {@code job submit --from-savepoint PATH --parallelism P}) on the real
 * standalone cluster ({@link ServicesManager}: Kafka JVM, clickhouse-server, JobManager and a
 * TaskManager with 4 slots, on free ports), while {@link MixedExporters} (v5, v9 and IPFIX with
 * IPv4 and IPv6 templates, templates only in every tenth message) keep sending through an agent
 * JVM. The templates live in the decode operator's keyed state: after every restore the key groups
 * move to other subtasks, and no datagram may wait for a template (held) or be dead-lettered. Every
 * table must then hold exactly what was sent: {@code flows} (FINAL and before merges), {@code
 * flows_1m} per exporter and closed window, {@code exporter_stats}.
 */
class RescaleThroughSavepointsITCase {

    private static final int RATE = 200;
    private static final String DATABASE = "flowhouse_rescale";
    private static final int[] STEPS = {2, 4, 2};
    private static final Pattern SUBMITTED = Pattern.compile("as job ([0-9a-f]{32})");
    private static final Pattern SAVEPOINT = Pattern.compile("with savepoint (\\S+)");

    @Test
    @Timeout(value = 14, unit = TimeUnit.MINUTES)
    void rescaledOneTwoFourTwoThroughSavepointsKeepsTemplatesAndExactTotals() throws Exception {
        Path root = ClusterProbe.root();
        Path jar = ClusterProbe.requireCluster(root);
        Path state =
                Path.of("target", "faults-rescale-" + System.currentTimeMillis()).toAbsolutePath();
        int[] ports = ClusterProbe.freePorts(6);
        Map<String, String> flags = new LinkedHashMap<>();
        flags.put("kafka-port", Integer.toString(ports[0]));
        flags.put("kafka-controller-port", Integer.toString(ports[1]));
        flags.put("clickhouse-http-port", Integer.toString(ports[2]));
        flags.put("clickhouse-native-port", Integer.toString(ports[3]));
        flags.put("flink-rest-port", Integer.toString(ports[4]));
        flags.put("flink-rpc-port", Integer.toString(ports[5]));
        flags.put("flink-slots", "4");
        flags.put("kafka-partitions", "4");
        flags.put("flink-prometheus-ports", "none");
        ServicesConfig config = ServicesConfig.resolve(root, state, Map.of(), flags, false);
        config = config.withStateDir(state);
        ServicesManager manager = new ServicesManager(config);
        ClusterProbe probe = new ClusterProbe(config);
        FlowhouseMain launcher =
                new FlowhouseMain(
                        new FlowhouseHome(root, state),
                        Map.of(),
                        new ByteArrayInputStream(new byte[0]));
        String rest = config.flinkRestUrl();
        Path savepoints = state.resolve("savepoints");
        String jobId = null;
        AtomicBoolean sending = new AtomicBoolean(true);
        try {
            manager.startAll();
            List<String> jobArgs = jobArgs(config);
            jobId = submit(launcher, rest, jar, 1, null, jobArgs);
            probe.awaitAllRunning(jobId, 0, Duration.ofSeconds(180));
            assertParallelism(probe, jobId, 1);

            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            Path yaml =
                    ClusterProbe.agentYaml(
                            state, "rescale-it", config.kafkaBootstrap(), udpPort, metricsPort);
            try (AgentProcess agent =
                            new AgentProcess(yaml, state.resolve("agent.log"), metricsPort)
                                    .start();
                    MixedExporters sender = new MixedExporters(udpPort)) {
                Thread stream = ClusterProbe.stream(sender, sending, RATE);
                String table = DATABASE + ".flows";
                probe.awaitScalar("SELECT count() FROM " + table, 1, Duration.ofSeconds(120));

                Map<String, Long> counters = new LinkedHashMap<>();
                List<String> history = new ArrayList<>();
                List<Double> pauses = new ArrayList<>();
                int parallelism = 1;
                for (int next : STEPS) {
                    runPhase(probe, jobId, parallelism, counters, history);
                    long stopped = System.nanoTime();
                    String savepoint = cancelWithSavepoint(launcher, rest, jobId, savepoints);
                    jobId = submit(launcher, rest, jar, next, savepoint, jobArgs);
                    probe.awaitAllRunning(jobId, 0, Duration.ofSeconds(180));
                    pauses.add((System.nanoTime() - stopped) / 1e9);
                    assertParallelism(probe, jobId, next);
                    parallelism = next;
                }
                runPhase(probe, jobId, parallelism, counters, history);

                // The rollup windows close once the receive-time watermark passes them: stop,
                // wait for the next minute, then one more short round closes the last windows.
                long lastMinute = ClusterProbe.endStream(stream, sending, sender, RATE);

                assertThat(agent.metricSum("flowhouse_agent_dropped_datagrams_total"))
                        .as("agent drops")
                        .isZero();
                ClusterProbe.Totals totals = probe.assertTablesExact(DATABASE, sender, lastMinute);
                long[] sent = totals.sent();
                long plain = totals.plainRows();
                long statsDatagrams = totals.statsDatagrams();

                // Nothing dead-lettered: the job writes every datagram it cannot decode to
                // flows.rejected (a missing template after its hold time among them).
                List<ConsumerRecord<byte[], byte[]>> rejected =
                        TopicReader.readAll(
                                config.kafkaBootstrap(),
                                "flows.rejected",
                                Duration.ofSeconds(5),
                                got -> false);
                assertThat(rejected).as("flows.rejected").isEmpty();

                Map<String, Long> last =
                        probe.awaitDecodeCounters(jobId, 1, Duration.ofSeconds(60));
                history.add("final p=" + parallelism + " " + last);
                last.forEach((k, v) -> counters.merge(k, v, Long::max));
                assertThat(counters.getOrDefault("held_datagrams_total", 0L))
                        .as("datagrams held for a template, any job: " + history)
                        .isZero();
                assertThat(counters.getOrDefault("held_datagrams_evicted_total", 0L))
                        .as("held datagrams evicted")
                        .isZero();
                assertThat(counters.getOrDefault("rejected_datagrams_total", 0L))
                        .as("datagrams rejected by the decoder")
                        .isZero();
                // The hour of the traffic, its buckets restored and rescaled through every
                // savepoint, closes with a drained stop after the last rescale.
                probe.drainedStopThenHourExact(jobId, DATABASE, savepoints.resolve("final"));

                System.out.printf(
                        Locale.ROOT,
                        "RESCALE 1->2->4->2: sent %d datagrams, %d flows %d packets %d bytes;"
                                + " %d rows before merges; exporter_stats %d datagrams; pauses %s s;"
                                + " decode counters %s%n",
                        sender.sent(),
                        sent[0],
                        sent[1],
                        sent[2],
                        plain,
                        statsDatagrams,
                        pauses,
                        history);
                FaultSupport.row(
                        "e2e: rescale 1->2->4->2 via savepoints (v9/IPFIX)",
                        sender.sent(),
                        statsDatagrams,
                        0,
                        sender.sent() - statsDatagrams,
                        plain - sent[0],
                        Duration.ofMillis(
                                (long)
                                        (pauses.stream().mapToDouble(d -> d).max().orElse(0)
                                                * 1000)),
                        "flows FINAL + pre-merge, flows_1m, exporter_stats, flows.rejected, held 0;"
                                + " flows_1h after a drained stop");
            }
        } finally {
            sending.set(false);
            if (jobId != null) {
                launcher.run(
                        List.of("job", "cancel", jobId, "--rest", rest),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            }
            manager.stopAll();
        }
    }

    /**
     * Lets the job run until it has completed a checkpoint of its own and the REST API shows its
     * decode counters past the first seconds after the restore (when a lost template would have
     * held datagrams); keeps the highest of each counter.
     */
    private static void runPhase(
            ClusterProbe probe,
            String jobId,
            int parallelism,
            Map<String, Long> counters,
            List<String> history)
            throws InterruptedException {
        probe.awaitCompletedCheckpoints(jobId, 2, Duration.ofSeconds(120));
        Map<String, Long> c = probe.awaitDecodeCounters(jobId, 3L * RATE, Duration.ofSeconds(90));
        history.add("p=" + parallelism + " " + c);
        c.forEach((k, v) -> counters.merge(k, v, Long::max));
    }

    private static void assertParallelism(ClusterProbe probe, String jobId, int parallelism) {
        List<ClusterProbe.Vertex> vertices = probe.vertices(jobId);
        assertThat(vertices)
                .as("the decode vertex at parallelism " + parallelism)
                .anySatisfy(
                        v -> {
                            assertThat(v.name()).contains("decode");
                            assertThat(v.parallelism()).isEqualTo(parallelism);
                        });
    }

    /** {@code ./flowhouse job submit}: returns the job id it printed. */
    private static String submit(
            FlowhouseMain launcher,
            String rest,
            Path jar,
            int parallelism,
            String savepoint,
            List<String> jobArgs) {
        List<String> args = new ArrayList<>();
        args.addAll(
                List.of(
                        "job",
                        "submit",
                        "--rest",
                        rest,
                        "--jar",
                        jar.toString(),
                        "--parallelism",
                        Integer.toString(parallelism),
                        "--timeout",
                        "180"));
        if (savepoint != null) {
            args.addAll(List.of("--from-savepoint", savepoint));
        }
        args.add("--");
        args.addAll(jobArgs);
        String out = run(launcher, args);
        Matcher m = SUBMITTED.matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return m.group(1);
    }

    /** {@code ./flowhouse job cancel ID --savepoint DIR}: returns the savepoint it printed. */
    private static String cancelWithSavepoint(
            FlowhouseMain launcher, String rest, String jobId, Path dir) {
        String out =
                run(
                        launcher,
                        List.of(
                                "job",
                                "cancel",
                                jobId,
                                "--savepoint",
                                dir.toString(),
                                "--rest",
                                rest));
        Matcher m = SAVEPOINT.matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return m.group(1);
    }

    private static String run(FlowhouseMain launcher, List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                launcher.run(
                        args,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        System.out.print("flowhouse " + String.join(" ", args) + "\n" + text);
        assertThat(code).as(text).isZero();
        return text;
    }

    /** The job's flags; its parallelism is left to {@code submit --parallelism}. */
    private static List<String> jobArgs(ServicesConfig config) {
        return List.of(
                "--kafka.bootstrap-servers",
                config.kafkaBootstrap(),
                "--kafka.group-id",
                DATABASE,
                "--kafka.start",
                "earliest",
                "--job.checkpoint-interval",
                "2 s",
                "--decode.idleness",
                "5 s",
                // Windows close as soon as the receive time passes them (the test waits for them).
                "--flowhouse.rollup.max-out-of-orderness",
                "0 s",
                "--clickhouse.url",
                config.clickhouseUrl(),
                "--clickhouse.password-file",
                config.clickhousePasswordFile().toString(),
                "--clickhouse.database",
                DATABASE,
                "--clickhouse.batch-size",
                "5000",
                "--clickhouse.flush-interval",
                "500 ms",
                "--restart-strategy.type",
                "fixed-delay",
                "--restart-strategy.fixed-delay.attempts",
                "10",
                "--restart-strategy.fixed-delay.delay",
                "2 s");
    }
}
