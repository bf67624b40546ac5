// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import java.io.Serializable;
import java.util.Locale;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * Where the job starts reading {@code flows.raw} when it does not restore from a checkpoint.
 *
 * @param mode how the start offset is chosen
 * @param timestampMillis the epoch-ms timestamp for {@link Mode#TIMESTAMP}, else 0
 */
public record StartPosition(Mode mode, long timestampMillis) implements Serializable {

    /** How the start offset is chosen. */
    public enum Mode {
        EARLIEST,
        LATEST,
        COMMITTED,
        TIMESTAMP
    }

    public static StartPosition earliest() {
        return new StartPosition(Mode.EARLIEST, 0L);
    }

    /** Parses {@code earliest|latest|committed|timestamp:<epoch-ms>}. */
    public static StartPosition parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.startsWith("timestamp:")) {
            long ts;
            try {
                ts = Long.parseLong(t.substring("timestamp:".length()).trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "bad start " + text + " (expected: timestamp:<epoch-ms>)", e);
            }
            if (ts < 0) {
                throw new IllegalArgumentException(
                        "start timestamp " + ts + " is negative (expected: epoch ms >= 0)");
            }
            return new StartPosition(Mode.TIMESTAMP, ts);
        }
        return switch (t) {
            case "earliest" -> new StartPosition(Mode.EARLIEST, 0L);
            case "latest" -> new StartPosition(Mode.LATEST, 0L);
            case "committed" -> new StartPosition(Mode.COMMITTED, 0L);
            default ->
                    throw new IllegalArgumentException(
                            "unknown start "
                                    + text
                                    + " (expected: earliest, latest, committed or"
                                    + " timestamp:<epoch-ms>)");
        };
    }

    /** True when data before the start point exists and earlier templates must be recovered. */
    public boolean skipsHistory() {
        return mode != Mode.EARLIEST;
    }

    // The connector's committedOffsets(...) still takes Kafka's deprecated OffsetResetStrategy.
    @SuppressWarnings("deprecation")
    public OffsetsInitializer toOffsetsInitializer() {
        return switch (mode) {
            case EARLIEST -> OffsetsInitializer.earliest();
            case LATEST -> OffsetsInitializer.latest();
            case COMMITTED -> OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
            case TIMESTAMP -> OffsetsInitializer.timestamp(timestampMillis);
        };
    }

    @Override
    public String toString() {
        return mode == Mode.TIMESTAMP
                ? "timestamp:" + timestampMillis
                : mode.name().toLowerCase(Locale.ROOT);
    }
}
