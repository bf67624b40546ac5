// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import io.flowhouse.schema.v1.Flow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The decoded-flows topic as a {@code read_committed} consumer sees it: every record, counted by
 * {@code (row_id, row_id_hi)}, so a lost flow and a flow seen twice are told apart.
 */
final class FlowsTopicReader {

    /** Records read, distinct row ids, and the totals of all records read. */
    record Count(long records, long distinct, long packets, long bytes) {
        long duplicates() {
            return records - distinct;
        }
    }

    private FlowsTopicReader() {}

    /** Reads the whole topic as it is now (to its last stable offsets). */
    static Count read(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        long records = 0;
        long packets = 0;
        long bytes = 0;
        Set<String> ids = new HashSet<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> parts = new ArrayList<>();
            List<PartitionInfo> infos = c.partitionsFor(topic, Duration.ofSeconds(30));
            for (PartitionInfo i : infos == null ? List.<PartitionInfo>of() : infos) {
                parts.add(new TopicPartition(i.topic(), i.partition()));
            }
            if (parts.isEmpty()) {
                return new Count(0, 0, 0, 0);
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    Flow f;
                    try {
                        f = Flow.parseFrom(r.value());
                    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                        throw new IllegalStateException("not a flowhouse.v1.Flow", e);
                    }
                    records++;
                    packets += f.getPackets();
                    bytes += f.getBytes();
                    ids.add(Long.toUnsignedString(f.getRowId()) + "/" + f.getRowIdHi());
                }
            }
        }
        return new Count(records, ids.size(), packets, bytes);
    }

    /**
     * Reads until {@code flows} distinct row ids are there (transactions commit on checkpoints), at
     * most {@code timeout}; returns the last count.
     */
    static Count await(String bootstrap, String topic, long flows, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Count c = new Count(0, 0, 0, 0);
        while (System.nanoTime() < deadline) {
            try {
                c = read(bootstrap, topic);
            } catch (RuntimeException e) {
                // The broker is coming back: read again.
            }
            if (c.distinct() >= flows) {
                return c;
            }
            Thread.sleep(1_000);
        }
        return c;
    }
}
