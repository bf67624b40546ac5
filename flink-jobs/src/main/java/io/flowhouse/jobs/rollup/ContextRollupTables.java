// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.sinks.clickhouse.ClickHouseConnection;
import io.flowhouse.sinks.clickhouse.ClickHouseMigrator;
import io.flowhouse.sinks.clickhouse.ClickHouseSchema;
import io.flowhouse.sinks.clickhouse.ClickHouseSink;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkException;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import java.time.Duration;

/**
 * The context rollup tables, one per resolution, beside the plain ones: {@code flows_context_1m},
 * {@code flows_context_1h}, ... created when missing by their writer (as {@link RollupTables}),
 * written only while enrichment is on. A table of their own because their keys hold text (interface
 * names, countries) and the plain tables' sorting key cannot grow on 18.16; the plain tables stay
 * as they were.
 *
 * <pre>
 * ENGINE = ReplacingMergeTree(version)
 * ORDER BY (window_start, kind, exporter, interface, direction, in_boundary, out_boundary, proto,
 *           src_as, dst_as, src_country, dst_country, if_name)
 * </pre>
 */
public final class ContextRollupTables {

    private ContextRollupTables() {}

    /** The rows of one resolution into {@code <database>.flows_context_<label>}. */
    public static ClickHouseSink<ContextRow> sink(
            ClickHouseSinkOptions options, Duration resolution, int ttlDays) {
        return ClickHouseSink.of(
                options,
                RollupRowEncoder.context(tableName(resolution)),
                new Schema(resolution, ttlDays));
    }

    /** The table of one resolution, created when missing. */
    public record Schema(Duration resolution, int ttlDays) implements ClickHouseSchema {

        public Schema {
            RollupTables.label(resolution);
        }

        @Override
        public ServerCapabilities apply(ClickHouseConnection connection, String database)
                throws ClickHouseSinkException {
            ServerCapabilities caps = ClickHouseMigrator.detect(connection);
            // On a cluster: ON CLUSTER, replicated, and with shards a local table per shard.
            connection.executeDdl("CREATE DATABASE IF NOT EXISTS " + database);
            connection.executeDdl(createStatement(database, caps, resolution, ttlDays));
            return caps;
        }
    }

    /** Table name of a resolution: {@code flows_context_} + {@link RollupTables#label}. */
    public static String tableName(Duration resolution) {
        return "flows_context_" + RollupTables.label(resolution);
    }

    /** The CREATE statement for one resolution on this server. */
    public static String createStatement(
            String database, ServerCapabilities caps, Duration resolution, int ttlDays) {
        return RollupTables.createStatement(
                tableName(resolution),
                "    window_start DateTime,\n"
                        + "    kind "
                        + ContextRow.KIND_ENUM
                        + ",\n"
                        + "    exporter ${IP},\n"
                        + "    interface UInt32,\n"
                        + "    direction Int8,\n"
                        + "    if_name ${LC_STRING},\n"
                        + "    in_boundary UInt8,\n"
                        + "    out_boundary UInt8,\n"
                        + "    proto UInt8,\n"
                        + "    src_as UInt32,\n"
                        + "    dst_as UInt32,\n"
                        + "    src_country ${LC_STRING},\n"
                        + "    dst_country ${LC_STRING},\n"
                        + "    bytes UInt64${CODEC_COUNTER},\n"
                        + "    packets UInt64${CODEC_COUNTER},\n"
                        + "    flows UInt64${CODEC_COUNTER},\n"
                        + "    version UInt64\n",
                "window_start, kind, exporter, interface, direction, in_boundary, out_boundary,"
                        + " proto, src_as, dst_as, src_country, dst_country, if_name",
                database,
                caps,
                resolution,
                ttlDays);
    }
}
