// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigResolver;
import java.io.Serializable;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Rollup settings ({@link RollupConfigKeys} documents each), checked in one place.
 *
 * @param enabled whether rollups run
 * @param resolutions window sizes, distinct, ascending
 * @param topN talkers/conversations per window and exporter
 * @param maxOutOfOrderness watermark delay behind the newest piece
 * @param allowedLateness lateness that still updates a bucket
 * @param idleness idleness of the input
 * @param ttlDays days kept per resolution label (absent: forever)
 * @param combineBuckets buckets a subtask sums locally before the shuffle; 0: no local sums
 * @param topCapacity talkers (and conversations) tracked per window and exporter, over all shards
 * @param topShards shards of the address space the talker summaries are spread over
 * @param maxBucketsPerExporter distinct buckets per exporter, kind and window; further pieces go to
 *     the bucket of zeros ({@link BucketBudget})
 */
public record RollupSettings(
        boolean enabled,
        List<Duration> resolutions,
        int topN,
        Duration maxOutOfOrderness,
        Duration allowedLateness,
        Duration idleness,
        Map<String, Integer> ttlDays,
        int combineBuckets,
        int topCapacity,
        int topShards,
        int maxBucketsPerExporter)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    public RollupSettings {
        resolutions = List.copyOf(resolutions);
        ttlDays = Map.copyOf(ttlDays);
        if (resolutions.isEmpty()) {
            throw new IllegalArgumentException("no rollup resolution (expected: at least one)");
        }
        for (Duration r : resolutions) {
            RollupTables.label(r);
        }
        if (resolutions.stream().distinct().count() != resolutions.size()) {
            throw new IllegalArgumentException("rollup resolutions repeat: " + resolutions);
        }
        if (combineBuckets < 0 || combineBuckets > BucketTable.MAX_BUCKETS) {
            throw new IllegalArgumentException(
                    "rollup combine buckets "
                            + combineBuckets
                            + " (expected: 0 to "
                            + BucketTable.MAX_BUCKETS
                            + ")");
        }
        if (maxBucketsPerExporter < 1) {
            throw new IllegalArgumentException(
                    "rollup max buckets per exporter "
                            + maxBucketsPerExporter
                            + " (expected: >= 1)");
        }
        if (topN < 1) {
            throw new IllegalArgumentException("top N " + topN + " (expected: >= 1)");
        }
        if (topShards < 1) {
            throw new IllegalArgumentException(
                    "rollup top shards " + topShards + " (expected: >= 1)");
        }
        if (topCapacity < topN * topShards) {
            throw new IllegalArgumentException(
                    "rollup top capacity "
                            + topCapacity
                            + " (expected: >= top N x top shards = "
                            + topN * topShards
                            + ")");
        }
        if (maxOutOfOrderness.isNegative()
                || allowedLateness.isNegative()
                || idleness.isNegative()) {
            throw new IllegalArgumentException(
                    "rollup out-of-orderness, lateness and idleness must be >= 0");
        }
    }

    /** Settings with the default bucket bound. */
    public RollupSettings(
            boolean enabled,
            List<Duration> resolutions,
            int topN,
            Duration maxOutOfOrderness,
            Duration allowedLateness,
            Duration idleness,
            Map<String, Integer> ttlDays,
            int combineBuckets,
            int topCapacity,
            int topShards) {
        this(
                enabled,
                resolutions,
                topN,
                maxOutOfOrderness,
                allowedLateness,
                idleness,
                ttlDays,
                combineBuckets,
                topCapacity,
                topShards,
                BucketBudget.DEFAULT_MAX_BUCKETS);
    }

    /** Settings with the default local pre-aggregation. */
    public RollupSettings(
            boolean enabled,
            List<Duration> resolutions,
            int topN,
            Duration maxOutOfOrderness,
            Duration allowedLateness,
            Duration idleness,
            Map<String, Integer> ttlDays) {
        this(
                enabled,
                resolutions,
                topN,
                maxOutOfOrderness,
                allowedLateness,
                idleness,
                ttlDays,
                PieceCombiner.DEFAULT_MAX_BUCKETS,
                Math.max(RollupConfigKeys.TOP_CAPACITY.defaultValue(), topN * 4),
                RollupConfigKeys.TOP_SHARDS.defaultValue());
    }

    /** Addresses one shard's summary holds: the capacity spread over the shards, rounded up. */
    public int topCapacityPerShard() {
        return (topCapacity + topShards - 1) / topShards;
    }

    public static RollupSettings defaults() {
        return from(ConfigResolver.of(RollupConfigKeys.SCHEMA).resolve());
    }

    /** The settings of a configuration that holds the {@link RollupConfigKeys}. */
    public static RollupSettings from(Config c) {
        Map<String, Integer> ttl = new LinkedHashMap<>();
        for (String e : c.get(RollupConfigKeys.TTL_DAYS)) {
            int eq = e.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(
                        "rollup TTL entry " + e + " (expected: RESOLUTION=DAYS, e.g. 1m=30)");
            }
            ttl.put(
                    RollupTables.label(parseResolution(e.substring(0, eq))),
                    Integer.parseInt(e.substring(eq + 1).trim()));
        }
        return new RollupSettings(
                c.get(RollupConfigKeys.ENABLED),
                c.get(RollupConfigKeys.RESOLUTIONS),
                c.get(RollupConfigKeys.TOP_N),
                c.get(RollupConfigKeys.MAX_OUT_OF_ORDERNESS),
                c.get(RollupConfigKeys.ALLOWED_LATENESS),
                c.get(RollupConfigKeys.IDLENESS),
                ttl,
                c.get(RollupConfigKeys.COMBINE_BUCKETS),
                c.get(RollupConfigKeys.TOP_CAPACITY),
                c.get(RollupConfigKeys.TOP_SHARDS),
                c.get(RollupConfigKeys.MAX_BUCKETS_PER_EXPORTER));
    }

    /** Parses {@code 30s}, {@code 1m}, {@code 1h}, {@code 1d} (or any Flink duration text). */
    public static Duration parseResolution(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.matches("\\d+[smhd]")) {
            long n = Long.parseLong(t.substring(0, t.length() - 1));
            return switch (t.charAt(t.length() - 1)) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        return org.apache.flink.util.TimeUtils.parseDuration(t);
    }

    /** Days the table of a resolution is kept; 0 keeps it. */
    public int ttlDays(Duration resolution) {
        return ttlDays.getOrDefault(RollupTables.label(resolution), 0);
    }

    /** A copy with other resolutions (reprocessing). */
    public RollupSettings withResolutions(List<Duration> r) {
        return new RollupSettings(
                enabled,
                r,
                topN,
                maxOutOfOrderness,
                allowedLateness,
                idleness,
                ttlDays,
                combineBuckets,
                topCapacity,
                topShards,
                maxBucketsPerExporter);
    }
}
