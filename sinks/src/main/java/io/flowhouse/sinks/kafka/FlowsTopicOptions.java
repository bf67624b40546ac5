// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * The decoded-flows topic sink's settings, checked once here ({@link FlowsTopicKeys} reads them).
 *
 * @param topic the topic ({@code flows.decoded} by default)
 * @param format the value format
 * @param partitions partitions when the job creates the topic; 0 takes the broker's default
 * @param compression the producer's {@code compression.type}
 * @param batchBytes the producer's {@code batch.size}
 * @param linger the producer's {@code linger.ms}
 * @param delivery exactly once (transactions on checkpoints) or at least once
 * @param transactionalIdPrefix the prefix of the sink's transactional ids (exactly once)
 * @param transactionTimeout the producer's {@code transaction.timeout.ms} (exactly once)
 */
public record FlowsTopicOptions(
        String topic,
        FlowsTopicFormat format,
        int partitions,
        String compression,
        long batchBytes,
        Duration linger,
        FlowsTopicDelivery delivery,
        String transactionalIdPrefix,
        Duration transactionTimeout)
        implements Serializable {

    /** The producer's compression types. */
    public static final Set<String> COMPRESSIONS = Set.of("none", "gzip", "snappy", "lz4", "zstd");

    public FlowsTopicOptions {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(delivery, "delivery");
        if (topic == null || topic.isBlank()) {
            throw new IllegalArgumentException("flows-topic.topic is empty");
        }
        if (partitions < 0) {
            throw new IllegalArgumentException(
                    "flows-topic.partitions = " + partitions + " (expected: >= 0)");
        }
        if (!COMPRESSIONS.contains(compression)) {
            throw new IllegalArgumentException(
                    "flows-topic.compression = "
                            + compression
                            + " (expected: none, gzip, snappy, lz4, zstd)");
        }
        if (batchBytes < 1 || batchBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "flows-topic.batch-size = " + batchBytes + " (expected: 1..2^31-1 bytes)");
        }
        if (linger.isNegative()) {
            throw new IllegalArgumentException(
                    "flows-topic.linger = " + linger + " (expected: >= 0)");
        }
        if (transactionalIdPrefix == null || transactionalIdPrefix.isBlank()) {
            throw new IllegalArgumentException("flows-topic.transactional-id-prefix is empty");
        }
        if (transactionTimeout.toMillis() < 1000) {
            throw new IllegalArgumentException(
                    "flows-topic.transaction-timeout = "
                            + transactionTimeout
                            + " (expected: >= 1s, and at most the broker's"
                            + " transaction.max.timeout.ms)");
        }
    }

    /** The defaults, writing to {@code topic}. */
    public static FlowsTopicOptions defaults(String topic) {
        return new FlowsTopicOptions(
                topic,
                FlowsTopicFormat.FLOWHOUSE,
                0,
                "lz4",
                1L << 20,
                Duration.ofMillis(20),
                FlowsTopicDelivery.EXACTLY_ONCE,
                "flowhouse-flows",
                Duration.ofMinutes(10));
    }

    public FlowsTopicOptions withFormat(FlowsTopicFormat f) {
        return new FlowsTopicOptions(
                topic,
                f,
                partitions,
                compression,
                batchBytes,
                linger,
                delivery,
                transactionalIdPrefix,
                transactionTimeout);
    }

    public FlowsTopicOptions withDelivery(FlowsTopicDelivery d) {
        return new FlowsTopicOptions(
                topic,
                format,
                partitions,
                compression,
                batchBytes,
                linger,
                d,
                transactionalIdPrefix,
                transactionTimeout);
    }
}
