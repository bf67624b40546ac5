// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a topic back from the start, for integration tests. */
final class AgentKafkaSupport {

    private AgentKafkaSupport() {}

    /**
     * Reads every partition of {@code topic} from the beginning until {@code done} holds for what
     * was read, or {@code timeout} passes; then returns what was read (partition order kept).
     */
    static List<ConsumerRecord<byte[], byte[]>> readAll(
            String bootstrap,
            String topic,
            Duration timeout,
            Predicate<List<ConsumerRecord<byte[], byte[]>>> done) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> parts = new ArrayList<>();
            while (parts.isEmpty() && System.nanoTime() < deadline) {
                List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(5));
                if (infos != null) {
                    for (PartitionInfo i : infos) {
                        parts.add(new TopicPartition(topic, i.partition()));
                    }
                }
            }
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            while (System.nanoTime() < deadline && !done.test(out)) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    out.add(r);
                }
            }
            // One more poll: anything beyond what was expected shows up as a failure.
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(1_000))) {
                out.add(r);
            }
        }
        return out;
    }
}
