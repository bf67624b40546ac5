// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import io.flowhouse.codec.flow.FlowRecord;
import java.io.IOException;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Flink Sink V2 writing batched RowBinary inserts into ClickHouse with the official Java client.
 *
 * <p>Delivery: every row written before a checkpoint barrier is in ClickHouse before the checkpoint
 * completes ({@link SinkWriter#flush} waits for every batch), so after a failure the job replays at
 * most what came after the last completed checkpoint. Those replayed rows are byte-for-byte the
 * rows already written (the row id and every sorting-key column come from the Kafka record), and
 * the tables are {@code ReplacingMergeTree}s keyed on them, so the copies collapse: queries with
 * {@code FINAL} are exact at once, plain queries once merges have run. See {@code
 * sinks/README-clickhouse.md}.
 *
 * <pre>{@code
 * flows.sinkTo(ClickHouseSink.forFlows(ClickHouseSinkOptions.builder()
 *         .url("http://127.0.0.1:8123").passwordEnv("CLICKHOUSE_PASSWORD").build()))
 *      .name("clickhouse-flows").uid("clickhouse-flows");
 * }</pre>
 *
 * @param <T> the value type, turned into rows by a {@link ClickHouseRowEncoder}
 */
public final class ClickHouseSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;

    private final ClickHouseSinkOptions options;
    private final ClickHouseRowEncoder<T> encoder;

    private ClickHouseSink(ClickHouseSinkOptions options, ClickHouseRowEncoder<T> encoder) {
        this.options = Objects.requireNonNull(options, "options");
        this.encoder = Objects.requireNonNull(encoder, "encoder");
    }

    /** Flow records into {@code <database>.flows}. */
    public static ClickHouseSink<FlowRecord> forFlows(ClickHouseSinkOptions options) {
        return new ClickHouseSink<>(options, new FlowRowEncoder());
    }

    /** Per-exporter, per-minute statistics into {@code <database>.exporter_stats}. */
    public static ClickHouseSink<ExporterStats> forExporterStats(ClickHouseSinkOptions options) {
        return new ClickHouseSink<>(options, new ExporterStats.Encoder());
    }

    /** Any value type with its own encoder (the table must exist or come from a migration). */
    public static <T> ClickHouseSink<T> of(
            ClickHouseSinkOptions options, ClickHouseRowEncoder<T> encoder) {
        return new ClickHouseSink<>(options, encoder);
    }

    public ClickHouseSinkOptions options() {
        return options;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
        return ClickHouseSinkWriter.open(
                options,
                encoder,
                context.getProcessingTimeService(),
                new ClickHouseSinkMetrics(context.metricGroup()),
                context.getTaskInfo().getIndexOfThisSubtask());
    }
}
