// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.reprocess;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigResolver;
import io.flowhouse.config.cli.Cli;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.JobKeys;
import io.flowhouse.jobs.rollup.RollupConfigKeys;
import java.io.PrintStream;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line of {@code ./flowhouse job reprocess}: {@code --from T1 --to T2 [--topic
 * flows.raw|packets.raw|all] [--target-database DB] [--resolutions 1m,1h]} and the job's own flags
 * ({@link JobArgs}: {@code --config FILE}, {@code --set KEY=VALUE}, {@code --KEY VALUE}), which
 * these override.
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
 * @param job the job's configuration, with the database and resolutions above, job name {@code
 *     flowhouse} and group {@code flowhouse-reprocess} unless set
 */
public record ReprocessArgs(
        long fromMillis,
        long toMillis,
        List<String> topics,
        String targetDatabase,
        String resolutions,
        Config job) {

    public static final String USAGE =
            "usage: job reprocess --from T1 --to T2 [--topic flows.raw|packets.raw|all]"
                    + " [--target-database DB] [--resolutions 1m,1h] [--KEY VALUE ...]\n"
                    + "  T: ISO-8601 instant, epoch ms, earliest (T1) or latest (T2); the range is"
                    + " [T1, T2) of Kafka record timestamps";

    private static final String ORIGIN = "job reprocess";

    public ReprocessArgs {
        topics = List.copyOf(topics);
        if (fromMillis >= 0 && toMillis >= 0 && toMillis <= fromMillis) {
            throw new IllegalArgumentException(
                    "empty range [" + fromMillis + ", " + toMillis + ") (expected: T1 < T2)");
        }
    }

    /** The job's flags and the range's. */
    @Command(
            name = "job reprocess",
            description = {
                "Re-runs decode, packet flow ageing and rollups in Flink BATCH mode over the Kafka"
                        + " records with timestamps in [T1, T2).",
                "T: ISO-8601 instant, epoch ms, earliest (T1) or latest (T2)."
            })
    static final class Line extends JobArgs {
        @Option(names = "--from", paramLabel = "T1", description = "Start of the range.")
        String from;

        @Option(names = "--to", paramLabel = "T2", description = "End of the range (exclusive).")
        String to;

        @Option(
                names = "--topic",
                paramLabel = "TOPIC",
                description = "flows.raw, packets.raw or all (default).")
        String topic = "all";

        @Option(
                names = "--target-database",
                paramLabel = "DB",
                description = "Write this database instead (key clickhouse.database).")
        String targetDatabase;

        @Option(
                names = "--resolutions",
                paramLabel = "LIST",
                description = "Rollup window sizes, e.g. 1m,1h (key rollup.resolutions).")
        String resolutions;
    }

    /** Parses without the process environment (tests). */
    public static ReprocessArgs parse(String[] args) {
        return parse(Map.of(), System.out, args);
    }

    /**
     * Parses {@code args} and resolves the job's configuration over {@code env}; null when {@code
     * --help} or {@code --print-config} printed to {@code out} instead.
     *
     * @throws IllegalArgumentException for a bad range or topic; {@link
     *     io.flowhouse.config.ConfigException} for a bad key
     */
    public static ReprocessArgs parse(Map<String, String> env, PrintStream out, String... args) {
        Line line = new Line();
        try {
            Cli.parse(line, args);
        } catch (Cli.HelpRequestedException help) {
            out.print(help.getMessage());
            out.flush();
            return null;
        }
        if (line.from == null || line.to == null) {
            throw new IllegalArgumentException("--from and --to are required\n" + USAGE);
        }
        long from = time(line.from, "earliest");
        long to = time(line.to, "latest");
        String topic = line.topic.trim();
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
        String db = line.targetDatabase == null ? null : line.targetDatabase.trim();
        String res = line.resolutions == null ? null : line.resolutions.trim();
        ConfigResolver r = line.configFlags().resolver(env);
        // The range's flags win over the job's, whatever their order.
        if (db != null) {
            r.flag(JobKeys.CLICKHOUSE_DATABASE, db, "--target-database");
        }
        if (res != null) {
            r.flag(RollupConfigKeys.RESOLUTIONS, res, "--resolutions");
        }
        Config c = r.resolve();
        if (!c.isSet(JobKeys.JOB_NAME)) {
            r.flag(JobKeys.JOB_NAME, "flowhouse", ORIGIN);
        }
        if (!c.isSet(JobKeys.GROUP_ID)) {
            // Its own group: a reprocessing run must not move the streaming job's committed
            // offsets.
            r.flag(JobKeys.GROUP_ID, "flowhouse-reprocess", ORIGIN);
        }
        c = r.resolve();
        if (line.configFlags().printIfRequested(c, out)) {
            return null;
        }
        return new ReprocessArgs(from, to, topics, db, res, c);
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
