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
 * flows.rejected}, and {@code flows.templates} as a compacted topic (one live value per template
 * key, kept forever).
 */
public final class KafkaTopics {

    private KafkaTopics() {}

    public static void ensure(PipelineSettings s) throws InterruptedException {
        List<NewTopic> topics = new ArrayList<>();
        topics.add(TopicAdmin.topic(s.rawTopic(), null, Map.of()));
        topics.add(TopicAdmin.topic(s.rejectedTopic(), null, Map.of()));
        if (s.decode().archiveTemplates()) {
            topics.add(
                    TopicAdmin.topic(
                            s.templatesTopic(),
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
