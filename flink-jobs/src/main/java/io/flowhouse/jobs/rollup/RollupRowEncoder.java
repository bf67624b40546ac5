// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.sinks.clickhouse.ClickHouseRowEncoder;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.sinks.clickhouse.ShardKeys;
import java.util.List;

/** RowBinary rows of one rollup table ({@link RollupTables}). */
public final class RollupRowEncoder implements ClickHouseRowEncoder<RollupRow> {

    private static final long serialVersionUID = 1L;

    public static final List<String> COLUMNS =
            List.of(
                    "window_start",
                    "kind",
                    "exporter",
                    "interface",
                    "direction",
                    "proto",
                    "port",
                    "src_as",
                    "dst_as",
                    "rank",
                    "src_addr",
                    "dst_addr",
                    "bytes",
                    "packets",
                    "flows",
                    "bytes_error",
                    "version");

    private final String table;

    public RollupRowEncoder(String table) {
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
    public long shardKey(RollupRow r) {
        return ShardKeys.exporter(r.exporter());
    }

    @Override
    public void encode(RollupRow r, RowBinaryOutput out, ServerCapabilities caps) {
        out.dateTime(r.windowStart());
        out.int8(r.kind());
        out.ipv6(r.exporter());
        out.uint32(r.iface());
        out.int8(r.direction());
        out.uint8(r.protocol());
        out.uint16(r.port());
        out.uint32(r.srcAs());
        out.uint32(r.dstAs());
        out.uint16(r.rank());
        out.ipv6(r.srcAddr());
        out.ipv6(r.dstAddr());
        out.uint64(r.bytes());
        out.uint64(r.packets());
        out.uint64(r.flows());
        out.uint64(r.bytesError());
        out.uint64(r.version());
    }
}
