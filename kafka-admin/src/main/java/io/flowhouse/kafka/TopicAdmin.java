// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one topic creator: creates the topics that do not exist yet (one that appears meanwhile, made
 * by another creator, is fine), lists topics, counts a topic's records and deletes it. The job
 * creates its topics with it at start, the local brokers of the tests and the demo theirs, the
 * bench its per-run topics.
 *
 * <pre>{@code
 * try (TopicAdmin topics = TopicAdmin.connect("127.0.0.1:9092", new Properties())) {
 *     topics.createMissing(List.of(TopicAdmin.topic("flows.raw", 4, Map.of())));
 * }
 * }</pre>
 */
public final class TopicAdmin implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TopicAdmin.class);

    /** How long one admin request may take before the call fails. */
    private static final long TIMEOUT_SECONDS = 60;

    /** How often {@link #awaitReady} asks whether a new topic serves writes. */
    private static final long READY_POLL_MILLIS = 50;

    private final Admin admin;
    private final String bootstrapServers;

    private TopicAdmin(Admin admin, String bootstrapServers) {
        this.admin = admin;
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * An admin client for {@code bootstrapServers} with the client properties given (security
     * settings, for example); closed with this object.
     */
    public static TopicAdmin connect(String bootstrapServers, Properties clientProperties) {
        Properties p = new Properties();
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        p.putAll(clientProperties);
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return new TopicAdmin(Admin.create(p), bootstrapServers);
    }

    /**
     * A topic to create: {@code partitions} null takes the broker's default, replication is always
     * the broker's default.
     */
    public static NewTopic topic(String name, Integer partitions, Map<String, String> configs) {
        return new NewTopic(name, Optional.ofNullable(partitions), Optional.empty())
                .configs(configs);
    }

    /** The names of the topics that exist, internal topics excluded. */
    public Set<String> names() throws InterruptedException {
        try {
            return admin.listTopics().names().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "cannot reach Kafka at " + bootstrapServers + " to list topics", e);
        }
    }

    /**
     * Creates those of {@code topics} that do not exist and waits until each of them serves writes
     * ({@link #awaitReady}), so that a producer started right after this returns cannot meet
     * KAFKA-15591; returns the names it created. Topics that existed already are not waited for (a
     * job restarting beside a broker that is down still starts).
     */
    public List<String> createMissing(List<NewTopic> topics) throws InterruptedException {
        Set<String> existing = names();
        List<NewTopic> missing = new ArrayList<>();
        for (NewTopic t : topics) {
            if (!existing.contains(t.name())) {
                missing.add(t);
            }
        }
        List<String> created = new ArrayList<>();
        if (missing.isEmpty()) {
            return created;
        }
        for (var e : admin.createTopics(missing).values().entrySet()) {
            try {
                e.getValue().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                LOG.info("created topic {}", e.getKey());
                created.add(e.getKey());
            } catch (ExecutionException ex) {
                if (!(ex.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException(
                            "cannot create topic " + e.getKey(), ex.getCause());
                }
            } catch (TimeoutException ex) {
                throw new IllegalStateException("timed out creating topic " + e.getKey(), ex);
            }
        }
        // Those another creator made meanwhile are just as new.
        for (NewTopic t : missing) {
            awaitReady(t.name());
        }
        return created;
    }

    /**
     * Waits until {@code topic} serves writes ({@link #isReady}), asking every 50 ms; fails after a
     * minute.
     */
    public void awaitReady(String topic) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (!isReady(topic)) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        "topic "
                                + topic
                                + " at "
                                + bootstrapServers
                                + " has partitions without a leader that serves them after "
                                + TIMEOUT_SECONDS
                                + " s");
            }
            Thread.sleep(READY_POLL_MILLIS);
        }
    }

    /**
     * Whether every partition of {@code topic} has a leader that serves it: each shows in the
     * metadata with a leader, and that leader answers a ListOffsets request for it. A new topic
     * takes a moment after its creation, and the metadata alone says too little: a KRaft broker
     * publishes a new partition's leader in its metadata before its replica manager has taken the
     * lead, and refuses a produce request in between (NOT_LEADER_OR_FOLLOWER). An idempotent
     * producer with several requests in flight can then have its first batch refused and a later
     * one appended (the broker takes any first sequence from a producer it has no state for), and
     * every retry of the first batch fails with OUT_OF_ORDER_SEQUENCE_NUMBER until its delivery
     * timeout expires it (KAFKA-15591). ListOffsets passes the same leader check as a produce
     * request.
     */
    public boolean isReady(String topic) throws InterruptedException {
        try {
            TopicDescription d =
                    admin.describeTopics(List.of(topic))
                            .allTopicNames()
                            .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                            .get(topic);
            if (d == null
                    || d.partitions().isEmpty()
                    || !d.partitions().stream().allMatch(p -> p.leader() != null)) {
                return false;
            }
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            d.partitions()
                    .forEach(
                            p ->
                                    latest.put(
                                            new TopicPartition(topic, p.partition()),
                                            OffsetSpec.latest()));
            admin.listOffsets(latest).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    /** Records in the topic: the sum of its partitions' end offsets (nothing deleted assumed). */
    public long records(String topic) throws InterruptedException {
        try {
            TopicDescription d =
                    admin.describeTopics(List.of(topic))
                            .allTopicNames()
                            .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                            .get(topic);
            Map<TopicPartition, OffsetSpec> want = new HashMap<>();
            d.partitions()
                    .forEach(
                            p ->
                                    want.put(
                                            new TopicPartition(topic, p.partition()),
                                            OffsetSpec.latest()));
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> got =
                    admin.listOffsets(want).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            long sum = 0;
            for (ListOffsetsResult.ListOffsetsResultInfo i : got.values()) {
                sum += i.offset();
            }
            return sum;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot count the records of " + topic, e);
        }
    }

    /** Deletes the topic; a failure is ignored (a leftover topic is harmless to its creator). */
    public void deleteQuietly(String topic) {
        try {
            admin.deleteTopics(List.of(topic)).all().get(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("topic {} not deleted", topic, e);
        }
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
