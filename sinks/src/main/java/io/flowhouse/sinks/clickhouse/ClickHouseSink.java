// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import java.io.IOException;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Flink Sink V2 writing batched RowBinary inserts into ClickHouse with the official Java client. It
 * writes what it is given, the way {@code JdbcSink.sink(sql, binder, options)} does: the caller
 * names the table and turns values into rows ({@link ClickHouseRowEncoder}) and says what must
 * exist first ({@link ClickHouseSchema}); the sink owns batching, retries, metrics and delivery.
 *
 * <p>Delivery: every row written before a checkpoint barrier is in ClickHouse before the checkpoint
 * completes ({@link SinkWriter#flush} waits for every batch), so after a failure the job replays at
 * most what came after the last completed checkpoint. When replayed rows are byte-for-byte the rows
 * already written and the table is a {@code ReplacingMergeTree} keyed on them, the copies collapse:
 * queries with {@code FINAL} are exact at once, plain queries once merges have run. See {@code
 * sinks/README-clickhouse.md}.
 *
 * <pre>{@code
 * flows.sinkTo(ClickHouseSink.of(ClickHouseSinkOptions.builder()
 *         .url("http://127.0.0.1:8123").passwordEnv("CLICKHOUSE_PASSWORD").build(),
 *         new MyRowEncoder(), new ClickHouseMigrations(My.class, "my/migrations/", Map.of())))
 *      .name("clickhouse-my-table").uid("clickhouse-my-table");
 * }</pre>
 *
 * @param <T> the value type, turned into rows by a {@link ClickHouseRowEncoder}
 */
public final class ClickHouseSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;

    private final ClickHouseSinkOptions options;
    private final ClickHouseRowEncoder<T> encoder;
    private final ClickHouseSchema schema;

    private ClickHouseSink(
            ClickHouseSinkOptions options,
            ClickHouseRowEncoder<T> encoder,
            ClickHouseSchema schema) {
        this.options = Objects.requireNonNull(options, "options");
        this.encoder = Objects.requireNonNull(encoder, "encoder");
        this.schema = Objects.requireNonNull(schema, "schema");
    }

    /**
     * Rows of one table.
     *
     * @param schema applied when a writer opens (with {@link ClickHouseSinkOptions#migrate()});
     *     {@link ClickHouseSchema#NONE} when the table is made elsewhere
     */
    public static <T> ClickHouseSink<T> of(
            ClickHouseSinkOptions options,
            ClickHouseRowEncoder<T> encoder,
            ClickHouseSchema schema) {
        return new ClickHouseSink<>(options, encoder, schema);
    }

    public ClickHouseSinkOptions options() {
        return options;
    }

    /** The table, unqualified. */
    public String table() {
        return encoder.table();
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
        return ClickHouseSinkWriter.open(
                options,
                encoder,
                schema,
                context.getProcessingTimeService(),
                new ClickHouseSinkMetrics(context.metricGroup()),
                context.getTaskInfo().getIndexOfThisSubtask());
    }
}
