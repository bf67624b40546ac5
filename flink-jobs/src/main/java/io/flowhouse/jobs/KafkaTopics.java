// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.kafka.TopicAdmin;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/**
 * The job's topics, created by the one topic creator ({@link TopicAdmin}) when they are missing,
 * with the broker's default partition count and replication: {@code flows.raw}, {@code
 * flows.rejected}, {@code packets.raw} (when the packets path is on, so its source finds
 * partitions), {@code flows.templates} as a compacted topic (one live value per template key, kept
 * forever), and the decoded-flows topic when it is on (with its configured partitions).
 */
public final class KafkaTopics {

    private KafkaTopics() {}

    public static void ensure(PipelineSettings s) throws InterruptedException {
        List<String> plain = new ArrayList<>(List.of(s.rawTopic(), s.rejectedTopic()));
        if (s.ageing().enabled()) {
            plain.add(s.ageing().topic());
        }
        ensure(s, plain, s.decode().archiveTemplates() ? s.templatesTopic() : null);
        if (s.flowsTopic() != null) {
            int partitions = s.flowsTopic().partitions();
            try (TopicAdmin admin =
                    TopicAdmin.connect(s.bootstrapServers(), s.kafkaClientProperties())) {
                admin.createMissing(
                        List.of(
                                TopicAdmin.topic(
                                        s.flowsTopic().topic(),
                                        partitions == 0 ? null : partitions,
                                        Map.of())));
            }
        }
    }

    /**
     * Creates the plain topics that are missing, and the compacted one when not null and missing.
     */
    public static void ensure(PipelineSettings s, List<String> plain, String compacted)
            throws InterruptedException {
        List<NewTopic> topics = new ArrayList<>();
        for (String t : plain) {
            topics.add(TopicAdmin.topic(t, null, Map.of()));
        }
        if (compacted != null) {
            topics.add(
                    TopicAdmin.topic(
                            compacted,
                            1,
                            Map.of(
                                    TopicConfig.CLEANUP_POLICY_CONFIG,
                                    TopicConfig.CLEANUP_POLICY_COMPACT)));
        }
        try (TopicAdmin admin =
                TopicAdmin.connect(s.bootstrapServers(), s.kafkaClientProperties())) {
            admin.createMissing(topics);
        }
    }
}
