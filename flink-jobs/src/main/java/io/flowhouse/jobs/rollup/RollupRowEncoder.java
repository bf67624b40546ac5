// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.sinks.clickhouse.ClickHouseRowEncoder;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.sinks.clickhouse.ShardKeys;
import java.io.Serializable;
import java.util.List;

/**
 * RowBinary rows of a rollup table, column by column: each column's name beside how a row writes
 * it, so the two cannot drift apart. The plain tables ({@link RollupTables}, {@link #rollup}) and
 * the context tables ({@link ContextRollupTables}, {@link #context}) differ only in their columns.
 *
 * @param <T> the row type
 */
public final class RollupRowEncoder<T> implements ClickHouseRowEncoder<T> {

    private static final long serialVersionUID = 1L;

    /** How a row writes one column. */
    @FunctionalInterface
    interface Writer<T> extends Serializable {
        void write(T row, RowBinaryOutput out);
    }

    /** A row's shard key: by exporter, like every table of the job. */
    @FunctionalInterface
    interface Placement<T> extends Serializable {
        long shardKey(T row);
    }

    /** One column: its name and how a row writes it. */
    record Column<T>(String name, Writer<T> writer) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    private static <T> Column<T> column(String name, Writer<T> writer) {
        return new Column<>(name, writer);
    }

    /** The columns of {@code flows_<resolution>}. */
    static final List<Column<RollupRow>> ROLLUP_COLUMNS =
            List.of(
                    column("window_start", (r, out) -> out.dateTime(r.windowStart())),
                    column("kind", (r, out) -> out.int8(r.kind())),
                    column("exporter", (r, out) -> out.ipv6(r.exporter())),
                    column("interface", (r, out) -> out.uint32(r.iface())),
                    column("direction", (r, out) -> out.int8(r.direction())),
                    column("proto", (r, out) -> out.uint8(r.protocol())),
                    column("port", (r, out) -> out.uint16(r.port())),
                    column("src_as", (r, out) -> out.uint32(r.srcAs())),
                    column("dst_as", (r, out) -> out.uint32(r.dstAs())),
                    column("rank", (r, out) -> out.uint16(r.rank())),
                    column("src_addr", (r, out) -> out.ipv6(r.srcAddr())),
                    column("dst_addr", (r, out) -> out.ipv6(r.dstAddr())),
                    column("bytes", (r, out) -> out.uint64(r.bytes())),
                    column("packets", (r, out) -> out.uint64(r.packets())),
                    column("flows", (r, out) -> out.uint64(r.flows())),
                    column("bytes_error", (r, out) -> out.uint64(r.bytesError())),
                    column("version", (r, out) -> out.uint64(r.version())));

    /** The columns of {@code flows_context_<resolution>}. */
    static final List<Column<ContextRow>> CONTEXT_COLUMNS =
            List.of(
                    column("window_start", (r, out) -> out.dateTime(r.windowStart())),
                    column("kind", (r, out) -> out.int8(r.kind())),
                    column("exporter", (r, out) -> out.ipv6(r.exporter())),
                    column("interface", (r, out) -> out.uint32(r.iface())),
                    column("direction", (r, out) -> out.int8(r.direction())),
                    column("if_name", (r, out) -> out.string(r.ifName())),
                    column("in_boundary", (r, out) -> out.uint8(r.inBoundary())),
                    column("out_boundary", (r, out) -> out.uint8(r.outBoundary())),
                    column("proto", (r, out) -> out.uint8(r.protocol())),
                    column("src_as", (r, out) -> out.uint32(r.srcAs())),
                    column("dst_as", (r, out) -> out.uint32(r.dstAs())),
                    column("src_country", (r, out) -> out.string(r.srcCountry())),
                    column("dst_country", (r, out) -> out.string(r.dstCountry())),
                    column("bytes", (r, out) -> out.uint64(r.bytes())),
                    column("packets", (r, out) -> out.uint64(r.packets())),
                    column("flows", (r, out) -> out.uint64(r.flows())),
                    column("version", (r, out) -> out.uint64(r.version())));

    private final String table;
    private final List<Column<T>> columns;
    private final List<String> names;
    private final Placement<T> placement;

    private RollupRowEncoder(String table, List<Column<T>> columns, Placement<T> placement) {
        this.table = table;
        this.columns = columns;
        this.placement = placement;
        this.names = columns.stream().map(Column::name).toList();
    }

    /** Rows of a plain rollup table. */
    public static RollupRowEncoder<RollupRow> rollup(String table) {
        return new RollupRowEncoder<>(table, ROLLUP_COLUMNS, r -> ShardKeys.exporter(r.exporter()));
    }

    /** Rows of a context rollup table. */
    public static RollupRowEncoder<ContextRow> context(String table) {
        return new RollupRowEncoder<>(
                table, CONTEXT_COLUMNS, r -> ShardKeys.exporter(r.exporter()));
    }

    @Override
    public String table() {
        return table;
    }

    @Override
    public List<String> columns(ServerCapabilities caps) {
        return names;
    }

    @Override
    public long shardKey(T row) {
        return placement.shardKey(row);
    }

    @Override
    public void encode(T row, RowBinaryOutput out, ServerCapabilities caps) {
        for (int i = 0; i < columns.size(); i++) {
            columns.get(i).writer().write(row, out);
        }
    }
}
