// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a whole topic back from its beginning, for integration tests that check what reached Kafka:
 * every partition, partition order kept, no consumer group.
 */
public final class TopicReader {

    private static final Duration POLL = Duration.ofMillis(500);

    /** After {@code done} holds, one more poll this long so that extras (duplicates) show. */
    private static final Duration LAST_POLL = Duration.ofMillis(1_500);

    private TopicReader() {}

    /** {@link #readAll(Map, String, Duration, Predicate)} with only a bootstrap address. */
    public static List<ConsumerRecord<byte[], byte[]>> readAll(
            String bootstrap,
            String topic,
            Duration timeout,
            Predicate<List<ConsumerRecord<byte[], byte[]>>> done) {
        return readAll(
                Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), topic, timeout, done);
    }

    /**
     * Reads every partition of {@code topic} from the beginning until {@code done} holds for what
     * was read or {@code timeout} passes, then polls once more; returns everything read.
     *
     * @param client consumer properties: at least the bootstrap address, plus any security settings
     */
    public static List<ConsumerRecord<byte[], byte[]>> readAll(
            Map<String, String> client,
            String topic,
            Duration timeout,
            Predicate<List<ConsumerRecord<byte[], byte[]>>> done) {
        Properties p = new Properties();
        p.putAll(client);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
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
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                    out.add(r);
                }
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(LAST_POLL)) {
                out.add(r);
            }
        }
        return out;
    }
}
