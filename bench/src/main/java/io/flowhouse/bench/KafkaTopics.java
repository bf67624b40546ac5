// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/** Creates benchmark topics and counts their records (sum of end offsets). */
final class KafkaTopics implements AutoCloseable {
    private final Admin admin;

    KafkaTopics(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        this.admin = Admin.create(p);
    }

    void create(String topic, int partitions)
            throws InterruptedException, ExecutionException, TimeoutException {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                .all()
                .get(30, TimeUnit.SECONDS);
        // A new topic's partitions take a moment to show up in the broker's metadata.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                records(topic);
                return;
            } catch (ExecutionException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    /** Records in the topic: the sum of its partitions' end offsets (nothing is deleted here). */
    long records(String topic) throws InterruptedException, ExecutionException, TimeoutException {
        TopicDescription d =
                admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get(20, TimeUnit.SECONDS)
                        .get(topic);
        Map<TopicPartition, OffsetSpec> want = new HashMap<>();
        d.partitions()
                .forEach(
                        p ->
                                want.put(
                                        new TopicPartition(topic, p.partition()),
                                        OffsetSpec.latest()));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> got =
                admin.listOffsets(want).all().get(20, TimeUnit.SECONDS);
        long sum = 0;
        for (ListOffsetsResult.ListOffsetsResultInfo i : got.values()) {
            sum += i.offset();
        }
        return sum;
    }

    void delete(String topic) {
        try {
            admin.deleteTopics(List.of(topic)).all().get(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // best effort: a leftover benchmark topic is harmless
        }
    }

    @Override
    public void close() {
        admin.close(java.time.Duration.ofSeconds(5));
    }
}
