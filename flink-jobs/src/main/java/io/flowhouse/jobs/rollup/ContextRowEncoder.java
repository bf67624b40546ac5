// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.sinks.clickhouse.ClickHouseRowEncoder;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.sinks.clickhouse.ShardKeys;
import java.util.List;

/** {@link ContextRow}s as RowBinary rows of {@code flows_context_<resolution>}. */
public final class ContextRowEncoder implements ClickHouseRowEncoder<ContextRow> {

    private static final long serialVersionUID = 1L;

    public static final List<String> COLUMNS =
            List.of(
                    "window_start",
                    "kind",
                    "exporter",
                    "interface",
                    "direction",
                    "if_name",
                    "in_boundary",
                    "out_boundary",
                    "proto",
                    "src_as",
                    "dst_as",
                    "src_country",
                    "dst_country",
                    "bytes",
                    "packets",
                    "flows",
                    "version");

    private final String table;

    public ContextRowEncoder(String table) {
        this.table = table;
    }

    @Override
    public String table() {
        return table;
    }

    @Override
    public List<String> columns(ServerCapabilities caps) {
        return COLUMNS;
    }

    /** By exporter, like every table of the job. */
    @Override
    public long shardKey(ContextRow r) {
        return ShardKeys.exporter(r.exporter());
    }

    @Override
    public void encode(ContextRow r, RowBinaryOutput out, ServerCapabilities caps) {
        out.dateTime(r.windowStart());
        out.int8(r.kind());
        out.ipv6(r.exporter());
        out.uint32(r.iface());
        out.int8(r.direction());
        out.string(r.ifName());
        out.uint8(r.inBoundary());
        out.uint8(r.outBoundary());
        out.uint8(r.protocol());
        out.uint32(r.srcAs());
        out.uint32(r.dstAs());
        out.string(r.srcCountry());
        out.string(r.dstCountry());
        out.uint64(r.bytes());
        out.uint64(r.packets());
        out.uint64(r.flows());
        out.uint64(r.version());
    }
}
