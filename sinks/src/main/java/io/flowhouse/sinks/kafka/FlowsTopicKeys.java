// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import io.flowhouse.config.ValueType;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The keys of the decoded-flows topic ({@code flowhouse.flows-topic.*}), declared once, and the
 * {@link FlowsTopicOptions} they resolve to. The sink is off until {@link #ENABLED} is true. The
 * key table in {@code sinks/README-kafka.md} is generated from these declarations.
 */
public final class FlowsTopicKeys {

    private static final FlowsTopicOptions DEFAULTS = FlowsTopicOptions.defaults("flows.decoded");

    private static final ValueType<FlowsTopicDelivery> DELIVERY =
            ValueType.of(
                    "one of exactly-once, at-least-once",
                    text -> {
                        for (FlowsTopicDelivery d : FlowsTopicDelivery.values()) {
                            if (d.word().equalsIgnoreCase(text.trim())) {
                                return d;
                            }
                        }
                        throw new IllegalArgumentException(
                                "(expected: exactly-once, at-least-once)");
                    },
                    FlowsTopicDelivery::word);

    public static final Key<Boolean> ENABLED =
            Key.of("flows-topic.enabled", Types.BOOLEAN)
                    .defaultValue(false)
                    .doc(
                            "Write every decoded flow to a Kafka topic, keyed by exporter."
                                    + " `./flowhouse up --flows-topic [TOPIC]`.");

    public static final Key<String> TOPIC =
            Key.of("flows-topic.topic", Types.STRING)
                    .defaultValue(DEFAULTS.topic())
                    .check(s -> !s.isBlank(), "a topic name")
                    .doc("The topic; created at submit when missing.");

    public static final Key<FlowsTopicFormat> FORMAT =
            Key.of("flows-topic.format", Types.enumOf(FlowsTopicFormat.class))
                    .defaultValue(DEFAULTS.format())
                    .doc(
                            "flowhouse: one flowhouse.v1.Flow per record (flow-schema/, the"
                                    + " published schema); goflow2: goflow2's FlowMessage,"
                                    + " length-delimited as goflow2 writes it, for goflow2's"
                                    + " consumers. `--flows-topic-format`.");

    public static final Key<Integer> PARTITIONS =
            Key.of("flows-topic.partitions", Types.integer(0, 1_000_000))
                    .defaultValue(DEFAULTS.partitions())
                    .doc(
                            "Partitions when the job creates the topic; 0 takes the broker's"
                                    + " default. An existing topic is left as it is.");

    public static final Key<String> COMPRESSION =
            Key.of("flows-topic.compression", Types.oneOf("none", "gzip", "snappy", "lz4", "zstd"))
                    .defaultValue(DEFAULTS.compression())
                    .doc("Producer compression.type.");

    public static final Key<Long> BATCH_SIZE =
            Key.of("flows-topic.batch-size", Types.size(1, Integer.MAX_VALUE))
                    .defaultValue(DEFAULTS.batchBytes())
                    .doc("Producer batch.size: bytes per partition batch.");

    public static final Key<Duration> LINGER =
            Key.of("flows-topic.linger", Types.duration(ChronoUnit.MILLIS, Duration.ZERO, null))
                    .defaultValue(DEFAULTS.linger())
                    .doc("Producer linger.ms: how long a batch waits to fill.");

    public static final Key<FlowsTopicDelivery> DELIVERY_GUARANTEE =
            Key.of("flows-topic.delivery-guarantee", DELIVERY)
                    .defaultValue(DEFAULTS.delivery())
                    .doc(
                            "exactly-once: Kafka transactions committed on checkpoints; a"
                                    + " read_committed consumer sees each flow once, up to one"
                                    + " checkpoint interval (job.checkpoint-interval) after it was"
                                    + " decoded. at-least-once: visible after linger, duplicates"
                                    + " (same row_id) after a failure.");

    public static final Key<String> TRANSACTIONAL_ID_PREFIX =
            Key.of("flows-topic.transactional-id-prefix", Types.STRING)
                    .defaultValue(DEFAULTS.transactionalIdPrefix())
                    .check(s -> !s.isBlank(), "a prefix")
                    .doc(
                            "Prefix of the sink's transactional ids (exactly-once); unique per job"
                                    + " writing to one cluster.");

    public static final Key<Duration> TRANSACTION_TIMEOUT =
            Key.of(
                            "flows-topic.transaction-timeout",
                            Types.duration(ChronoUnit.MILLIS, Duration.ofSeconds(1), null))
                    .defaultValue(DEFAULTS.transactionTimeout())
                    .doc(
                            "Producer transaction.timeout.ms (exactly-once): longer than a"
                                    + " checkpoint interval plus a restart, at most the broker's"
                                    + " transaction.max.timeout.ms (15 min by default).");

    /** In declaration order. */
    public static final List<Key<?>> KEYS =
            List.of(
                    ENABLED,
                    TOPIC,
                    FORMAT,
                    PARTITIONS,
                    COMPRESSION,
                    BATCH_SIZE,
                    LINGER,
                    DELIVERY_GUARANTEE,
                    TRANSACTIONAL_ID_PREFIX,
                    TRANSACTION_TIMEOUT);

    /** These keys alone under {@code flowhouse}, for their README table. */
    public static final ConfigSchema SCHEMA =
            ConfigSchema.of("flowhouse", "decoded-flows topic", KEYS);

    private FlowsTopicKeys() {}

    /**
     * The sink's options, or null when {@link #ENABLED} is false: the topic is off by default.
     *
     * @throws ConfigException naming the first bad key
     */
    public static FlowsTopicOptions options(Config c) {
        if (!c.get(ENABLED)) {
            return null;
        }
        try {
            return new FlowsTopicOptions(
                    c.get(TOPIC),
                    c.get(FORMAT),
                    c.get(PARTITIONS),
                    c.get(COMPRESSION),
                    c.get(BATCH_SIZE),
                    c.get(LINGER),
                    c.get(DELIVERY_GUARANTEE),
                    c.get(TRANSACTIONAL_ID_PREFIX),
                    c.get(TRANSACTION_TIMEOUT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("config " + e.getMessage(), e);
        }
    }
}
