// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.sflow.InterfaceCounters;
import io.flowhouse.jobs.counters.InterfaceCountersRowEncoder;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import io.flowhouse.jobs.rollup.ContextRollupTables;
import io.flowhouse.jobs.rollup.ContextRow;
import io.flowhouse.jobs.rollup.RollupRow;
import io.flowhouse.jobs.rollup.RollupTables;
import io.flowhouse.jobs.stats.ExporterStats;
import io.flowhouse.jobs.stats.ExporterStatsRowEncoder;
import io.flowhouse.sinks.clickhouse.ClickHouseSink;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * The job's ClickHouse tables, each as a sink: the job owns what it writes (table, columns, row
 * encoder, schema), the generic {@link ClickHouseSink} how it is written (batches, retries,
 * delivery, migrations runner).
 *
 * @param options connection, batching and retries of every writer
 * @param flowsTtlDays days raw flows are kept on servers with TTL (0: forever)
 * @param statsTtlDays days exporter statistics and interface counters are kept on servers with TTL
 *     (0: forever)
 */
public record JobTables(ClickHouseSinkOptions options, int flowsTtlDays, int statsTtlDays)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    public JobTables {
        Objects.requireNonNull(options, "options");
        if (flowsTtlDays < 0 || statsTtlDays < 0) {
            throw new IllegalArgumentException(
                    "TTL days " + flowsTtlDays + ", " + statsTtlDays + " (expected: >= 0)");
        }
    }

    /** With the default retention: 30 days of flows, {@value JobSchema#STATS_TTL_DAYS} of stats. */
    public static JobTables of(ClickHouseSinkOptions options) {
        return new JobTables(options, 30, JobSchema.STATS_TTL_DAYS);
    }

    public JobTables withOptions(ClickHouseSinkOptions o) {
        return new JobTables(o, flowsTtlDays, statsTtlDays);
    }

    /** With the password given as it is (a test server's), instead of a file or variable. */
    public JobTables withPassword(String password) {
        return withOptions(options.toBuilder().password(password).build());
    }

    /** Decoded and aged flows into {@code flows} (migrations V001, V003). */
    public ClickHouseSink<FlowRecord> flows() {
        return ClickHouseSink.of(
                options, new FlowRowEncoder(), JobSchema.migrations(flowsTtlDays, statsTtlDays));
    }

    /** Per-exporter, per-minute statistics into {@code exporter_stats} (V002, V005). */
    public ClickHouseSink<ExporterStats> exporterStats() {
        return ClickHouseSink.of(
                options,
                new ExporterStatsRowEncoder(),
                JobSchema.migrations(flowsTtlDays, statsTtlDays));
    }

    /** sFlow counter samples' interface counters into {@code interface_counters} (V007). */
    public ClickHouseSink<InterfaceCounters> interfaceCounters() {
        return ClickHouseSink.of(
                options,
                new InterfaceCountersRowEncoder(),
                JobSchema.migrations(flowsTtlDays, statsTtlDays));
    }

    /** Decoded flows with their enrichment context into {@code flows} (migration V009). */
    public ClickHouseSink<EnrichedFlow> enrichedFlows() {
        return ClickHouseSink.of(
                options,
                new EnrichedFlowRowEncoder(),
                JobSchema.migrations(flowsTtlDays, statsTtlDays));
    }

    /** Context rollup rows of one resolution into {@code flows_context_<label>}. */
    public ClickHouseSink<ContextRow> contextRollup(Duration resolution, int ttlDays) {
        return ContextRollupTables.sink(options, resolution, ttlDays);
    }

    /** Rollup rows of one resolution into {@code flows_<label>}. */
    public ClickHouseSink<RollupRow> rollup(Duration resolution, int ttlDays) {
        return RollupTables.sink(options, resolution, ttlDays);
    }
}
