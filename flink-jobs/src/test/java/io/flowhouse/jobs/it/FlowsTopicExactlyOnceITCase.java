// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.schema.v1.Flow;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Exactly once on the decoded-flows topic across a task failure: the streaming job writes the first
 * batch of captures and commits it on a checkpoint; then, while it writes the second batch, a task
 * of the decode chain (which holds the topic's writer) fails on its first attempt. Flink restarts
 * from the last checkpoint, the open Kafka transactions are aborted and the flows are written
 * again. Read with {@code read_committed}, every flow is on the topic exactly once (counted by
 * {@code row_id}) with the ground-truth totals per exporter, while {@code read_uncommitted} also
 * sees the aborted copies.
 */
class FlowsTopicExactlyOnceITCase {

    /** Failures injected, across the MiniCluster's task threads (same JVM). */
    static final AtomicInteger INJECTED = new AtomicInteger();

    private static final int SECOND_BATCH_PORT = 41_000;

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void eachFlowOnceAfterATaskFailureMidStream() throws Exception {
        String topic = "flows.decoded.eo";
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(),
                        null,
                        "topiceo",
                        "--flows-topic.enabled",
                        "true",
                        "--flows-topic.topic",
                        topic,
                        "--flows-topic.partitions",
                        "4",
                        "--flows-topic.transactional-id-prefix",
                        "itcase-eo");
        List<RawDatagram> first = new ArrayList<>();
        List<RawDatagram> second = new ArrayList<>();
        Map<Integer, CaptureProducer.Capture> byPort = new TreeMap<>();
        for (int i = 0; i < CaptureProducer.CAPTURES.size(); i++) {
            CaptureProducer.Capture c = CaptureProducer.CAPTURES.get(i);
            IpAddress exporter = IpAddress.parse("192.0.2." + (10 + i));
            first.addAll(CaptureProducer.datagrams(c.file(), exporter, 40_000 + i));
            second.addAll(CaptureProducer.datagrams(c.file(), exporter, SECOND_BATCH_PORT + i));
            byPort.put(40_000 + i, c);
            byPort.put(SECOND_BATCH_PORT + i, c);
        }
        long firstRecords = 0;
        for (CaptureProducer.Capture c : CaptureProducer.CAPTURES) {
            firstRecords += c.records();
        }
        KAFKA.createTopic(s.rawTopic(), 4);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), first);

        StreamExecutionEnvironment env =
                PipelineHarness.environment(
                        s,
                        PipelineHarness.withoutClickHouse(s).withFlows(new FailOnSecondBatch(300)));
        JobClient job = env.executeAsync("flows topic exactly once");
        try {
            // The first batch is committed (a checkpoint completed after it) before the second.
            awaitCommitted(topic, firstRecords);
            assertThat(INJECTED.get()).as("no failure during the first batch").isZero();
            CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), second);
            awaitCommitted(topic, 2 * firstRecords);
            // Two more checkpoints: nothing else may become visible.
            Thread.sleep(3_000);

            assertThat(INJECTED.get()).as("injected failures").isGreaterThanOrEqualTo(1);
            Map<Integer, long[]> totals = new TreeMap<>();
            Map<String, Integer> copies = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> r : read(topic, "read_committed")) {
                Flow f = Flow.parseFrom(r.value());
                copies.merge(
                        f.getExporterPort() + "/" + Long.toUnsignedString(f.getRowId()),
                        1,
                        Integer::sum);
                long[] t = totals.computeIfAbsent(f.getExporterPort(), k -> new long[3]);
                t[0]++;
                t[1] += f.getPackets() + f.getReversePackets();
                t[2] += f.getBytes() + f.getReverseBytes();
            }
            assertThat(copies.values()).as("copies of each row id").containsOnly(1);
            assertThat(copies).hasSize((int) (2 * firstRecords));
            assertThat(totals.keySet()).isEqualTo(byPort.keySet());
            for (Map.Entry<Integer, long[]> e : totals.entrySet()) {
                CaptureProducer.Capture c = byPort.get(e.getKey());
                assertThat(e.getValue())
                        .as(c.file() + " on port " + e.getKey())
                        .containsExactly(c.records(), c.packets(), c.bytes());
            }
            long uncommitted = read(topic, "read_uncommitted").size();
            System.out.printf(
                    "flows topic: %d committed, %d with aborted transactions, %d failure(s)%n",
                    copies.size(), uncommitted, INJECTED.get());
            assertThat(uncommitted).isGreaterThanOrEqualTo(copies.size());
        } finally {
            job.cancel().get(60, TimeUnit.SECONDS);
        }
    }

    private static Properties consumer(String isolation) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        return p;
    }

    /** Every record up to the end offsets (the last stable offsets with read_committed). */
    private static List<ConsumerRecord<byte[], byte[]>> read(String topic, String isolation) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumer(isolation))) {
            List<TopicPartition> parts = new ArrayList<>();
            for (PartitionInfo i : c.partitionsFor(topic, Duration.ofSeconds(30))) {
                parts.add(new TopicPartition(i.topic(), i.partition()));
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    /** Waits until at least {@code n} committed records are on the topic; bounded in time. */
    private static void awaitCommitted(String topic, long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        long seen = 0;
        while (System.nanoTime() < deadline) {
            seen = read(topic, "read_committed").size();
            if (seen >= n) {
                return;
            }
            Thread.sleep(1_000);
        }
        throw new AssertionError(topic + ": " + seen + " committed records, expected " + n);
    }

    /**
     * Discards flows; on its first attempt, fails after {@code after} flows of the second batch: a
     * task failure in the chain that holds the decoded-flows writer, mid-transaction.
     */
    static final class FailOnSecondBatch implements Sink<FlowRecord> {
        private final int after;

        FailOnSecondBatch(int after) {
            this.after = after;
        }

        @Override
        public SinkWriter<FlowRecord> createWriter(WriterInitContext context) {
            boolean firstAttempt = context.getTaskInfo().getAttemptNumber() == 0;
            return new SinkWriter<>() {
                private int left = after;

                @Override
                public void write(FlowRecord r, Context c) throws IOException {
                    if (firstAttempt && r.exporterPort() >= SECOND_BATCH_PORT && --left < 0) {
                        INJECTED.incrementAndGet();
                        throw new IOException("injected failure mid-stream");
                    }
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
