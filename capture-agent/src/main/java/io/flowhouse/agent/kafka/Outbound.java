// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.kafka;

import java.util.Arrays;
import java.util.Objects;

/**
 * One record on its way to Kafka, in the form the spool keeps it.
 *
 * @param topic destination topic
 * @param partition explicit partition, or -1 to let the key choose
 * @param timestampMillis record timestamp (the receive time)
 * @param key record key, may be null
 * @param value record value
 * @param reason value of the {@code reason} header (rejected datagrams), or null for none
 * @param datagrams datagrams the record carries (more than 1 for a batch record), so that what is
 *     dropped is counted per datagram
 */
public record Outbound(
        String topic,
        int partition,
        long timestampMillis,
        byte[] key,
        byte[] value,
        String reason,
        int datagrams) {

    public Outbound {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(value, "value");
        if (datagrams < 1) {
            throw new IllegalArgumentException("a record of " + datagrams + " datagrams");
        }
    }

    /** A record of one datagram (or one packet batch). */
    public Outbound(
            String topic,
            int partition,
            long timestampMillis,
            byte[] key,
            byte[] value,
            String reason) {
        this(topic, partition, timestampMillis, key, value, reason, 1);
    }

    /** Approximate bytes held, for bounds. */
    public int size() {
        return value.length + (key == null ? 0 : key.length) + topic.length() + 32;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Outbound other
                && topic.equals(other.topic)
                && partition == other.partition
                && timestampMillis == other.timestampMillis
                && Arrays.equals(key, other.key)
                && Arrays.equals(value, other.value)
                && Objects.equals(reason, other.reason)
                && datagrams == other.datagrams;
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, timestampMillis, reason, datagrams)
                + 31 * Arrays.hashCode(key)
                + 961 * Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Outbound["
                + topic
                + "/"
                + partition
                + ", "
                + value.length
                + " bytes"
                + (datagrams == 1 ? "" : ", " + datagrams + " datagrams")
                + "]";
    }
}
