// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
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
 * Every test capture, produced to {@code flows.raw} as the agent would (one exporter per capture),
 * goes through the production topology on a MiniCluster (2 TaskManagers x 2 slots) into a real
 * ClickHouse, and the per-exporter totals there equal the README's ground truth; nothing is
 * dead-lettered.
 */
class FlowPipelineITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void everyCaptureLandsInClickHouseWithTheGroundTruthTotals() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(), ch, "gt", "--kafka.stop", "latest");
        List<RawDatagram> all = new ArrayList<>();
        for (int i = 0; i < CaptureProducer.CAPTURES.size(); i++) {
            all.addAll(
                    CaptureProducer.datagrams(
                            CaptureProducer.CAPTURES.get(i).file(),
                            IpAddress.parse("192.0.2." + (10 + i)),
                            40_000 + i));
        }
        KAFKA.createTopic(s.rawTopic(), 4);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), all);

        PipelineHarness.environment(s, ch).execute("ground truth");

        List<List<String>> rows =
                ch.queryRows(
                        "SELECT exporter_port, count(), sum(packets + reverse_packets),"
                                + " sum(bytes + reverse_bytes), uniqExact(row_id)"
                                + " FROM flowhouse_gt.flows FINAL"
                                + " GROUP BY exporter_port ORDER BY exporter_port");
        assertThat(rows).hasSize(CaptureProducer.CAPTURES.size());
        for (int i = 0; i < rows.size(); i++) {
            CaptureProducer.Capture c = CaptureProducer.CAPTURES.get(i);
            List<String> r = rows.get(i);
            assertThat(r.get(0)).isEqualTo(Integer.toString(40_000 + i));
            assertThat(Long.parseLong(r.get(2))).as(c.file() + " packets").isEqualTo(c.packets());
            assertThat(Long.parseLong(r.get(3))).as(c.file() + " bytes").isEqualTo(c.bytes());
            assertThat(Long.parseLong(r.get(1))).as(c.file() + " records").isEqualTo(c.records());
            assertThat(r.get(4)).as(c.file() + " distinct row ids").isEqualTo(r.get(1));
        }
        // The captures are clean (softflowd's odd field lengths and padding included): no dead
        // letters.
        assertThat(deadLetters(s.rejectedTopic()))
                .as("dead letters (port reason detail)")
                .isEmpty();
    }

    /** Every record of the rejected topic, counted by exporter port, reason and detail. */
    private static Map<String, Long> deadLetters(String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        Map<String, Long> seen = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
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
                    RejectedDatagram d = RawDatagramCodec.decodeRejected(r.value());
                    seen.merge(
                            d.datagram().exporterPort() + " " + d.reason() + " " + d.detail(),
                            1L,
                            Long::sum);
                }
            }
            assertThat(parts).allSatisfy(tp -> assertThat(c.position(tp)).isEqualTo(end.get(tp)));
        }
        return seen;
    }
}
