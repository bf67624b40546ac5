// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkMetrics;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkWriter;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.testkit.clickhouse.ClickHouseService;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import java.util.Locale;

/**
 * Harness (not a unit test): rows/s the ClickHouse writer sustains into a local server, and what
 * {@code FINAL} costs on the result. Starts its own {@link LocalClickHouse} (the Debian 18.16
 * server). Arguments: {@code [rows] [batchRows] [replayFraction]}; see sinks/BENCHMARKS.md.
 */
public final class ClickHouseInsertBenchmark {

    private ClickHouseInsertBenchmark() {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 5_000_000;
        int batch = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        double replay = args.length > 2 ? Double.parseDouble(args[2]) : 0.02;
        try (LocalClickHouse ch = LocalClickHouse.launch()) {
            run(ch, rows, batch, replay);
        }
    }

    static FlowRecord flow(FlowRecord.Builder b, long i) {
        long t = 1_705_320_000_000L + i * 9 / 25; // 0.36 ms apart: 5 M flows span 30 minutes
        int exporter = (int) (i % 8);
        return b.exporterAddress(IpAddress.ofIpv4(0xc0000201 + exporter))
                .sequenceNumber(i / 30)
                .recordIndex((int) (i % 30))
                .timeReceivedMillis(t)
                .flowStartMillis(t - 30_000)
                .flowEndMillis(t)
                .exportTimeMillis(t)
                .srcAddr(IpAddress.ofIpv4(0xc6336400 + (int) (i % 251)))
                .dstAddr(IpAddress.ofIpv4(0xcb007100 + (int) (i % 97)))
                .srcPort((int) (1024 + i % 50_000))
                .dstPort(i % 7 == 0 ? 53 : 443)
                .protocol(i % 7 == 0 ? 17 : 6)
                .inputInterface(1 + i % 16)
                .outputInterface(1 + (i / 16) % 16)
                .bytes(40 + i % 1500)
                .packets(1 + i % 10)
                .build();
    }

    static void run(ClickHouseService ch, int rows, int batch, double replay) throws Exception {
        String db = "bench";
        FlowRecord.Builder b =
                FlowRecord.builder()
                        .version(10)
                        .exporterPort(4739)
                        .observationDomainId(1)
                        .ipVersion(4);
        // Encode only (no network): the writer's CPU cost per row.
        FlowRowEncoder enc = new FlowRowEncoder();
        ServerCapabilities caps = ServerCapabilities.legacy("18.16.1");
        RowBinaryOutput out = new RowBinaryOutput(64 << 20);
        int encodeRows = Math.min(rows, 2_000_000);
        long t0 = System.nanoTime();
        for (int i = 0; i < encodeRows; i++) {
            enc.encode(flow(b, i), out, caps);
            if (out.size() > (48 << 20)) {
                out.reset();
            }
        }
        double encodeSecs = (System.nanoTime() - t0) / 1e9;
        print(
                "generate+encode only: %,d rows in %.2f s = %,.0f rows/s",
                encodeRows, encodeSecs, encodeRows / encodeSecs);

        ClickHouseSinkOptions options =
                ClickHouseSinkOptions.builder()
                        .url(ch.httpUrl())
                        .database(db)
                        .batchMaxRows(batch)
                        .build();
        ClickHouseSinkMetrics metrics = new ClickHouseSinkMetrics();
        long serverCpu0 = serverCpuMillis(ch);
        long jvmCpu0 = jvmCpuMillis();
        long t1;
        try (ClickHouseSinkWriter<FlowRecord> w =
                ClickHouseSinkWriter.open(
                        options,
                        new FlowRowEncoder(),
                        ClickHouseTestSupport.SCHEMA,
                        null,
                        metrics,
                        0)) {
            t1 = System.nanoTime();
            for (int i = 0; i < rows; i++) {
                w.write(flow(b, i), null);
            }
            w.flush(true);
        }
        double secs = (System.nanoTime() - t1) / 1e9;
        long serverCpu = serverCpuMillis(ch) - serverCpu0;
        long jvmCpu = jvmCpuMillis() - jvmCpu0;
        print(
                "insert: %,d rows, %,d batches of %,d, %.1f MB RowBinary in %.2f s = %,.0f rows/s"
                        + " (insert latency p50 %.0f ms, p99 %.0f ms)",
                metrics.rowsWritten(),
                metrics.batchesWritten(),
                batch,
                metrics.bytesWritten() / 1e6,
                secs,
                rows / secs,
                metrics.insertLatencyMs().getStatistics().getQuantile(0.5),
                metrics.insertLatencyMs().getStatistics().getQuantile(0.99));
        print(
                "cpu during insert: clickhouse-server %.1f s (%.2f cores), writer JVM %.1f s (%.2f"
                        + " cores) over %.1f s wall",
                serverCpu / 1e3, serverCpu / 1e3 / secs, jvmCpu / 1e3, jvmCpu / 1e3 / secs, secs);

        // Replay a slice (as after a failure) so there are duplicates to collapse.
        int dup = (int) (rows * replay);
        try (ClickHouseSinkWriter<FlowRecord> w =
                ClickHouseSinkWriter.open(
                        options,
                        new FlowRowEncoder(),
                        ClickHouseTestSupport.SCHEMA,
                        null,
                        new ClickHouseSinkMetrics(),
                        0)) {
            for (int i = rows - dup; i < rows; i++) {
                w.write(flow(b, i), null);
            }
            w.flush(true);
        }
        print("replayed %,d rows (%.0f %%) as duplicates", dup, replay * 100);
        String all = "SELECT count(), sum(bytes), sum(packets) FROM bench.flows";
        String slice =
                "SELECT count(), sum(bytes) FROM bench.flows%s WHERE time_received >= toDateTime('2024-01-15 12:10:00')"
                        + " AND time_received < toDateTime('2024-01-15 12:15:00')"
                        + " AND exporter = toFixedString(unhex('00000000000000000000ffffc0000203'), 16)";
        String perIf =
                "SELECT in_if, sum(bytes) FROM bench.flows%s GROUP BY in_if ORDER BY in_if LIMIT 3";
        String groupByRowId =
                "SELECT count(), sum(b), sum(p) FROM (SELECT any(bytes) AS b, any(packets) AS p"
                        + " FROM bench.flows GROUP BY toStartOfFiveMinute(time_received), exporter,"
                        + " in_if, out_if, row_id)";
        for (int round = 0; round < 2; round++) {
            time(ch, "whole table, GROUP BY key+row_id", groupByRowId);
            time(ch, "whole table, plain", all);
            time(ch, "whole table, FINAL", all.replace("bench.flows", "bench.flows FINAL"));
            time(ch, "5 min x 1 exporter, plain", String.format(Locale.ROOT, slice, ""));
            time(ch, "5 min x 1 exporter, FINAL", String.format(Locale.ROOT, slice, " FINAL"));
            time(ch, "group by in_if, plain", String.format(Locale.ROOT, perIf, ""));
            time(ch, "group by in_if, FINAL", String.format(Locale.ROOT, perIf, " FINAL"));
        }
        long t2 = System.nanoTime();
        ch.execute("OPTIMIZE TABLE bench.flows FINAL");
        print("OPTIMIZE TABLE FINAL: %.2f s", (System.nanoTime() - t2) / 1e9);
        time(ch, "whole table after OPTIMIZE, plain", all);
        time(
                ch,
                "whole table after OPTIMIZE, FINAL",
                all.replace("bench.flows", "bench.flows FINAL"));
    }

    private static long serverCpuMillis(ClickHouseService ch) {
        if (ch instanceof LocalClickHouse l) {
            return l.pid()
                    .flatMap(ProcessHandle::of)
                    .flatMap(p -> p.info().totalCpuDuration())
                    .map(java.time.Duration::toMillis)
                    .orElse(-1L);
        }
        return -1;
    }

    private static long jvmCpuMillis() {
        return ProcessHandle.current()
                .info()
                .totalCpuDuration()
                .map(java.time.Duration::toMillis)
                .orElse(-1L);
    }

    private static void time(ClickHouseService ch, String label, String sql) {
        long t = System.nanoTime();
        String r = String.join(" | ", ch.query(sql));
        print(
                "query %-36s %8.3f s  -> %s",
                label, (System.nanoTime() - t) / 1e9, r.length() > 80 ? r.substring(0, 80) : r);
    }

    private static void print(String format, Object... args) {
        System.out.println(String.format(Locale.ROOT, format, args));
    }
}
