// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import io.flowhouse.jobs.config.PipelineSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the job's topics when they are missing, with the broker's default partition count and
 * replication: {@code flows.raw}, {@code flows.rejected}, {@code packets.raw} (when the packets
 * path is on, so its source finds partitions), and {@code flows.templates} as a compacted topic
 * (one live value per template key, kept forever).
 */
public final class KafkaTopics {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaTopics.class);
    private static final long TIMEOUT_SECONDS = 60;

    private KafkaTopics() {}

    public static void ensure(PipelineSettings s) throws InterruptedException {
        List<String> plain = new ArrayList<>(List.of(s.rawTopic(), s.rejectedTopic()));
        if (s.ageing().enabled()) {
            plain.add(s.ageing().topic());
        }
        ensure(s, plain, s.decode().archiveTemplates() ? s.templatesTopic() : null);
    }

    /**
     * Creates the plain topics that are missing, and the compacted one when not null and missing.
     */
    public static void ensure(PipelineSettings s, List<String> plain, String compacted)
            throws InterruptedException {
        Properties p = s.kafkaClientProperties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrapServers());
        try (Admin admin = Admin.create(p)) {
            Set<String> existing =
                    admin.listTopics().names().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            for (String t : plain) {
                if (!existing.contains(t)) {
                    missing.add(new NewTopic(t, Optional.empty(), Optional.empty()));
                }
            }
            if (compacted != null && !existing.contains(compacted)) {
                missing.add(
                        new NewTopic(compacted, Optional.of(1), Optional.empty())
                                .configs(
                                        Map.of(
                                                TopicConfig.CLEANUP_POLICY_CONFIG,
                                                TopicConfig.CLEANUP_POLICY_COMPACT)));
            }
            if (missing.isEmpty()) {
                return;
            }
            for (var e : admin.createTopics(missing).values().entrySet()) {
                try {
                    e.getValue().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    LOG.info("created topic {}", e.getKey());
                } catch (ExecutionException ex) {
                    if (!(ex.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create topic " + e.getKey(), ex);
                    }
                }
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "cannot reach Kafka at " + s.bootstrapServers() + " to check topics", e);
        }
    }
}
