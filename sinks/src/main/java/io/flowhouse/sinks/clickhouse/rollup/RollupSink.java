// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse.rollup;

import io.flowhouse.sinks.clickhouse.ClickHouseConnection;
import io.flowhouse.sinks.clickhouse.ClickHouseMigrator;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkMetrics;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkWriter;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Rollup rows of one resolution into {@code <database>.flows_<label>}: the ClickHouse writer of the
 * flow sink (batched RowBinary, retries, flush on every checkpoint), after creating the table when
 * it is missing ({@link RollupTables}).
 */
public final class RollupSink implements Sink<RollupRow> {

    private static final long serialVersionUID = 1L;

    private final ClickHouseSinkOptions options;
    private final Duration resolution;
    private final int ttlDays;

    public RollupSink(ClickHouseSinkOptions options, Duration resolution, int ttlDays) {
        this.options = Objects.requireNonNull(options, "options");
        this.resolution = Objects.requireNonNull(resolution, "resolution");
        this.ttlDays = ttlDays;
        RollupTables.label(resolution);
    }

    public String table() {
        return RollupTables.tableName(resolution);
    }

    @Override
    public SinkWriter<RollupRow> createWriter(WriterInitContext context) throws IOException {
        try (ClickHouseConnection c = new ClickHouseConnection(options)) {
            RollupTables.ensure(
                    c, options.database(), ClickHouseMigrator.detect(c), resolution, ttlDays);
        }
        return ClickHouseSinkWriter.open(
                options,
                new RollupRowEncoder(table()),
                context.getProcessingTimeService(),
                new ClickHouseSinkMetrics(context.metricGroup()),
                context.getTaskInfo().getIndexOfThisSubtask());
    }
}
