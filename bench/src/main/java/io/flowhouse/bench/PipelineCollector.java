// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import io.flowhouse.loadgen.report.ExporterTotals;
import io.flowhouse.loadgen.report.RunSummary;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The whole pipeline as {@code ./flowhouse up} runs it: agent (UDP 4739) -> Kafka -> Flink job ->
 * ClickHouse. A step's rows are told apart by the step's exporter source ports (loadgen opens new
 * sockets per step) and receive time, so late rows are never counted in the wrong step. Delivered =
 * those rows; their packet and byte sums must match loadgen's exactly (a mismatch is reported as an
 * internal drop, "sum_mismatch"). Rows land on Flink checkpoints, so the drain waits for a quiet
 * period longer than the checkpoint interval.
 */
final class PipelineCollector implements Collector {
    /** Longer than the job's default checkpoint interval (10 s): rows land once per checkpoint. */
    private static final long QUIET_MILLIS = 25_000;

    private final ClickHouseHttp clickhouse;
    private final String database;
    private final int port;
    private final Map<String, Long> processes;
    private final int agentMetricsPort;
    private final String name;
    private final double maxLagSeconds;
    private long loadEndMillis;
    private Visibility visibility;
    private long stepStartSeconds;
    private String ports = "0";
    private long expectedPackets = -1;
    private long expectedBytes = -1;
    private long sumMismatch;
    private double targetRate;
    private VisibilityLatency latency;
    private final List<String> latencies = new ArrayList<>();

    PipelineCollector(
            ClickHouseHttp clickhouse,
            String database,
            int port,
            Map<String, Long> processes,
            int agentMetricsPort,
            String name,
            double maxLagSeconds) {
        this.clickhouse = clickhouse;
        this.database = database;
        this.port = port;
        this.processes = Map.copyOf(processes);
        this.agentMetricsPort = agentMetricsPort;
        this.name = name;
        this.maxLagSeconds = maxLagSeconds;
    }

    @Override
    public String name() {
        return name;
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
        query("SELECT count() FROM " + database + ".flows"); // fails early without the table
    }

    @Override
    public void beginStep() throws InterruptedException {
        long now = System.currentTimeMillis();
        stepStartSeconds = now / 1000 - 2;
        ports = "0";
        expectedPackets = -1;
        expectedBytes = -1;
        targetRate = 0;
        loadEndMillis = now;
        visibility = null;
        if (latency != null) {
            latency.cancel();
        }
        latency = new VisibilityLatency(this::query, database + ".flows", now / 1000);
    }

    @Override
    public void loadSent(RunSummary load) {
        loadEndMillis = System.currentTimeMillis();
        StringJoiner j = new StringJoiner(",");
        for (ExporterTotals e : load.exporters()) {
            String src = e.source();
            j.add(src.substring(src.lastIndexOf(':') + 1));
        }
        ports = j.toString();
        expectedPackets = load.packets();
        expectedBytes = load.bytes();
        targetRate = load.targetRate();
    }

    @Override
    public void awaitDrained(long expected, long maxMillis) throws Exception {
        BenchContext.awaitStable(() -> stepTotals()[0], expected, maxMillis, QUIET_MILLIS);
    }

    @Override
    public long finishStep() throws Exception {
        long[] t = stepTotals();
        if (expectedPackets >= 0 && (t[1] != expectedPackets || t[2] != expectedBytes)) {
            sumMismatch++;
        }
        if (latency != null) {
            VisibilityLatency.Result r = latency.finish();
            latency = null;
            // No row seen at all: nothing was kept up with.
            visibility =
                    r == null
                            ? new Visibility(
                                    Double.NaN, Double.NaN, Double.POSITIVE_INFINITY, maxLagSeconds)
                            : r.visibility(loadEndMillis, maxLagSeconds);
            if (r != null) {
                String line =
                        String.format(
                                Locale.ROOT,
                                "latency datagram -> visible row at %,.0f flows/s: %s; last row"
                                        + " %.1f s after the load ended (%s)",
                                targetRate,
                                r.describe(),
                                visibility.catchUpSeconds(),
                                visibility.withinLag()
                                        ? "sustained"
                                        : "NOT sustained: bound " + maxLagSeconds + " s");
                latencies.add(line);
                System.out.println("  " + line);
            }
        }
        return t[0];
    }

    /** count(), sum(packets), sum(bytes) of this step's rows. */
    private long[] stepTotals() throws IOException, InterruptedException {
        String[] f =
                query(
                                "SELECT count(), sum(packets), sum(bytes) FROM "
                                        + database
                                        + ".flows WHERE exporter_port IN ("
                                        + ports
                                        + ") AND toUnixTimestamp(time_received) >= "
                                        + stepStartSeconds)
                        .trim()
                        .split("\t");
        return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])};
    }

    private String query(String sql) throws IOException, InterruptedException {
        return clickhouse.query(sql);
    }

    @Override
    public Visibility visibility() {
        return visibility;
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
        List<String> notes = new ArrayList<>();
        notes.add(
                "./flowhouse up: agent UDP "
                        + port
                        + " -> Kafka -> Flink job -> ClickHouse "
                        + database
                        + ".flows; delivered = the step's rows (by exporter port), packets and"
                        + " bytes compared exactly");
        notes.add(
                "latency: rows per second of time_received (agent receive time) polled every "
                        + VisibilityLatency.POLL_MILLIS
                        + " ms; a row counts from the middle of its second to the middle of the"
                        + " poll interval in which it appeared (+-0.5 s per row)");
        notes.add(
                "sustained: every row of the step visible within "
                        + maxLagSeconds
                        + " s (--max-lag) of the end of its load; a step that is clean but not"
                        + " sustained is not drop-free");
        notes.addAll(latencies);
        return notes;
    }

    @Override
    public void close() throws InterruptedException {
        // the stage stops the pipeline (./flowhouse down) if it started it
        if (latency != null) {
            latency.cancel();
            latency = null;
        }
    }
}
