// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.kafka.TopicAdmin;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The one topic creator against a real broker in this JVM. */
class TopicAdminITCase {

    private static InProcessKafka kafka;

    @BeforeAll
    static void start() {
        kafka = InProcessKafka.builder().partitions(2).build().start();
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    @Test
    void createsWhatIsMissingOnceWithItsPartitionsAndConfigs() throws Exception {
        try (TopicAdmin topics = kafka.topicAdmin()) {
            List<String> created =
                    topics.createMissing(
                            List.of(
                                    TopicAdmin.topic("t.default", null, Map.of()),
                                    TopicAdmin.topic(
                                            "t.compacted",
                                            1,
                                            Map.of("cleanup.policy", "compact"))));
            List<String> again =
                    topics.createMissing(List.of(TopicAdmin.topic("t.default", 3, Map.of())));

            assertThat(created).containsExactlyInAnyOrder("t.default", "t.compacted");
            assertThat(again).isEmpty();
            assertThat(topics.names()).contains("t.default", "t.compacted");
            assertThat(topics.isReady("t.default"))
                    .as("createMissing returns once its topics serve writes (KAFKA-15591)")
                    .isTrue();
            assertThat(topics.isReady("t.compacted")).isTrue();
            assertThat(topics.isReady("t.nowhere")).isFalse();
        }
        try (Admin admin = kafka.createAdmin()) {
            assertThat(
                            admin.describeTopics(List.of("t.default"))
                                    .allTopicNames()
                                    .get()
                                    .get("t.default")
                                    .partitions())
                    .as("the broker's default partition count")
                    .hasSize(2);
            ConfigResource compacted = new ConfigResource(ConfigResource.Type.TOPIC, "t.compacted");
            ConfigEntry policy =
                    admin.describeConfigs(List.of(compacted))
                            .all()
                            .get()
                            .get(compacted)
                            .get("cleanup.policy");
            assertThat(policy.value()).isEqualTo("compact");
        }
    }

    @Test
    void countsRecordsAndDeletes() throws Exception {
        try (TopicAdmin topics = kafka.topicAdmin()) {
            topics.createMissing(List.of(TopicAdmin.topic("t.count", 2, Map.of())));
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            try (KafkaProducer<byte[], byte[]> producer =
                    new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
                for (int i = 0; i < 25; i++) {
                    producer.send(new ProducerRecord<>("t.count", new byte[] {(byte) i}));
                }
                producer.flush();
            }

            assertThat(topics.records("t.count")).isEqualTo(25);

            topics.deleteQuietly("t.count");
            topics.deleteQuietly("t.never-was");
            assertThat(topics.names()).doesNotContain("t.count");
        }
    }
}
