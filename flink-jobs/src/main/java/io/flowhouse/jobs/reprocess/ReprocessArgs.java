// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.reprocess;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;

/**
 * The command line of {@code ./flowhouse job reprocess}: {@code --from T1 --to T2 [--topic
 * flows.raw|packets.raw|all] [--target-database DB] [--resolutions 1m,1h]}, everything else passed
 * on as job options ({@code --key value}).
 *
 * <p>T1 and T2 are Kafka record timestamps (when the agent received the datagram or sent the packet
 * batch): an ISO-8601 instant ({@code 2024-01-15T12:00:00Z}), epoch milliseconds, {@code earliest}
 * (T1) or {@code latest} (T2). The range is [T1, T2): the first offset of each partition whose
 * timestamp is at or after T1, up to (not including) the first at or after T2.
 *
 * @param fromMillis start, epoch ms; -1 for earliest
 * @param toMillis end (exclusive), epoch ms; -1 for the latest offsets at start
 * @param topics which topics: "flows", "packets" or both
 * @param targetDatabase ClickHouse database to write, or null for the configured one
 * @param resolutions rollup resolutions text ({@code 1m,1h}), or null for the configured ones
 * @param passThrough the remaining {@code --key value} arguments
 */
public record ReprocessArgs(
        long fromMillis,
        long toMillis,
        List<String> topics,
        String targetDatabase,
        String resolutions,
        List<String> passThrough) {

    public static final String USAGE =
            "usage: job reprocess --from T1 --to T2 [--topic flows.raw|packets.raw|all]"
                    + " [--target-database DB] [--resolutions 1m,1h] [--key value ...]\n"
                    + "  T: ISO-8601 instant, epoch ms, earliest (T1) or latest (T2); the range is"
                    + " [T1, T2) of Kafka record timestamps";

    public ReprocessArgs {
        topics = List.copyOf(topics);
        passThrough = List.copyOf(passThrough);
        if (fromMillis >= 0 && toMillis >= 0 && toMillis <= fromMillis) {
            throw new IllegalArgumentException(
                    "empty range [" + fromMillis + ", " + toMillis + ") (expected: T1 < T2)");
        }
    }

    public static ReprocessArgs parse(String[] args) {
        Long from = null;
        Long to = null;
        String topic = "all";
        String db = null;
        String res = null;
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v;
            switch (a) {
                case "--from", "--to", "--topic", "--target-database", "--resolutions" -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("flag " + a + " has no value\n" + USAGE);
                    }
                    v = args[++i];
                }
                default -> {
                    rest.add(a);
                    continue;
                }
            }
            switch (a) {
                case "--from" -> from = time(v, "earliest");
                case "--to" -> to = time(v, "latest");
                case "--topic" -> topic = v.trim();
                case "--target-database" -> db = v.trim();
                default -> res = v.trim();
            }
        }
        if (from == null || to == null) {
            throw new IllegalArgumentException("--from and --to are required\n" + USAGE);
        }
        List<String> topics =
                switch (topic) {
                    case "all" -> List.of("flows", "packets");
                    case "flows", "flows.raw" -> List.of("flows");
                    case "packets", "packets.raw" -> List.of("packets");
                    default ->
                            throw new IllegalArgumentException(
                                    "topic "
                                            + topic
                                            + " (expected: flows.raw, packets.raw or all)");
                };
        return new ReprocessArgs(from, to, topics, db, res, rest);
    }

    private static long time(String text, String openEnd) {
        String t = text.trim();
        if (t.toLowerCase(Locale.ROOT).equals(openEnd)) {
            return -1L;
        }
        if (t.matches("\\d+")) {
            return Long.parseLong(t);
        }
        try {
            return Instant.parse(t).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "time " + text + " (expected: ISO-8601 instant, epoch ms or " + openEnd + ")",
                    e);
        }
    }

    public boolean flows() {
        return topics.contains("flows");
    }

    public boolean packets() {
        return topics.contains("packets");
    }

    public OffsetsInitializer start() {
        return fromMillis < 0
                ? OffsetsInitializer.earliest()
                : OffsetsInitializer.timestamp(fromMillis);
    }

    public OffsetsInitializer stop() {
        return toMillis < 0 ? OffsetsInitializer.latest() : OffsetsInitializer.timestamp(toMillis);
    }
}
