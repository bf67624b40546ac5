// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import java.io.Serializable;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Bounds and lifetimes of the decode step's keyed state and of what it writes on the side, so that
 * no exporter, however hostile, can grow them without bound. What a bound refuses is counted (Flink
 * metrics of group {@code flowhouse.decode}).
 *
 * @param maxBytesPerExporter templates, options data and held datagrams of one exporter key, in
 *     bytes as stored
 * @param maxBytes the same over every exporter key of one parallel decode instance
 * @param maxScopesPerExporter observation domains / source ids one exporter key keeps templates or
 *     options data for
 * @param maxHeldBytes bytes of held datagrams per exporter key
 * @param templateLifetime a template not sent again within this much receive time expires
 * @param exporterIdleTimeout an exporter key silent this long (processing time) loses its state
 * @param archiveMaxRecordBytes largest templates-topic record written
 * @param statsScopeIdleTimeout the statistics forget a domain silent this long (processing time)
 * @param statsMaxScopesPerExporter domains with their own statistics per exporter key
 * @param statsMaxSflowSources sFlow data sources per statistics scope (agent and sub-agent) with
 *     sample-sequence and drops accounting
 */
public record DecodeStateLimits(
        long maxBytesPerExporter,
        long maxBytes,
        int maxScopesPerExporter,
        long maxHeldBytes,
        Duration templateLifetime,
        Duration exporterIdleTimeout,
        int archiveMaxRecordBytes,
        Duration statsScopeIdleTimeout,
        int statsMaxScopesPerExporter,
        int statsMaxSflowSources)
        implements Serializable {

    /** 4 MiB: every template an exporter may hold (4,096 of 60 fields) with room for options. */
    public static final long DEFAULT_MAX_BYTES_PER_EXPORTER = 4L << 20;

    /** 256 MiB per parallel instance: some 60 exporters at their bound, thousands of real ones. */
    public static final long DEFAULT_MAX_BYTES = 256L << 20;

    /** Line cards and VRFs: real exporters use a handful of domains, rarely more than 64. */
    public static final int DEFAULT_MAX_SCOPES_PER_EXPORTER = 256;

    /** 1 MiB: a second of a busy exporter's datagrams waiting for a template. */
    public static final long DEFAULT_MAX_HELD_BYTES = 1L << 20;

    /**
     * RFC 7011 section 8.4: at least three template refresh intervals of the exporter; 30 minutes
     * is the templateLifeTime default of RFC 6728 and what nfdump and pmacct use.
     */
    public static final Duration DEFAULT_TEMPLATE_LIFETIME = Duration.ofMinutes(30);

    /** Twice the template lifetime: by then every template of a silent exporter has expired. */
    public static final Duration DEFAULT_EXPORTER_IDLE_TIMEOUT = Duration.ofHours(1);

    /** Half of Kafka's default 1 MiB message limit. */
    public static final int DEFAULT_ARCHIVE_MAX_RECORD_BYTES = 512 * 1024;

    /** A domain's last minute row is written within two minutes; ten leaves room for pauses. */
    public static final Duration DEFAULT_STATS_SCOPE_IDLE_TIMEOUT = Duration.ofMinutes(10);

    public static final int DEFAULT_STATS_MAX_SCOPES_PER_EXPORTER = 256;

    /** A chassis switch: some hundreds of ports, each a data source with its own sequence. */
    public static final int DEFAULT_STATS_MAX_SFLOW_SOURCES = 1024;

    /**
     * What a state entry counts for beyond its wire bytes: the Flink key and key group before it in
     * RocksDB (20), its map key (up to 16) and the serialized fields of its value (up to 44; a
     * template entry measures 80). {@code DecodeStateBoundsTest} checks that the counts cover what
     * state serializes to.
     */
    public static final int ENTRY_OVERHEAD = 96;

    private static final DecodeStateLimits DEFAULTS =
            new DecodeStateLimits(
                    DEFAULT_MAX_BYTES_PER_EXPORTER,
                    DEFAULT_MAX_BYTES,
                    DEFAULT_MAX_SCOPES_PER_EXPORTER,
                    DEFAULT_MAX_HELD_BYTES,
                    DEFAULT_TEMPLATE_LIFETIME,
                    DEFAULT_EXPORTER_IDLE_TIMEOUT,
                    DEFAULT_ARCHIVE_MAX_RECORD_BYTES,
                    DEFAULT_STATS_SCOPE_IDLE_TIMEOUT,
                    DEFAULT_STATS_MAX_SCOPES_PER_EXPORTER,
                    DEFAULT_STATS_MAX_SFLOW_SOURCES);

    public DecodeStateLimits {
        positive("max bytes per exporter", maxBytesPerExporter);
        positive("max bytes", maxBytes);
        positive("max scopes per exporter", maxScopesPerExporter);
        positive("max held bytes", maxHeldBytes);
        if (templateLifetime.compareTo(Duration.ofSeconds(1)) < 0) {
            // A re-send moves a template's last-seen time in steps of a second.
            throw new IllegalArgumentException(
                    "template lifetime " + templateLifetime + " (expected: >= 1 s)");
        }
        positive("exporter idle timeout", exporterIdleTimeout.toMillis());
        positive("stats scope idle timeout", statsScopeIdleTimeout.toMillis());
        positive("stats max scopes per exporter", statsMaxScopesPerExporter);
        positive("stats max sflow sources", statsMaxSflowSources);
        if (maxBytes < maxBytesPerExporter) {
            throw new IllegalArgumentException(
                    "max bytes "
                            + maxBytes
                            + " (expected: >= max bytes per exporter "
                            + maxBytesPerExporter
                            + ")");
        }
        if (archiveMaxRecordBytes < 1024) {
            throw new IllegalArgumentException(
                    "archive max record bytes " + archiveMaxRecordBytes + " (expected: >= 1024)");
        }
    }

    private static void positive(String what, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(what + " " + value + " (expected: > 0)");
        }
    }

    public static DecodeStateLimits defaults() {
        return DEFAULTS;
    }

    public DecodeStateLimits withBytes(long perExporter, long total, long held) {
        return with(
                d -> {
                    d.maxBytesPerExporter = perExporter;
                    d.maxBytes = total;
                    d.maxHeldBytes = held;
                });
    }

    public DecodeStateLimits withScopes(int decodeScopes, int statsScopes) {
        return with(
                d -> {
                    d.maxScopesPerExporter = decodeScopes;
                    d.statsMaxScopesPerExporter = statsScopes;
                });
    }

    public DecodeStateLimits withTimes(
            Duration lifetime, Duration exporterIdle, Duration statsScopeIdle) {
        return with(
                d -> {
                    d.templateLifetime = lifetime;
                    d.exporterIdleTimeout = exporterIdle;
                    d.statsScopeIdleTimeout = statsScopeIdle;
                });
    }

    public DecodeStateLimits withArchiveMaxRecordBytes(int bytes) {
        return with(d -> d.archiveMaxRecordBytes = bytes);
    }

    public DecodeStateLimits withSflowSources(int sources) {
        return with(d -> d.statsMaxSflowSources = sources);
    }

    /** A copy with the values {@code change} sets, through the canonical constructor's checks. */
    private DecodeStateLimits with(Consumer<Draft> change) {
        Draft d = new Draft(this);
        change.accept(d);
        return d.build();
    }

    /** The values of a DecodeStateLimits while some change. */
    private static final class Draft {
        long maxBytesPerExporter;
        long maxBytes;
        int maxScopesPerExporter;
        long maxHeldBytes;
        Duration templateLifetime;
        Duration exporterIdleTimeout;
        int archiveMaxRecordBytes;
        Duration statsScopeIdleTimeout;
        int statsMaxScopesPerExporter;
        int statsMaxSflowSources;

        Draft(DecodeStateLimits v) {
            maxBytesPerExporter = v.maxBytesPerExporter;
            maxBytes = v.maxBytes;
            maxScopesPerExporter = v.maxScopesPerExporter;
            maxHeldBytes = v.maxHeldBytes;
            templateLifetime = v.templateLifetime;
            exporterIdleTimeout = v.exporterIdleTimeout;
            archiveMaxRecordBytes = v.archiveMaxRecordBytes;
            statsScopeIdleTimeout = v.statsScopeIdleTimeout;
            statsMaxScopesPerExporter = v.statsMaxScopesPerExporter;
            statsMaxSflowSources = v.statsMaxSflowSources;
        }

        DecodeStateLimits build() {
            return new DecodeStateLimits(
                    maxBytesPerExporter,
                    maxBytes,
                    maxScopesPerExporter,
                    maxHeldBytes,
                    templateLifetime,
                    exporterIdleTimeout,
                    archiveMaxRecordBytes,
                    statsScopeIdleTimeout,
                    statsMaxScopesPerExporter,
                    statsMaxSflowSources);
        }
    }
}
