// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import io.flowhouse.codec.envelope.RawDatagramCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Datagrams in a raw topic's records, read from the topic itself: a batch record holds several
 * datagrams of one exporter, so the topic's offsets count records, not datagrams. {@link #mark}
 * notes where each partition ends; {@link #since} reads what came after and counts its datagrams.
 */
final class RawTopicDatagrams implements AutoCloseable {

    /** How long one count may read, whatever the topic holds. */
    private static final Duration READ_LIMIT = Duration.ofMinutes(5);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final List<TopicPartition> partitions = new ArrayList<>();
    private Map<TopicPartition, Long> marked = Map.of();

    RawTopicDatagrams(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        for (PartitionInfo i : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
            partitions.add(new TopicPartition(topic, i.partition()));
        }
        consumer.assign(partitions);
    }

    /** Notes the end of every partition: {@link #since} counts from here. */
    void mark() {
        marked = new HashMap<>(consumer.endOffsets(partitions, Duration.ofSeconds(30)));
    }

    /** Datagrams in the records written since {@link #mark} (an undecodable record counts 0). */
    long since() {
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
        long datagrams = 0;
        long deadline = System.nanoTime() + READ_LIMIT.toNanos();
        for (TopicPartition tp : partitions) {
            long from = marked.getOrDefault(tp, 0L);
            long to = end.getOrDefault(tp, 0L);
            if (to <= from) {
                continue;
            }
            consumer.assign(List.of(tp));
            consumer.seek(tp, from);
            long at = from;
            while (at < to && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofSeconds(5))) {
                    if (r.offset() < to) {
                        datagrams += count(r.value());
                    }
                    at = r.offset() + 1;
                }
            }
        }
        consumer.assign(partitions);
        return datagrams;
    }

    private static long count(byte[] value) {
        try {
            return RawDatagramCodec.decodeAll(value).size();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    @Override
    public void close() {
        consumer.close();
    }
}
