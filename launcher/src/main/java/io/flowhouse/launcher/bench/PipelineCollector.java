// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.bench;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The whole pipeline as {@code ./flowhouse up} runs it: agent (UDP 4739) -> Kafka -> Flink job ->
 * ClickHouse. Delivered = rows added to {@code flowhouse.flows} during the step, and the step's
 * packet and byte sums must match what loadgen sent exactly (a mismatch is reported as an internal
 * drop, "sum_mismatch").
 */
final class PipelineCollector implements Collector {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    private final String clickhouseUrl;
    private final String database;
    private final int port;
    private final Map<String, Long> processes;
    private final int agentMetricsPort;
    private long[] baseline = new long[3];
    private long sumMismatch;
    private long expectedPackets = -1;
    private long expectedBytes = -1;

    PipelineCollector(
            String clickhouseUrl,
            String database,
            int port,
            Map<String, Long> processes,
            int agentMetricsPort) {
        this.clickhouseUrl = clickhouseUrl;
        this.database = database;
        this.port = port;
        this.processes = Map.copyOf(processes);
        this.agentMetricsPort = agentMetricsPort;
    }

    @Override
    public String name() {
        return "flowhouse-pipeline";
    }

    @Override
    public String unit() {
        return "flows";
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public void open() throws Exception {
        totals(); // fails early when ClickHouse or the table is not there
    }

    @Override
    public void loadSent(long flows, long packets, long bytes) {
        this.expectedPackets = packets;
        this.expectedBytes = bytes;
    }

    @Override
    public void beginStep() throws Exception {
        baseline = totals();
        expectedPackets = -1;
        expectedBytes = -1;
    }

    @Override
    public void awaitDrained(long expected, long maxMillis) throws Exception {
        BenchContext.awaitStable(() -> totals()[0] - baseline[0], expected, maxMillis);
    }

    @Override
    public long finishStep() throws Exception {
        long[] now = totals();
        long rows = now[0] - baseline[0];
        if (expectedPackets >= 0
                && (now[1] - baseline[1] != expectedPackets
                        || now[2] - baseline[2] != expectedBytes)) {
            sumMismatch++;
        }
        return rows;
    }

    /** count(), sum(packets), sum(bytes) of the flows table. */
    private long[] totals() throws IOException, InterruptedException {
        String sql =
                "SELECT count(), sum(packets), sum(bytes) FROM "
                        + database
                        + ".flows FORMAT TabSeparated";
        HttpRequest req =
                HttpRequest.newBuilder(
                                URI.create(
                                        clickhouseUrl
                                                + "/?query="
                                                + URLEncoder.encode(sql, StandardCharsets.UTF_8)))
                        .timeout(Duration.ofSeconds(20))
                        .build();
        HttpResponse<String> res = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
        if (res.statusCode() != 200) {
            throw new IOException("ClickHouse answered " + res.statusCode() + ": " + res.body());
        }
        String[] f = res.body().trim().split("\t");
        return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])};
    }

    @Override
    public Map<String, Long> internalDrops() {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("sum_mismatch", sumMismatch);
        if (agentMetricsPort > 0) {
            try {
                PrometheusScrape m =
                        PrometheusScrape.fetch("http://127.0.0.1:" + agentMetricsPort + "/metrics");
                out.put("agent_rejected", m.sum("flowhouse_agent_rejected_datagrams_total"));
                out.put("agent_dropped", m.sum("flowhouse_agent_dropped_datagrams_total"));
            } catch (IOException e) {
                // the agent runs without a metrics endpoint: only the end-to-end count is judged
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return out;
    }

    @Override
    public Map<String, Long> processes() {
        return processes;
    }

    @Override
    public List<String> notes() {
        return List.of(
                "./flowhouse up: agent UDP "
                        + port
                        + " -> Kafka -> Flink job -> ClickHouse "
                        + database
                        + ".flows; delivered = rows, packets and bytes compared exactly");
    }

    @Override
    public void close() {
        // the pipeline is stopped by the stage (./flowhouse down) if the stage started it
    }
}
