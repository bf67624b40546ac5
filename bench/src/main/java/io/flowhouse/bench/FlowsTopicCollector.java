// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import io.flowhouse.loadgen.report.RunSummary;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The production pipeline as {@code ./flowhouse up --flows-topic T} runs it, exactly once: agent
 * (UDP 4739) -> Kafka -> Flink job -> the decoded-flows topic. Delivered = the step's committed
 * {@code flowhouse.v1.Flow} records, read with {@code isolation.level=read_committed} from the
 * topic's end at open; every exporter's flows, packets and bytes must equal what loadgen sent (a
 * difference is an internal drop, "exporter_mismatch"). Records become visible when the checkpoint
 * after them completes, so the drain waits longer than the checkpoint interval.
 */
final class FlowsTopicCollector implements Collector {
    /** Longer than the job's default checkpoint interval (10 s): records commit per checkpoint. */
    private static final long QUIET_MILLIS = 25_000;

    private final String bootstrap;
    private final String topic;
    private final int port;
    private final Map<String, Long> processes;
    private final int agentMetricsPort;
    private final FlowsTopicTally tally = new FlowsTopicTally();
    private KafkaConsumer<byte[], byte[]> consumer;
    private List<Integer> stepPorts = List.of();
    private RunSummary stepLoad;
    private long mismatches;
    private long records;

    FlowsTopicCollector(
            String bootstrap,
            String topic,
            int port,
            Map<String, Long> processes,
            int agentMetricsPort) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.port = port;
        this.processes = Map.copyOf(processes);
        this.agentMetricsPort = agentMetricsPort;
    }

    @Override
    public String name() {
        return "flowhouse-flows-topic";
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
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(64 << 20));
        consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        // The job creates the topic when it starts: wait for it.
        long deadline = System.nanoTime() + 60_000_000_000L;
        List<PartitionInfo> parts = consumer.partitionsFor(topic, Duration.ofSeconds(10));
        while (parts == null || parts.isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IOException("topic " + topic + " did not appear in 60 s");
            }
            Thread.sleep(500);
            parts = consumer.partitionsFor(topic, Duration.ofSeconds(10));
        }
        List<TopicPartition> tps = new ArrayList<>();
        parts.forEach(i -> tps.add(new TopicPartition(topic, i.partition())));
        consumer.assign(tps);
        consumer.seekToEnd(tps);
        tps.forEach(consumer::position); // resolve the end now, before any load
    }

    @Override
    public void beginStep() {
        stepPorts = List.of();
        stepLoad = null;
    }

    @Override
    public void loadSent(RunSummary load) {
        stepPorts = FlowsTopicTally.ports(load);
        stepLoad = load;
    }

    /** Reads what is committed so far into the tally; the step's flows counted. */
    private long drainTopic() {
        for (int i = 0; i < 50; i++) {
            int n = 0;
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                tally.add(r.key(), r.value());
                n++;
            }
            records += n;
            if (n == 0) {
                break;
            }
        }
        return tally.flows(stepPorts);
    }

    @Override
    public void awaitDrained(long expected, long maxMillis) throws Exception {
        BenchContext.awaitStable(this::drainTopic, expected, maxMillis, QUIET_MILLIS);
    }

    @Override
    public long finishStep() {
        long n = drainTopic();
        if (stepLoad != null && tally.mismatchedExporters(stepLoad) > 0) {
            mismatches++;
        }
        return n;
    }

    @Override
    public Map<String, Long> internalDrops() {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("exporter_mismatch", mismatches);
        out.put("undecodable", tally.undecodable());
        if (agentMetricsPort > 0) {
            try {
                PrometheusScrape m =
                        PrometheusScrape.fetch("http://127.0.0.1:" + agentMetricsPort + "/metrics");
                out.put("agent_rejected", m.sum("flowhouse_agent_rejected_datagrams_total"));
                out.put("agent_dropped", m.sum("flowhouse_agent_dropped_datagrams_total"));
            } catch (IOException e) {
                // no agent metrics endpoint: the topic's exact totals are judged alone
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
                "./flowhouse up --flows-topic "
                        + topic
                        + ": agent UDP "
                        + port
                        + " -> Kafka -> Flink job -> "
                        + topic
                        + " (flowhouse.v1.Flow, exactly-once: transactions commit on"
                        + " checkpoints)",
                String.format(
                        Locale.ROOT,
                        "delivered = the step's records read with isolation.level=read_committed"
                                + " (%,d read in all); flows, packets and bytes compared exactly"
                                + " per exporter; the reading consumer runs in the loadgen JVM",
                        records));
    }

    @Override
    public void close() {
        if (consumer != null) {
            consumer.close();
            consumer = null;
        }
    }
}
