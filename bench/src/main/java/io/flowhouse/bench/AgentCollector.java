// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Flowhouse capture agent as a separate JVM started from the bench's class path (the
 * launcher's, under ./flowhouse): UDP on loopback to its own Kafka topic. Delivered = datagrams in
 * that topic: its records, one per datagram, or with {@code kafka.record-max-datagrams} above 1
 * (batch records of one exporter's datagrams) the datagrams read back from the records; internal
 * drops from its Prometheus endpoint.
 */
final class AgentCollector implements Collector {
    /** What the agent asks per socket by default (SO_RCVBUFFORCE as root); peers get as much. */
    static final long RECEIVE_BUFFER_BYTES =
            io.flowhouse.agent.config.AgentKeys.UDP_RECEIVE_BUFFER_BYTES.defaultValue();

    private final BenchContext ctx;
    private final int port;
    private final int metricsPort;
    private final String topic;
    private final int recordMaxDatagrams;
    private ChildProcess process;
    private long baseline;
    private RawTopicDatagrams datagrams;

    /**
     * @param recordMaxDatagrams the agent's {@code kafka.record-max-datagrams} (1: a record per
     *     datagram; its default batches)
     */
    AgentCollector(BenchContext ctx, int recordMaxDatagrams) throws java.io.IOException {
        this.ctx = ctx;
        this.recordMaxDatagrams = recordMaxDatagrams;
        this.port = BenchContext.freeUdpPort();
        this.metricsPort = BenchContext.freeTcpPort();
        this.topic = "bench-agent-" + ctx.runId();
    }

    @Override
    public String name() {
        return "flowhouse-agent";
    }

    @Override
    public String unit() {
        return "datagrams";
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public void open() throws Exception {
        ctx.createTopic(topic, 4);
        Path dir = Files.createDirectories(ctx.workDir().resolve("agent"));
        Path config = dir.resolve("agent.yaml");
        Files.writeString(
                config,
                "kafka:\n  raw-topic: "
                        + topic
                        + "\n  record-max-datagrams: "
                        + recordMaxDatagrams
                        + "\n",
                StandardCharsets.UTF_8);
        if (batched()) {
            datagrams = new RawTopicDatagrams(ctx.bootstrap(), topic);
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(ctx.javaBin());
        cmd.add("-Xmx1g");
        // Extra agent JVM options for profiling a step (e.g. -XX:StartFlightRecording=...).
        String extra = System.getenv("FLOWHOUSE_BENCH_AGENT_JAVA_OPTS");
        if (extra != null && !extra.isBlank()) {
            cmd.addAll(List.of(extra.trim().split("\\s+")));
        }
        cmd.add("-cp");
        cmd.add(ctx.classPath());
        cmd.add("io.flowhouse.agent.CaptureAgentMain");
        cmd.addAll(
                List.of(
                        "--config", config.toString(),
                        "--agent-id", "bench",
                        "--listen", "127.0.0.1:" + port,
                        "--bootstrap-servers", ctx.bootstrap(),
                        "--metrics-port", Integer.toString(metricsPort),
                        "--spool-dir", dir.resolve("spool").toString()));
        process = ChildProcess.start(name(), cmd, dir.resolve("agent.log"));
        process.awaitUdp(port, 60);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            try {
                PrometheusScrape.fetch(metricsUrl());
                break;
            } catch (java.io.IOException e) {
                process.requireAlive();
                if (System.nanoTime() > deadline) {
                    throw new java.io.IOException("agent metrics did not answer: " + e);
                }
                Thread.sleep(200);
            }
        }
    }

    private String metricsUrl() {
        return "http://127.0.0.1:" + metricsPort + "/metrics";
    }

    private boolean batched() {
        return recordMaxDatagrams > 1;
    }

    @Override
    public void beginStep() throws Exception {
        process.requireAlive();
        if (batched()) {
            datagrams.mark();
            baseline = acknowledged();
        } else {
            baseline = ctx.kafka().records(topic);
        }
    }

    @Override
    public void awaitDrained(long expected, long maxMillis) throws Exception {
        if (batched()) {
            // Waits on the agent's own count; what is delivered is then read from the topic.
            BenchContext.awaitStable(() -> acknowledged() - baseline, expected, maxMillis);
        } else {
            BenchContext.awaitStable(
                    () -> ctx.kafka().records(topic) - baseline, expected, maxMillis);
        }
    }

    @Override
    public long finishStep() throws Exception {
        return batched() ? datagrams.since() : ctx.kafka().records(topic) - baseline;
    }

    /** Datagrams the broker acknowledged to the agent. */
    private long acknowledged() throws java.io.IOException, InterruptedException {
        return PrometheusScrape.fetch(metricsUrl()).sum("flowhouse_agent_kafka_datagrams_total");
    }

    @Override
    public Map<String, Long> internalDrops() throws Exception {
        PrometheusScrape m = PrometheusScrape.fetch(metricsUrl());
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("rejected", m.sum("flowhouse_agent_rejected_datagrams_total"));
        out.put("dropped", m.sum("flowhouse_agent_dropped_datagrams_total"));
        out.put("kafka_send_errors", m.sum("flowhouse_agent_kafka_send_errors_total"));
        return out;
    }

    @Override
    public Map<String, Long> processes() {
        return Map.of("agent", process.pid());
    }

    @Override
    public List<String> notes() {
        return List.of(
                "agent JVM -Xmx1g, default config"
                        + (recordMaxDatagrams
                                        == io.flowhouse.agent.config.AgentKeys
                                                .KAFKA_RECORD_MAX_DATAGRAMS
                                                .defaultValue()
                                ? ""
                                : " but kafka.record-max-datagrams " + recordMaxDatagrams)
                        + ", Kafka topic "
                        + topic
                        + " (4 partitions)");
    }

    @Override
    public void close() throws Exception {
        if (process != null) {
            process.stop(20);
        }
        if (datagrams != null) {
            datagrams.close();
        }
        ctx.kafka().deleteQuietly(topic);
    }
}
