// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.sinks.clickhouse.ClickHouseConnection;
import io.flowhouse.sinks.clickhouse.ClickHouseMigrator;
import io.flowhouse.sinks.clickhouse.ClickHouseSchema;
import io.flowhouse.sinks.clickhouse.ClickHouseSink;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkException;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.sinks.clickhouse.SchemaDialect;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import java.time.Duration;

/**
 * The rollup tables, one per configured resolution: {@code flows_1m}, {@code flows_1h}, ... As in
 * Akvorado, the resolutions are configuration, so the tables are created from it (idempotent {@code
 * CREATE TABLE IF NOT EXISTS}, by every rollup writer when it opens: {@link Schema}) rather than by
 * a fixed migration; the DDL is rendered through {@link SchemaDialect} so it follows the server's
 * types.
 *
 * <pre>
 * ENGINE = ReplacingMergeTree(version)
 * PARTITION BY toYYYYMMDD(window_start)   (toYYYYMM for resolutions of an hour and more)
 * ORDER BY (window_start, kind, exporter, interface, direction, proto, port, src_as, dst_as, rank)
 * [TTL window_start + INTERVAL n DAY]     (servers with TTL, n &gt; 0)
 * </pre>
 *
 * The sorting key is the bucket's identity, so a bucket emitted again (late flows, a replay, a
 * reprocessing run) replaces the earlier row: the highest {@code version} wins under {@code FINAL}.
 */
public final class RollupTables {

    private RollupTables() {}

    /**
     * The rows of one resolution into {@code <database>.flows_<label>}, the table created when the
     * writer opens.
     */
    public static ClickHouseSink<RollupRow> sink(
            ClickHouseSinkOptions options, Duration resolution, int ttlDays) {
        return ClickHouseSink.of(
                options,
                RollupRowEncoder.rollup(tableName(resolution)),
                new Schema(resolution, ttlDays));
    }

    /**
     * The table of one resolution, created when missing.
     *
     * @param resolution the window size
     * @param ttlDays days rows are kept on servers with TTL (0: forever)
     */
    public record Schema(Duration resolution, int ttlDays) implements ClickHouseSchema {

        public Schema {
            label(resolution);
        }

        @Override
        public ServerCapabilities apply(ClickHouseConnection connection, String database)
                throws ClickHouseSinkException {
            ServerCapabilities caps = ClickHouseMigrator.detect(connection);
            ensure(connection, database, caps, resolution, ttlDays);
            return caps;
        }
    }

    /** Table name of a resolution: {@code flows_} + {@link #label}. */
    public static String tableName(Duration resolution) {
        return "flows_" + label(resolution);
    }

    /** Short label of a resolution: 30s, 1m, 5m, 1h, 1d; seconds when nothing shorter fits. */
    public static String label(Duration resolution) {
        long s = resolution.toSeconds();
        if (s <= 0 || resolution.toMillis() % 1000 != 0) {
            throw new IllegalArgumentException(
                    "rollup resolution " + resolution + " (expected: whole seconds, > 0)");
        }
        if (s % 86_400 == 0) {
            return s / 86_400 + "d";
        }
        if (s % 3600 == 0) {
            return s / 3600 + "h";
        }
        if (s % 60 == 0) {
            return s / 60 + "m";
        }
        return s + "s";
    }

    /** The CREATE statement for one resolution on this server. */
    public static String createStatement(
            String database, ServerCapabilities caps, Duration resolution, int ttlDays) {
        return createStatement(
                tableName(resolution),
                "    window_start DateTime,\n"
                        + "    kind "
                        + RollupKind.enumDefinition()
                        + ",\n"
                        + "    exporter ${IP},\n"
                        + "    interface UInt32,\n"
                        + "    direction Int8,\n"
                        + "    proto UInt8,\n"
                        + "    port UInt16,\n"
                        + "    src_as UInt32,\n"
                        + "    dst_as UInt32,\n"
                        + "    rank UInt16,\n"
                        + "    src_addr ${IP}${CODEC_ADDR},\n"
                        + "    dst_addr ${IP}${CODEC_ADDR},\n"
                        + "    bytes UInt64${CODEC_COUNTER},\n"
                        + "    packets UInt64${CODEC_COUNTER},\n"
                        + "    flows UInt64${CODEC_COUNTER},\n"
                        + "    bytes_error UInt64,\n"
                        + "    version UInt64\n",
                "window_start, kind, exporter, interface, direction, proto, port, src_as, dst_as,"
                        + " rank",
                database,
                caps,
                resolution,
                ttlDays);
    }

    /**
     * The CREATE statement of a rollup table (plain or context) on this server: the columns and
     * sorting key are the table's, the engine, partitioning and TTL those of every rollup table.
     *
     * @param columns the column declarations, one per line, in {@link SchemaDialect} placeholders
     */
    static String createStatement(
            String table,
            String columns,
            String orderBy,
            String database,
            ServerCapabilities caps,
            Duration resolution,
            int ttlDays) {
        SchemaDialect dialect = new SchemaDialect(database, caps);
        String partition =
                resolution.toSeconds() >= 3600
                        ? "toYYYYMM(window_start)"
                        : "toYYYYMMDD(window_start)";
        String ttl =
                caps.ttl() && ttlDays > 0
                        ? "TTL window_start + INTERVAL " + ttlDays + " DAY\n"
                        : "";
        String template =
                "CREATE TABLE IF NOT EXISTS ${DB}."
                        + table
                        + "\n(\n"
                        + columns
                        + ")\n"
                        + "ENGINE = ReplacingMergeTree(version)\n"
                        + "PARTITION BY "
                        + partition
                        + "\n"
                        + "ORDER BY ("
                        + orderBy
                        + ")\n"
                        + ttl
                        + "SETTINGS index_granularity = 8192";
        return dialect.render(template);
    }

    /** Creates the database and the table of a resolution when missing. */
    public static void ensure(
            ClickHouseConnection connection,
            String database,
            ServerCapabilities caps,
            Duration resolution,
            int ttlDays)
            throws ClickHouseSinkException {
        connection.executeDdl("CREATE DATABASE IF NOT EXISTS " + database);
        connection.executeDdl(createStatement(database, caps, resolution, ttlDays));
        try {
            connection.executeDdl(addBytesErrorStatement(database, resolution));
        } catch (ClickHouseSinkException e) {
            if (!ClickHouseMigrator.alreadyApplied(e)) {
                throw e;
            }
        }
    }

    /**
     * Adds {@code bytes_error} to a table created before it existed (18.16 has no {@code ADD COLUMN
     * IF NOT EXISTS}: "already exists" means done). Old rows read 0 there, which was right for
     * them: their top-N rows were exact.
     */
    public static String addBytesErrorStatement(String database, Duration resolution) {
        return "ALTER TABLE "
                + database
                + "."
                + tableName(resolution)
                + " ADD COLUMN bytes_error UInt64 AFTER flows";
    }
}
