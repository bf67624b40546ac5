// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import io.flowhouse.sinks.clickhouse.ClickHouseMigrations;
import io.flowhouse.sinks.clickhouse.SchemaDialect;
import java.util.Map;

/**
 * The job's versioned ClickHouse schema: the {@code flows} table and its view, {@code
 * exporter_stats} and {@code interface_counters} ({@code clickhouse/migrations/} in this module),
 * applied by the sink's migrator when a writer opens. The rollup tables follow the configured
 * resolutions and are created by their own writers ({@code RollupTables}).
 */
public final class JobSchema {

    /** Classpath directory of the migrations. */
    public static final String MIGRATIONS_DIR = "clickhouse/migrations/";

    /** Days exporter statistics are kept on servers with TTL. */
    public static final int STATS_TTL_DAYS = 400;

    private JobSchema() {}

    /**
     * The migrations, with their retention.
     *
     * @param flowsTtlDays days raw flows are kept on servers with TTL (0: forever)
     * @param statsTtlDays days exporter statistics are kept on servers with TTL (0: forever)
     */
    public static ClickHouseMigrations migrations(int flowsTtlDays, int statsTtlDays) {
        return new ClickHouseMigrations(
                JobSchema.class, MIGRATIONS_DIR, ttls(flowsTtlDays, statsTtlDays));
    }

    /**
     * {@code ${TTL_FLOWS}} on {@code time_received}, {@code ${TTL_STATS}} on {@code minute}, {@code
     * ${TTL_COUNTERS}} (interface counters, kept as long as the statistics) on {@code time}.
     */
    public static Map<String, SchemaDialect.Ttl> ttls(int flowsTtlDays, int statsTtlDays) {
        return Map.of(
                "FLOWS",
                new SchemaDialect.Ttl("time_received", flowsTtlDays),
                "STATS",
                new SchemaDialect.Ttl("minute", statsTtlDays),
                "COUNTERS",
                new SchemaDialect.Ttl("time", statsTtlDays));
    }
}
