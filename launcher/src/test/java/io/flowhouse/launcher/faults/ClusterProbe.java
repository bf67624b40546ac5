// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowhouse.launcher.FlinkRestClient;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.clickhouse.ClickHousePassword;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the cluster fault tests read from a standalone cluster that {@link
 * io.flowhouse.services.ServicesManager} runs: the job's vertices, restarts, checkpoints and decode
 * counters over Flink's REST API, and ClickHouse over HTTP. Every wait is bounded.
 */
final class ClusterProbe {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ServicesConfig config;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    ClusterProbe(ServicesConfig config) {
        this.config = config;
    }

    /** The job's vertices by name: their parallelism, and the status of every one. */
    record Vertex(String id, String name, int parallelism, String status) {}

    List<Vertex> vertices(String jobId) {
        JsonNode job = getJson(config.flinkRestUrl() + "/jobs/" + jobId);
        List<Vertex> vertices = new ArrayList<>();
        if (job != null) {
            for (JsonNode v : job.path("vertices")) {
                vertices.add(
                        new Vertex(
                                v.path("id").asText(),
                                v.path("name").asText(),
                                v.path("parallelism").asInt(),
                                v.path("status").asText()));
            }
        }
        return vertices;
    }

    /**
     * Waits until the job runs every unfinished task (a bounded source's task may have finished)
     * and has restarted at least {@code restarts} times.
     */
    void awaitAllRunning(String jobId, long restarts, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Vertex> last = List.of();
        while (System.nanoTime() < deadline) {
            last = vertices(jobId);
            boolean all = !last.isEmpty();
            int running = 0;
            for (Vertex v : last) {
                running += "RUNNING".equals(v.status()) ? 1 : 0;
                all &= "RUNNING".equals(v.status()) || "FINISHED".equals(v.status());
            }
            if (all && running > 0 && numRestarts(jobId) >= restarts) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError(
                "job " + jobId + " did not run all its tasks after " + restarts + ": " + last);
    }

    long numRestarts(String jobId) {
        JsonNode m = getJson(config.flinkRestUrl() + "/jobs/" + jobId + "/metrics?get=numRestarts");
        if (m == null || m.isEmpty()) {
            return -1;
        }
        return m.get(0).path("value").asLong(-1);
    }

    long completedCheckpoints(String jobId) {
        JsonNode c = getJson(config.flinkRestUrl() + "/jobs/" + jobId + "/checkpoints");
        return c == null ? 0 : c.path("counts").path("completed").asLong(0);
    }

    void awaitCompletedCheckpoints(String jobId, long n, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && completedCheckpoints(jobId) < n) {
            Thread.sleep(250);
        }
        if (completedCheckpoints(jobId) < n) {
            throw new AssertionError(
                    "job " + jobId + " completed fewer than " + n + " checkpoints");
        }
    }

    /**
     * The decode operator's counters ({@code flowhouse.decode.*_total}), summed over its subtasks,
     * by short name ({@code held_datagrams_total}). Flink's REST API serves what its metric fetcher
     * last read from the TaskManagers (every 10 s by default).
     */
    Map<String, Long> decodeCounters(String jobId) {
        Map<String, Long> sums = new HashMap<>();
        for (Vertex v : vertices(jobId)) {
            if (!v.name().contains("decode")) {
                continue;
            }
            String base =
                    config.flinkRestUrl()
                            + "/jobs/"
                            + jobId
                            + "/vertices/"
                            + v.id()
                            + "/subtasks/metrics";
            JsonNode names = getJson(base);
            if (names == null) {
                continue;
            }
            List<String> wanted = new ArrayList<>();
            for (JsonNode n : names) {
                String id = n.path("id").asText();
                if (id.contains("flowhouse.decode.") && id.endsWith("_total")) {
                    wanted.add(id);
                }
            }
            for (String id : wanted) {
                JsonNode m =
                        getJson(
                                base
                                        + "?agg=sum&get="
                                        + URLEncoder.encode(id, StandardCharsets.UTF_8));
                if (m != null && !m.isEmpty()) {
                    String shortName = id.substring(id.lastIndexOf('.') + 1);
                    sums.merge(shortName, (long) m.get(0).path("sum").asDouble(), Long::sum);
                }
            }
        }
        return sums;
    }

    /**
     * Every operator metric whose name contains {@code part}, summed over subtasks, by vertex and
     * name: what a failed check prints beside its numbers.
     */
    Map<String, Long> metrics(String jobId, String part) {
        Map<String, Long> sums = new java.util.TreeMap<>();
        for (Vertex v : vertices(jobId)) {
            String base =
                    config.flinkRestUrl()
                            + "/jobs/"
                            + jobId
                            + "/vertices/"
                            + v.id()
                            + "/subtasks/metrics";
            JsonNode names = getJson(base);
            if (names == null) {
                continue;
            }
            for (JsonNode n : names) {
                String id = n.path("id").asText();
                if (!id.contains(part)) {
                    continue;
                }
                JsonNode m =
                        getJson(
                                base
                                        + "?agg=sum&get="
                                        + URLEncoder.encode(id, StandardCharsets.UTF_8));
                if (m != null && !m.isEmpty()) {
                    sums.put(id, (long) m.get(0).path("sum").asDouble());
                }
            }
        }
        return sums;
    }

    /**
     * Waits until the REST API shows the decode operator's {@code datagrams_total} at least {@code
     * atLeast} (the fetcher has read the TaskManagers since then), and returns every counter.
     */
    Map<String, Long> awaitDecodeCounters(String jobId, long atLeast, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Long> last = Map.of();
        while (System.nanoTime() < deadline) {
            last = decodeCounters(jobId);
            if (last.getOrDefault("datagrams_total", 0L) >= atLeast) {
                return last;
            }
            Thread.sleep(1_000);
        }
        throw new AssertionError(
                "job " + jobId + ": decode counters below " + atLeast + " datagrams: " + last);
    }

    /**
     * Stops the job with a drained savepoint into {@code savepoints} (the final watermark closes
     * the traffic's hour, which the receive clock reaches only at its end), then {@code flows_1h}
     * per exporter must add up to {@code flows FINAL} ({@link FaultSupport#assertHourExact}).
     */
    void drainedStopThenHourExact(String jobId, String database, Path savepoints)
            throws IOException, InterruptedException {
        FlinkRestClient rest = new FlinkRestClient(config.flinkRestUrl());
        String savepoint =
                rest.stopWithSavepoint(
                        jobId, savepoints.toUri().toString(), Duration.ofSeconds(180), true);
        String state = rest.awaitState(jobId, Duration.ofSeconds(60), "FINISHED");
        if (!"FINISHED".equals(state)) {
            throw new AssertionError(
                    "job " + jobId + " " + state + " after the drained stop to " + savepoint);
        }
        FaultSupport.assertHourExact(this::queryRows, database);
    }

    String query(String sql) {
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

    List<List<String>> queryRows(String sql) {
        List<List<String>> rows = new ArrayList<>();
        String body = query(sql);
        if (!body.isEmpty()) {
            for (String line : body.split("\n")) {
                rows.add(List.of(line.split("\t", -1)));
            }
        }
        return rows;
    }

    /** Polls until the query's single number reaches {@code atLeast}; bounded in time. */
    void awaitScalar(String sql, long atLeast, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                String v = query(sql);
                if (!v.isEmpty() && Long.parseLong(v) >= atLeast) {
                    return;
                }
            } catch (RuntimeException e) {
                // Table not there yet: poll again.
            }
            Thread.sleep(500);
        }
    }

    /** Polls until the query returns {@code rows}; bounded in time. */
    void awaitRows(String sql, List<List<String>> rows, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && !queryRows(sql).equals(rows)) {
            Thread.sleep(1_000);
        }
    }

    private JsonNode getJson(String url) {
        String body = get(url, Map.of());
        if (body == null) {
            return null;
        }
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            return null;
        }
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

    /**
     * Every closed rollup window of {@code database}, per exporter, equals the raw flows of that
     * window ({@code flows_1m} against {@code flows FINAL}); windows before {@code lastMinute}.
     */
    void assertRollupsExact(String database, long lastMinute) throws InterruptedException {
        String rawByWindow =
                "SELECT exporter, toStartOfMinute(flow_end) AS w, count(), sum(packets),"
                        + " sum(bytes) FROM "
                        + database
                        + ".flows FINAL WHERE flow_end < toDateTime("
                        + lastMinute
                        + ") GROUP BY exporter, w ORDER BY exporter, w";
        String oneMinute =
                "SELECT exporter, window_start, sum(flows), sum(packets), sum(bytes) FROM "
                        + database
                        + ".flows_1m FINAL WHERE kind = 'interface' AND direction = 0 AND"
                        + " window_start < toDateTime("
                        + lastMinute
                        + ") GROUP BY exporter, window_start ORDER BY exporter, window_start";
        List<List<String>> expected = queryRows(rawByWindow);
        if (expected.isEmpty()) {
            throw new AssertionError("no closed window before " + lastMinute);
        }
        // The windows close on the receive-time watermark; at load averages of 30 on 2 cores
        // the rollups have taken more than two minutes to follow the raw rows.
        awaitRows(oneMinute, expected, Duration.ofSeconds(300));
        List<List<String>> got = queryRows(oneMinute);
        if (!got.equals(expected)) {
            throw new AssertionError(
                    "flows_1m "
                            + got
                            + " but flows FINAL "
                            + expected
                            + " (flows_1m rows by window: "
                            + queryRows(
                                    "SELECT window_start, count(), sum(flows) FROM "
                                            + database
                                            + ".flows_1m GROUP BY window_start ORDER BY"
                                            + " window_start")
                            + ")");
        }
    }

    /**
     * Waits for the next minute to start and {@code settle} more, so that a round sent then moves
     * the receive-time watermark past every window of what was sent before; returns that minute in
     * epoch seconds (windows before it are closed).
     */
    static long awaitNextMinute(Duration settle) throws InterruptedException {
        long minute = 60_000L;
        long next = (System.currentTimeMillis() / minute + 1) * minute;
        Thread.sleep(next - System.currentTimeMillis() + settle.toMillis());
        return next / 1000;
    }

    /** The sums {@link #assertTablesExact} checked. */
    record Totals(long[] sent, long plainRows, long statsDatagrams) {}

    /**
     * Every table of {@code database} holds exactly what {@code sender} sent: {@code flows FINAL}
     * (count, packets, bytes, one row per row id), {@code flows_1m} per exporter and closed window
     * (before {@code lastMinute}), {@code exporter_stats} (datagrams, no duplicates).
     */
    Totals assertTablesExact(String database, MixedExporters sender, long lastMinute)
            throws InterruptedException {
        long[] sent = sender.sentTotals();
        String table = database + ".flows";
        awaitScalar(
                "SELECT sum(packets) FROM " + table + " FINAL", sent[1], Duration.ofSeconds(180));
        List<String> raw =
                queryRows(
                                "SELECT count(), sum(packets), sum(bytes), uniqExact(row_id,"
                                        + " row_id_hi) FROM "
                                        + table
                                        + " FINAL")
                        .get(0);
        org.assertj.core.api.Assertions.assertThat(raw)
                .as("flows FINAL")
                .containsExactly(
                        Long.toString(sent[0]),
                        Long.toString(sent[1]),
                        Long.toString(sent[2]),
                        Long.toString(sent[0]));
        long plain = Long.parseLong(query("SELECT count() FROM " + table));
        assertRollupsExact(database, lastMinute);
        awaitScalar(
                "SELECT sum(datagrams) FROM " + database + ".exporter_stats FINAL",
                sender.sent(),
                Duration.ofSeconds(120));
        List<String> stats =
                queryRows(
                                "SELECT sum(datagrams), sum(duplicate_datagrams) FROM "
                                        + database
                                        + ".exporter_stats FINAL")
                        .get(0);
        org.assertj.core.api.Assertions.assertThat(stats)
                .as("exporter_stats: datagrams, duplicates")
                .containsExactly(Integer.toString(sender.sent()), "0");
        return new Totals(sent, plain, Long.parseLong(stats.get(0)));
    }

    /** Sends one second of every exporter at a time until {@code sending} is cleared. */
    static Thread stream(
            MixedExporters sender, java.util.concurrent.atomic.AtomicBoolean sending, int rate) {
        Thread t =
                new Thread(
                        () -> {
                            while (sending.get()) {
                                sender.send(rate / MixedExporters.EXPORTERS, rate);
                            }
                        },
                        "cluster-sender");
        t.start();
        return t;
    }

    /**
     * Stops the stream, waits for the next minute, sends one short round so that every window of
     * the stream closes; returns that minute (epoch seconds).
     */
    static long endStream(
            Thread stream,
            java.util.concurrent.atomic.AtomicBoolean sending,
            MixedExporters sender,
            int rate)
            throws InterruptedException {
        sending.set(false);
        stream.join(30_000);
        if (stream.isAlive()) {
            throw new AssertionError("the sender did not stop");
        }
        long lastMinute = awaitNextMinute(Duration.ofSeconds(8));
        sender.send(4, rate);
        return lastMinute;
    }

    /** Skips (or, in CI, fails) without the cluster's parts; returns the job jar. */
    static Path requireCluster(Path root) throws IOException {
        io.flowhouse.testkit.ServiceRequirement.requireFile(
                root.resolve("dist/kafka/target/lib"),
                "the Kafka class path (mvn package -pl dist/kafka)");
        io.flowhouse.testkit.ServiceRequirement.requireFile(
                root.resolve("dist/flink/target/lib"),
                "the Flink class path (mvn package -pl dist/flink)");
        io.flowhouse.testkit.ServiceRequirement.require(
                Files.isExecutable(ServicesConfig.defaults(root).clickhouseBinary()),
                "clickhouse-server (apt-get install -y clickhouse-server)");
        return io.flowhouse.testkit.ServiceRequirement.requireFile(
                jobJar(root), "the job jar (mvn package -pl flink-jobs)");
    }

    /** The checkout the tests run in. */
    static Path root() {
        return Path.of(System.getProperty("flowhouse.root.dir", "..")).toAbsolutePath().normalize();
    }

    /** An agent config: one UDP listener, the services' Kafka, a spool and metrics. */
    static Path agentYaml(Path dir, String id, String bootstrap, int udpPort, int metricsPort)
            throws IOException {
        Path yaml = dir.resolve("agent.yaml");
        Files.createDirectories(dir);
        Files.writeString(
                yaml,
                String.join(
                        "\n",
                        "agent:",
                        "  id: " + id,
                        "udp:",
                        "  listen: ['127.0.0.1:" + udpPort + "']",
                        "  sockets-per-listener: 1",
                        "kafka:",
                        "  bootstrap-servers: '" + bootstrap + "'",
                        "spool:",
                        "  directory: '" + dir.resolve("spool") + "'",
                        "metrics:",
                        "  host: 127.0.0.1",
                        "  port: " + metricsPort,
                        ""),
                StandardCharsets.UTF_8);
        return yaml;
    }

    /**
     * The newest {@code flink-jobs/target/flink-jobs-*-job.jar}, as {@code job submit} finds it.
     */
    static Path jobJar(Path root) throws IOException {
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
     * The first of {@code count} consecutive ports that are free on 127.0.0.1 now (a quorum's nodes
     * take their ports by offset from the first).
     */
    static int freePortBlock(int count) throws IOException {
        java.util.Random random = new java.util.Random();
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = 20_000 + random.nextInt(30_000);
            List<ServerSocket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < count; i++) {
                    sockets.add(new ServerSocket(base + i, 1, InetAddress.getLoopbackAddress()));
                }
                return base;
            } catch (IOException taken) {
                // Try another block.
            } finally {
                for (ServerSocket socket : sockets) {
                    socket.close();
                }
            }
        }
        throw new IOException("no " + count + " consecutive free ports");
    }

    static int[] freePorts(int count) throws IOException {
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
