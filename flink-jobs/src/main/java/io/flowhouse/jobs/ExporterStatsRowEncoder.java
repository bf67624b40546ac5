// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import io.flowhouse.jobs.model.ExporterStats;
import io.flowhouse.sinks.clickhouse.ClickHouseRowEncoder;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import java.util.List;

/**
 * Writes the decode step's {@link ExporterStats} (a POJO) through the sink's own {@code
 * exporter_stats} encoder, so the table layout is defined once, in {@code sinks}.
 */
public final class ExporterStatsRowEncoder implements ClickHouseRowEncoder<ExporterStats> {

    private final io.flowhouse.sinks.clickhouse.ExporterStats.Encoder delegate =
            new io.flowhouse.sinks.clickhouse.ExporterStats.Encoder();

    @Override
    public String table() {
        return delegate.table();
    }

    @Override
    public List<String> columns(ServerCapabilities caps) {
        return delegate.columns(caps);
    }

    @Override
    public void encode(ExporterStats value, RowBinaryOutput out, ServerCapabilities caps) {
        delegate.encode(value.toRow(), out, caps);
    }
}
