// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.launcher.FlinkRestClient;
import io.flowhouse.services.ServiceKind;
import io.flowhouse.services.ServiceStatus;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.ServicesManager;
import io.flowhouse.services.clickhouse.ClickHousePassword;
import io.flowhouse.testkit.ServiceRequirement;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kill -9 of the Flink TaskManager JVM of the real standalone cluster ({@link ServicesManager}:
 * Kafka JVM, clickhouse-server, JobManager and TaskManager JVMs on free ports, state under {@code
 * target/}) while an agent JVM streams into the services' Kafka and the production job jar, sent
 * over REST, writes to ClickHouse. A replacement TaskManager is started; the job restarts from its
 * last checkpoint and {@code FROM flowhouse.flows FINAL} must hold exactly what was sent, one row
 * per row id.
 */
class TaskManagerKillITCase {

    private static final int RATE = 250;
    private static final int DATAGRAMS = RATE * 40;
    private static final int FLOWS_PER_DATAGRAM = 5;
    private static final String DATABASE = "flowhouse_tmkill";
    private static final Pattern VERTEX_STATUS = Pattern.compile("\"status\":\"([A-Z_]+)\"");

    private String flinkUrl;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void taskManagerKilledWithSigkillAndReplacedLeavesExactTotals() throws Exception {
        Path root =
                Path.of(System.getProperty("flowhouse.root.dir", ".."))
                        .toAbsolutePath()
                        .normalize();
        ServiceRequirement.requireFile(
                root.resolve("dist/kafka/target/lib"),
                "the Kafka class path (mvn package -pl dist/kafka)");
        ServiceRequirement.requireFile(
                root.resolve("dist/flink/target/lib"),
                "the Flink class path (mvn package -pl dist/flink)");
        ServicesConfig defaults = ServicesConfig.defaults(root);
        ServiceRequirement.require(
                Files.isExecutable(defaults.clickhouseBinary()),
                "clickhouse-server (apt-get install -y clickhouse-server)");
        Path jar =
                ServiceRequirement.requireFile(
                        jobJar(root), "the job jar (mvn package -pl flink-jobs)");
        Path state =
                Path.of("target", "faults-tm-kill-" + System.currentTimeMillis()).toAbsolutePath();
        int[] ports = freePorts(6);
        ServicesConfig config =
                defaults.withStateDir(state)
                        .withPorts(ports[0], ports[1], ports[2], ports[3], ports[4], ports[5])
                        .withFlinkPrometheusPorts("none");
        ServicesManager manager = new ServicesManager(config);
        FlinkRestClient rest = new FlinkRestClient(config.flinkRestUrl());
        flinkUrl = config.flinkRestUrl();
        String jobId = null;
        try {
            manager.startAll();
            jobId = submit(rest, jar, config);
            assertThat(rest.awaitState(jobId, Duration.ofSeconds(120), "RUNNING"))
                    .isEqualTo("RUNNING");
            awaitAllRunning(jobId, 0);

            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            Path yaml = state.resolve("agent.yaml");
            Files.writeString(
                    yaml,
                    String.join(
                            "\n",
                            "agent:",
                            "  id: tm-kill-it",
                            "udp:",
                            "  listen: ['127.0.0.1:" + udpPort + "']",
                            "  sockets-per-listener: 1",
                            "kafka:",
                            "  bootstrap-servers: '" + config.kafkaBootstrap() + "'",
                            "spool:",
                            "  directory: '" + state.resolve("spool") + "'",
                            "metrics:",
                            "  host: 127.0.0.1",
                            "  port: " + metricsPort,
                            ""),
                    StandardCharsets.UTF_8);
            String table = DATABASE + ".flows";
            try (AgentProcess agent =
                            new AgentProcess(yaml, state.resolve("agent.log"), metricsPort)
                                    .start();
                    SteadySender sender = new SteadySender(udpPort, FLOWS_PER_DATAGRAM)) {
                long agentPid = agent.pid();
                Thread stream = new Thread(() -> sender.send(DATAGRAMS, RATE), "tm-kill-sender");
                stream.start();
                awaitScalar(config, "SELECT count() FROM " + table, 1);
                awaitCompletedCheckpoints(jobId, 1);
                long before = completedCheckpoints(jobId);
                awaitCompletedCheckpoints(jobId, before + 1);

                OptionalLong tmPid = manager.pid(ServiceKind.FLINK_TASKMANAGER);
                assertThat(tmPid).isPresent();
                int sentAtKill = sender.sent();
                long killed = System.nanoTime();
                assertThat(manager.kill(ServiceKind.FLINK_TASKMANAGER)).isTrue();
                assertThat(ProcessHandle.of(tmPid.getAsLong()).filter(ProcessHandle::isAlive))
                        .isEmpty();
                ServiceStatus replacement = manager.start(ServiceKind.FLINK_TASKMANAGER);
                assertThat(replacement.answers()).as(replacement.toString()).isTrue();
                assertThat(replacement.pid().getAsLong()).isNotEqualTo(tmPid.getAsLong());
                awaitAllRunning(jobId, 1);
                Duration recovery = Duration.ofNanos(System.nanoTime() - killed);

                stream.join(120_000);
                assertThat(stream.isAlive()).isFalse();
                awaitScalar(
                        config, "SELECT sum(packets) FROM " + table + " FINAL", sender.packets());
                Duration exact = Duration.ofNanos(System.nanoTime() - killed);
                String[] row =
                        query(
                                        config,
                                        "SELECT count(), sum(packets), sum(bytes),"
                                                + " uniqExact(row_id) FROM "
                                                + table
                                                + " FINAL")
                                .split("\t");
                long stored = Long.parseLong(row[0]);
                long rowIds = Long.parseLong(row[3]);
                long plain = Long.parseLong(query(config, "SELECT count() FROM " + table));
                long restarts = numRestarts(jobId);
                assertThat(restarts).as("numRestarts").isGreaterThanOrEqualTo(1);
                assertThat(rest.jobState(jobId)).isEqualTo("RUNNING");
                assertThat(agent.pid()).isEqualTo(agentPid);
                assertThat(agent.metricSum("flowhouse_agent_dropped_datagrams_total")).isZero();
                assertThat(stored).as("flows").isEqualTo(sender.flows());
                assertThat(Long.parseLong(row[1])).as("packets").isEqualTo(sender.packets());
                assertThat(Long.parseLong(row[2])).as("bytes").isEqualTo(sender.bytes());
                assertThat(rowIds).as("row ids").isEqualTo(stored);

                String rawTotals = lastRoundAndRollups(config, sender, table);
                drainedStopWritesTheHour(rest, jobId, state, config, sender, rawTotals);
                System.out.printf(
                        java.util.Locale.ROOT,
                        "TM kill: sent %d datagrams (%d before the kill), %d flows, %d packets,"
                                + " %d bytes; restarts %d; all tasks running %.1f s after the"
                                + " kill, exact totals %.1f s after; %d rows before FINAL%n",
                        sender.sent(),
                        sentAtKill,
                        stored,
                        sender.packets(),
                        sender.bytes(),
                        restarts,
                        recovery.toMillis() / 1000.0,
                        exact.toMillis() / 1000.0,
                        plain);
                FaultSupport.row(
                        "e2e: Flink TaskManager kill -9 + new TM (+ rollups)",
                        sender.sent(),
                        sender.sent(), // every flow in flows FINAL and flows_1m
                        0,
                        0,
                        stored - rowIds,
                        recovery,
                        "ClickHouse FINAL, flows_1m; flows_1h and flows_1m after a drained stop ("
                                + (plain - stored)
                                + " replayed rows pre-merge)");
            }
        } finally {
            if (jobId != null) {
                try {
                    if (!FlinkRestClient.isTerminal(rest.jobState(jobId))) {
                        rest.cancel(jobId);
                    }
                } catch (IOException e) {
                    // The cluster is stopped below anyway.
                }
            }
            manager.stopAll();
        }
    }

    /**
     * The rollups the killed TaskManager was computing. A last round after a quiet spell longer
     * than the idleness, received once the next minute has begun: its flows (dated 2023, clamped 5
     * minutes back) are late for windows that already fired, and re-fire them. Every 1-minute
     * bucket then adds up to the raw table. flows_1h is checked after a drained stop ({@link
     * #drainedStopWritesTheHour}).
     *
     * @return the raw table's count, packets and bytes (tab-separated)
     */
    private String lastRoundAndRollups(ServicesConfig config, SteadySender sender, String table)
            throws InterruptedException {
        long minute = 60_000L;
        long next = (System.currentTimeMillis() / minute + 1) * minute;
        Thread.sleep(next - System.currentTimeMillis() + 8_000);
        sender.send(RATE, RATE);
        awaitScalar(config, "SELECT sum(packets) FROM " + table + " FINAL", sender.packets());
        String rawTotals =
                query(config, "SELECT count(), sum(packets), sum(bytes) FROM " + table + " FINAL");
        assertThat(rawTotals)
                .isEqualTo(sender.flows() + "\t" + sender.packets() + "\t" + sender.bytes());
        assertRollup(config, "flows_1m", sender.packets(), rawTotals);
        return rawTotals;
    }

    /**
     * The hour of the traffic closes only when the receive time passes its end (up to an hour
     * away): stopping the restored job with a drained savepoint sends the final watermark, so every
     * 1-hour bucket (derived from the 1-minute windows' deltas, across the restore) is written
     * before the job ends, and must add up to the raw table, as the 1-minute buckets still do.
     */
    private void drainedStopWritesTheHour(
            FlinkRestClient rest,
            String jobId,
            Path state,
            ServicesConfig config,
            SteadySender sender,
            String rawTotals)
            throws IOException, InterruptedException {
        // Longer than decode.idleness: the raw partitions are idle at the stop, as a quiet
        // stream's are (the source task then drops its own final watermark).
        Thread.sleep(6_000);
        String savepoint =
                rest.stopWithSavepoint(
                        jobId,
                        state.resolve("savepoints").toUri().toString(),
                        Duration.ofSeconds(180),
                        true);
        assertThat(rest.awaitState(jobId, Duration.ofSeconds(60), "FINISHED"))
                .as("job state after the drained stop to " + savepoint)
                .isEqualTo("FINISHED");
        System.out.println(
                "TM kill, after the drained stop: flows_1h "
                        + query(
                                config,
                                "SELECT window_start, kind, sum(flows), sum(packets) FROM "
                                        + DATABASE
                                        + ".flows_1h FINAL GROUP BY window_start, kind ORDER BY"
                                        + " window_start, kind FORMAT TSV"));
        assertRollup(config, "flows_1h", sender.packets(), rawTotals);
        FaultSupport.assertHourExact(sql -> rows(query(config, sql)), DATABASE);
        assertRollup(config, "flows_1m", sender.packets(), rawTotals);
    }

    private static List<List<String>> rows(String tsv) {
        List<List<String>> rows = new ArrayList<>();
        for (String line : tsv.isEmpty() ? new String[0] : tsv.split("\n")) {
            rows.add(List.of(line.split("\t", -1)));
        }
        return rows;
    }

    /** Waits for a rollup's packets, then checks its flows, packets and bytes (direction 0). */
    private void assertRollup(ServicesConfig config, String rollup, long packets, String raw)
            throws InterruptedException {
        String where = " FINAL WHERE kind = 'interface' AND direction = 0";
        awaitScalar(config, "SELECT sum(packets) FROM " + DATABASE + "." + rollup + where, packets);
        assertThat(
                        query(
                                config,
                                "SELECT sum(flows), sum(packets), sum(bytes) FROM "
                                        + DATABASE
                                        + "."
                                        + rollup
                                        + where))
                .as(rollup)
                .isEqualTo(raw);
    }

    private static String submit(FlinkRestClient rest, Path jar, ServicesConfig config)
            throws IOException, InterruptedException {
        String jarId = rest.uploadJar(jar);
        List<String> args =
                List.of(
                        "--kafka.bootstrap-servers",
                        config.kafkaBootstrap(),
                        "--kafka.group-id",
                        DATABASE,
                        "--kafka.start",
                        "earliest",
                        "--job.parallelism",
                        "1",
                        "--job.checkpoint-interval",
                        "2 s",
                        // Rollup windows close as soon as the receive time passes them.
                        "--flowhouse.rollup.max-out-of-orderness",
                        "0 s",
                        "--decode.idleness",
                        "5 s",
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
                        "30",
                        "--restart-strategy.fixed-delay.delay",
                        "2 s");
        return rest.runJar(
                jarId,
                new FlinkRestClient.RunRequest(
                        Optional.of("io.flowhouse.jobs.FlowPipelineJob"),
                        args,
                        Optional.empty(),
                        Optional.empty(),
                        false));
    }

    /**
     * The newest {@code flink-jobs/target/flink-jobs-*-job.jar}, as {@code job submit} finds it.
     */
    private static Path jobJar(Path root) throws IOException {
        Path target = root.resolve("flink-jobs/target");
        List<Path> jars = new ArrayList<>();
        if (Files.isDirectory(target)) {
            try (DirectoryStream<Path> s =
                    Files.newDirectoryStream(target, "flink-jobs-*-job.jar")) {
                s.forEach(jars::add);
            }
        }
        jars.sort((a, b) -> Long.compare(b.toFile().lastModified(), a.toFile().lastModified()));
        return jars.isEmpty() ? target.resolve("flink-jobs-0.1.0-SNAPSHOT-job.jar") : jars.get(0);
    }

    /**
     * Waits until the job runs every unfinished task and has restarted at least {@code restarts}
     * times.
     */
    private void awaitAllRunning(String jobId, long restarts) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            last = get(flinkUrl + "/jobs/" + jobId);
            if (last != null && last.contains("\"state\":\"RUNNING\"")) {
                Matcher m = VERTEX_STATUS.matcher(last);
                int running = 0;
                boolean all = true;
                while (m.find()) {
                    // A bounded source's task may have finished; every other task must run.
                    running += "RUNNING".equals(m.group(1)) ? 1 : 0;
                    all &= "RUNNING".equals(m.group(1)) || "FINISHED".equals(m.group(1));
                }
                if (running > 0 && all && numRestarts(jobId) >= restarts) {
                    return;
                }
            }
            Thread.sleep(250);
        }
        int counts = last == null ? -1 : last.indexOf("\"status-counts\"");
        throw new AssertionError(
                "job "
                        + jobId
                        + " did not run all its tasks after "
                        + restarts
                        + " restart(s): "
                        + (counts < 0 ? last : last.substring(counts, last.indexOf('}', counts))));
    }

    private long numRestarts(String jobId) {
        String m = get(flinkUrl + "/jobs/" + jobId + "/metrics?get=numRestarts");
        Matcher v = Pattern.compile("\"value\":\"([0-9]+)\"").matcher(m == null ? "" : m);
        return v.find() ? Long.parseLong(v.group(1)) : -1;
    }

    private long completedCheckpoints(String jobId) {
        String c = get(flinkUrl + "/jobs/" + jobId + "/checkpoints");
        Matcher v = Pattern.compile("\"completed\":([0-9]+)").matcher(c == null ? "" : c);
        return v.find() ? Long.parseLong(v.group(1)) : 0;
    }

    private void awaitCompletedCheckpoints(String jobId, long n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline && completedCheckpoints(jobId) < n) {
            Thread.sleep(250);
        }
        assertThat(completedCheckpoints(jobId)).isGreaterThanOrEqualTo(n);
    }

    private String get(String url) {
        return get(url, Map.of());
    }

    private String get(String url, Map<String, String> headers) {
        try {
            HttpRequest.Builder b =
                    HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
            headers.forEach(b::header);
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private String query(ServicesConfig config, String sql) {
        String body =
                get(
                        config.clickhouseUrl()
                                + "/?query="
                                + URLEncoder.encode(sql, StandardCharsets.UTF_8),
                        ClickHousePassword.headersFor(config.clickhousePasswordFile()));
        if (body == null) {
            throw new IllegalStateException("ClickHouse did not answer " + sql);
        }
        return body.trim();
    }

    /** Polls until the query's single number reaches {@code atLeast}; bounded in time. */
    private void awaitScalar(ServicesConfig config, String sql, long atLeast)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                String v = query(config, sql);
                if (!v.isEmpty() && Long.parseLong(v) >= atLeast) {
                    return;
                }
            } catch (RuntimeException e) {
                // Table not there yet: poll again.
            }
            Thread.sleep(500);
        }
    }

    private static int[] freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
    }
}
