// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.services.ServicesConfig;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaBrokerConfigTest {

    private static final String VOTERS = "1@127.0.0.1:9093,2@127.0.0.1:9095,3@127.0.0.1:9097";

    @Test
    void threeNodesReplicateEveryTopicThreeTimesAndNeedTwoInSync() {
        Map<String, String> p =
                KafkaBrokerConfig.quorumProperties(
                        2, 3, VOTERS, 9094, 9095, Path.of("/tmp/kafka-2/data"), 4);

        assertThat(p)
                .containsEntry("node.id", "2")
                .containsEntry("process.roles", "broker,controller")
                .containsEntry("controller.quorum.voters", VOTERS)
                .containsEntry(
                        "listeners", "PLAINTEXT://127.0.0.1:9094,CONTROLLER://127.0.0.1:9095")
                .containsEntry("default.replication.factor", "3")
                .containsEntry("min.insync.replicas", "2")
                .containsEntry("offsets.topic.replication.factor", "3")
                .containsEntry("transaction.state.log.replication.factor", "3")
                .containsEntry("transaction.state.log.min.isr", "2");
    }

    @Test
    void twoNodesReplicateTwiceAndAcceptOneInSync() {
        Map<String, String> p =
                KafkaBrokerConfig.quorumProperties(
                        1, 2, "1@127.0.0.1:9093,2@127.0.0.1:9095", 9092, 9093, Path.of("d"), 4);

        assertThat(p)
                .containsEntry("default.replication.factor", "2")
                .containsEntry("min.insync.replicas", "1");
        assertThat(KafkaBrokerConfig.quorumProperties(1, 5, VOTERS, 9092, 9093, Path.of("d"), 4))
                .containsEntry("default.replication.factor", "3")
                .containsEntry("min.insync.replicas", "2");
    }

    @Test
    void nodesTakeTheirPortsByOffsetAndClientsKnowEveryBroker() {
        ServicesConfig config =
                ServicesConfig.defaults(Path.of("/tmp/flowhouse-root")).withKafkaBrokers(3);

        assertThat(config.kafkaBootstrap())
                .isEqualTo("127.0.0.1:9092,127.0.0.1:9094,127.0.0.1:9096");
        assertThat(new KafkaProcess(config, 2).ports()).containsExactly(9096, 9097);
        assertThat(new KafkaProcess(config, 2).name()).isEqualTo("kafka-3");
        assertThat(new KafkaProcess(config, 0).name()).isEqualTo("kafka");
        assertThat(new KafkaProcess(config.withKafkaBrokers(1)).endpoint())
                .startsWith("127.0.0.1:9092 (KRaft broker+controller");
    }
}
