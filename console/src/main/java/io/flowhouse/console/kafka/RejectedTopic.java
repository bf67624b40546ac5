// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.kafka;

import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.envelope.RejectedDatagram;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Counts the dead letters of {@code flows.rejected} in a time range (the records' timestamps: the
 * datagram's receive time), per exporter, reason and time bucket. Reads without a consumer group
 * (assign + seek by time, nothing committed), at most {@code maxRecords} records and for at most
 * {@code maxTime}; beyond either the answer says it is truncated.
 */
public final class RejectedTopic {

    private final String bootstrap;
    private final String topic;
    private final int maxRecords;
    private final Duration maxTime;

    public RejectedTopic(String bootstrap, String topic, int maxRecords, Duration maxTime) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.maxRecords = maxRecords;
        this.maxTime = maxTime;
    }

    /**
     * The counts.
     *
     * @param perExporter exporter (address text) -> reason -> count
     * @param buckets bucket start (epoch s) -> exporter -> count
     * @param records dead letters counted
     * @param truncated true when a bound stopped the read before the range's end
     * @param error why the topic could not be read, or null
     */
    public record Counts(
            Map<String, Map<String, Long>> perExporter,
            Map<Long, Map<String, Long>> buckets,
            long records,
            boolean truncated,
            String error) {}

    /**
     * Reads {@code [fromSeconds, toSeconds)}.
     *
     * @param exporterFilter which exporters (16-byte addresses) count
     */
    public Counts count(
            long fromSeconds, long toSeconds, long step, Predicate<byte[]> exporterFilter) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "flowhouse-console");
        Map<String, Map<String, Long>> perExporter = new TreeMap<>();
        Map<Long, Map<String, Long>> buckets = new TreeMap<>();
        long records = 0;
        boolean truncated = false;
        long deadline = System.nanoTime() + maxTime.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(5));
            if (infos == null || infos.isEmpty()) {
                return new Counts(perExporter, buckets, 0, false, null);
            }
            List<TopicPartition> parts = new ArrayList<>();
            infos.forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
            consumer.assign(parts);
            Map<TopicPartition, Long> query = new HashMap<>();
            parts.forEach(tp -> query.put(tp, fromSeconds * 1000));
            Map<TopicPartition, OffsetAndTimestamp> start =
                    consumer.offsetsForTimes(query, Duration.ofSeconds(5));
            Map<TopicPartition, Long> end = consumer.endOffsets(parts, Duration.ofSeconds(5));
            List<TopicPartition> open = new ArrayList<>();
            for (TopicPartition tp : parts) {
                OffsetAndTimestamp o = start.get(tp);
                if (o != null && o.offset() < end.get(tp)) {
                    consumer.seek(tp, o.offset());
                    open.add(tp);
                }
            }
            consumer.assign(open);
            while (!open.isEmpty()) {
                if (System.nanoTime() > deadline || records >= maxRecords) {
                    truncated = true;
                    break;
                }
                for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition tp = new TopicPartition(rec.topic(), rec.partition());
                    if (!open.contains(tp)) {
                        continue;
                    }
                    if (rec.timestamp() >= toSeconds * 1000) {
                        // Timestamps are receive times, in order per exporter: the range ends.
                        open.remove(tp);
                        consumer.pause(List.of(tp));
                        continue;
                    }
                    RejectedDatagram d;
                    try {
                        d = RawDatagramCodec.decodeRejected(rec.value());
                    } catch (RuntimeException e) {
                        continue;
                    }
                    if (!exporterFilter.test(d.datagram().exporterAddress().toBytes16())) {
                        continue;
                    }
                    String name = d.datagram().exporterAddress().toString();
                    perExporter
                            .computeIfAbsent(name, x -> new TreeMap<>())
                            .merge(d.reason(), 1L, Long::sum);
                    long bucket = Math.floorDiv(rec.timestamp() / 1000, step) * step;
                    buckets.computeIfAbsent(bucket, x -> new TreeMap<>())
                            .merge(name, 1L, Long::sum);
                    records++;
                }
                for (TopicPartition tp : List.copyOf(open)) {
                    if (consumer.position(tp, Duration.ofSeconds(5)) >= end.get(tp)) {
                        open.remove(tp);
                    }
                }
            }
            return new Counts(perExporter, buckets, records, truncated, null);
        } catch (RuntimeException e) {
            return new Counts(perExporter, buckets, records, true, e.toString());
        }
    }
}
