// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.stats;

import io.flowhouse.sinks.clickhouse.ClickHouseRowEncoder;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.sinks.clickhouse.ShardKeys;
import java.util.Arrays;
import java.util.List;

/**
 * {@link ExporterStats} to a row of {@code flowhouse.exporter_stats} (migrations V002, V005, V006,
 * V008).
 */
public final class ExporterStatsRowEncoder implements ClickHouseRowEncoder<ExporterStats> {

    private static final long serialVersionUID = 1L;

    public static final List<String> COLUMNS =
            List.of(
                    "minute",
                    "exporter",
                    "exporter_port",
                    "observation_domain",
                    "version",
                    "exporter_name",
                    "datagrams",
                    "datagram_bytes",
                    "records",
                    "template_records",
                    "sequence_gaps",
                    "lost_datagrams",
                    "lost_records",
                    "sequence_resets",
                    "records_before_template",
                    "rejected_records",
                    "duplicate_datagrams",
                    "lost_samples",
                    "sample_drops",
                    "problem_kinds",
                    "problem_counts",
                    "updated_at");

    @Override
    public String table() {
        return "exporter_stats";
    }

    @Override
    public List<String> columns(ServerCapabilities caps) {
        return COLUMNS;
    }

    /** By exporter, like every table of the job. */
    @Override
    public long shardKey(ExporterStats s) {
        return ShardKeys.exporter(s.exporterAddress());
    }

    @Override
    public void encode(ExporterStats s, RowBinaryOutput out, ServerCapabilities caps) {
        out.dateTime(s.minuteMillis());
        out.ipv6(s.exporterAddress());
        out.uint16(s.exporterPort());
        out.uint32(s.observationDomainId());
        out.uint8(s.version());
        out.string(s.exporterName());
        out.uint64(s.datagrams());
        out.uint64(s.datagramBytes());
        out.uint64(s.records());
        out.uint64(s.templateRecords());
        out.uint64(s.sequenceGaps());
        out.uint64(s.lostDatagrams());
        out.uint64(s.lostRecords());
        out.uint64(s.sequenceResets());
        out.uint64(s.recordsBeforeTemplate());
        out.uint64(s.rejectedRecords());
        out.uint64(s.duplicateDatagrams());
        out.uint64(s.lostSamples());
        out.uint64(s.sampleDrops());
        out.stringArray(Arrays.asList(s.problemKinds()));
        out.uint64Array(s.problemCounts());
        out.uint64(s.updatedAtMillis());
    }
}
