// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class EmbeddedKafkaITCase {

    /** Event time of the shared packet trace: replayed records carry timestamps this old. */
    private static final long OLD_EVENT_TIME = Instant.parse("2024-01-15T12:00:00Z").toEpochMilli();

    private static final Duration CONSUME_TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(3).build();

    @Test
    void producesAndConsumesOnAnAutoCreatedTopicWithTheDefaultPartitions() throws Exception {
        String topic = "auto-created";
        try (KafkaProducer<String, String> producer = producer(KAFKA)) {
            for (int i = 0; i < 300; i++) {
                producer.send(new ProducerRecord<>(topic, "exporter-" + (i % 7), "flow-" + i));
            }
            producer.flush();
        }

        List<ConsumerRecord<String, String>> records = consumeAll(KAFKA, topic, 300);

        assertThat(records).extracting(ConsumerRecord::value).hasSize(300).doesNotHaveDuplicates();
        assertThat(records).extracting(ConsumerRecord::partition).containsOnly(0, 1, 2);
        try (Admin admin = KAFKA.createAdmin()) {
            TopicDescription description =
                    admin.describeTopics(List.of(topic))
                            .allTopicNames()
                            .get(30, TimeUnit.SECONDS)
                            .get(topic);
            assertThat(description.partitions()).hasSize(3);
        }
    }

    @Test
    void createsTopicsWithChosenPartitionsAndConfigs() {
        KAFKA.createTopic("templates", 2, Map.of("cleanup.policy", "compact"));
        KAFKA.createTopic("templates", 2, Map.of("cleanup.policy", "compact"));

        assertThat(KAFKA.topics()).contains("templates");
    }

    @Test
    void restartOnTheSamePortKeepsDataAndOldTimestamps() throws Exception {
        String topic = "restart";
        int portBefore = KAFKA.port();
        KAFKA.createTopic(topic, 2);
        try (KafkaProducer<String, String> producer = producer(KAFKA)) {
            for (int i = 0; i < 200; i++) {
                producer.send(
                        new ProducerRecord<>(topic, null, OLD_EVENT_TIME + i, "k" + i, "v" + i));
            }
            producer.flush();
        }

        KAFKA.stop();
        assertThat(KAFKA.isRunning()).isFalse();
        KAFKA.start();

        assertThat(KAFKA.port()).isEqualTo(portBefore);
        List<ConsumerRecord<String, String>> records = consumeAll(KAFKA, topic, 200);
        assertThat(records).extracting(ConsumerRecord::value).hasSize(200).doesNotHaveDuplicates();
        assertThat(records)
                .allSatisfy(
                        r ->
                                assertThat(r.timestamp())
                                        .isBetween(OLD_EVENT_TIME, OLD_EVENT_TIME + 199));
    }

    @Test
    void idempotentProducerRidesOverABrokerStopMidStream() throws Exception {
        String topic = "mid-stream";
        KAFKA.createTopic(topic, 3);
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer(KAFKA)) {
            for (int i = 0; i < 500; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, "k" + (i % 11), "m" + i)));
            }
            producer.flush();

            KAFKA.stop();
            // The broker comes back on another thread while these sends wait in the producer
            // (each blocks at most max.block.ms for metadata) and retry until it answers.
            CompletableFuture<Void> restart =
                    CompletableFuture.runAsync(
                            () -> {
                                sleepQuietly(Duration.ofSeconds(1));
                                KAFKA.start();
                            });
            for (int i = 500; i < 1000; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, "k" + (i % 11), "m" + i)));
            }
            restart.get(120, TimeUnit.SECONDS);
            producer.flush();
        }
        for (Future<RecordMetadata> ack : acks) {
            assertThat(ack.get(60, TimeUnit.SECONDS).offset()).isNotNegative();
        }

        List<ConsumerRecord<String, String>> records = consumeAll(KAFKA, topic, 1000);

        assertThat(records).extracting(ConsumerRecord::value).hasSize(1000).doesNotHaveDuplicates();
    }

    @Test
    void anInstanceCanBeUsedWithTryWithResources() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.create().start()) {
            try (KafkaProducer<String, String> producer = producer(kafka)) {
                producer.send(new ProducerRecord<>("solo", "k", "v")).get(30, TimeUnit.SECONDS);
            }
            assertThat(consumeAll(kafka, "solo", 1))
                    .extracting(ConsumerRecord::value)
                    .containsExactly("v");
            assertThat(kafka.dataDir()).exists();
        }
    }

    private static void sleepQuietly(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static KafkaProducer<String, String> producer(EmbeddedKafka kafka) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "120000");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    private static List<ConsumerRecord<String, String>> consumeAll(
            EmbeddedKafka kafka, String topic, int expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "it-" + topic + "-" + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        long deadline = System.nanoTime() + CONSUME_TIMEOUT.toNanos();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            // Bounded in time; reads one more poll after the expected count to catch duplicates.
            boolean extraPollDone = false;
            while (System.nanoTime() < deadline && !extraPollDone) {
                if (records.size() >= expected) {
                    extraPollDone = true;
                }
                consumer.poll(Duration.ofMillis(500)).forEach(records::add);
            }
        }
        return records;
    }
}
