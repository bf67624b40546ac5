// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.bench;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.Boundary;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import io.flowhouse.jobs.tables.EnrichedFlowRowEncoder;
import io.flowhouse.jobs.tables.FlowRowEncoder;
import io.flowhouse.jobs.tables.JobSchema;
import io.flowhouse.sinks.clickhouse.ClickHouseRowEncoder;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkMetrics;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkWriter;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Harness (not a test): ClickHouse server CPU per million enriched {@code flows} rows, inserted
 * with every column ({@code all}, what {@link EnrichedFlowRowEncoder} writes) against only the
 * columns a typical enrichment config can fill ({@code subset}: GeoIP country and ASN databases, no
 * rules file, no SNMP; the 20 rules-only string columns left to their DEFAULT), and the plain flow
 * columns alone ({@code plain}) for reference. Both enriched modes insert the same rows: the
 * rules-only columns are empty in them anyway. Starts its own {@link LocalClickHouse} (the Debian
 * 18.16 server, its own process, so its {@code /proc/PID/stat} CPU is the insert's alone), writes
 * through {@link ClickHouseSinkWriter} (the production writer, default batches) into a fresh
 * database per run, and alternates the modes for {@code rounds} rounds. Arguments: {@code [rows]
 * [rounds] [modes]}; see sinks/BENCHMARKS.md.
 *
 * <pre>
 * mvn -B -ntp -o -Pfast -pl flink-jobs test-compile
 * mvn -B -ntp -o -q -pl flink-jobs dependency:build-classpath -Dmdep.outputFile=/tmp/jobs.cp \
 *     -Dmdep.includeScope=test
 * cd flink-jobs &amp;&amp; java -Xmx2g -cp target/test-classes:target/classes:$(cat /tmp/jobs.cp) \
 *     io.flowhouse.jobs.bench.EnrichedColumnsBench 2000000 3 all,subset,plain
 * </pre>
 */
public final class EnrichedColumnsBench {

    /** Clock ticks per second of {@code /proc/PID/stat} times (USER_HZ, 100 on Linux). */
    private static final long TICKS_PER_SECOND = 100;

    /** Upper bound on waiting for the server's background merges after a run. */
    private static final int SETTLE_POLLS = 120;

    /** The context columns only a rules file fills (no source of a typical config can). */
    static final Set<String> RULES_ONLY =
            Set.of(
                    "exporter_role",
                    "exporter_site",
                    "exporter_region",
                    "exporter_tenant",
                    "in_if_boundary",
                    "in_if_provider",
                    "in_if_connectivity",
                    "out_if_boundary",
                    "out_if_provider",
                    "out_if_connectivity",
                    "src_net_name",
                    "src_net_role",
                    "src_net_site",
                    "src_net_region",
                    "src_net_tenant",
                    "dst_net_name",
                    "dst_net_role",
                    "dst_net_site",
                    "dst_net_region",
                    "dst_net_tenant");

    private static final String[] COUNTRIES = {"US", "DE", "FR", "NL", "GB", "JP", "BR", ""};

    /** Exporter names (options data or SNMP would give them), one per exporter. */
    private static final String[] EXPORTER_NAMES = names("edge-%d.pop%d", 8);

    /** Interface names, descriptions and speeds, 16 per exporter; no rules classification. */
    private static final InterfaceContext[] IFACES = ifaces();

    private EnrichedColumnsBench() {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        List<String> modes = List.of((args.length > 2 ? args[2] : "all,subset,plain").split(","));
        try (LocalClickHouse ch = LocalClickHouse.launch()) {
            long pid = ch.pid().orElseThrow();
            print(
                    "server pid %d (%s), %s, %,d rows a run, modes %s, %d rounds",
                    pid,
                    Files.readString(Path.of("/proc", Long.toString(pid), "comm")).trim(),
                    String.join(" | ", ch.query("SELECT version()")),
                    rows,
                    modes,
                    rounds);
            int run = 0;
            for (int round = 0; round < rounds; round++) {
                for (String mode : modes) {
                    run(ch, pid, mode, rows, "bench_cols_" + run++);
                }
            }
        }
    }

    private static void run(LocalClickHouse ch, long pid, String mode, int rows, String db)
            throws Exception {
        ClickHouseSinkOptions options =
                ClickHouseSinkOptions.builder()
                        .url(ch.httpUrl())
                        .user(ch.user())
                        .password(ch.password())
                        .database(db)
                        .build();
        ClickHouseRowEncoder<EnrichedFlow> encoder = encoder(mode);
        ClickHouseSinkMetrics metrics = new ClickHouseSinkMetrics();
        String load0 = loadAverage();
        long cpu0;
        long cpuInsert;
        double secs;
        int columns;
        try (ClickHouseSinkWriter<EnrichedFlow> w =
                ClickHouseSinkWriter.open(
                        options, encoder, JobSchema.migrations(30, 400), null, metrics, 0)) {
            columns = encoder.columns(w.capabilities()).size();
            if (mode.equals("dropped")) {
                for (String c : RULES_ONLY) {
                    ch.execute("ALTER TABLE " + db + ".flows DROP COLUMN " + c);
                }
            }
            FlowRecord.Builder b =
                    FlowRecord.builder()
                            .version(10)
                            .exporterPort(4739)
                            .observationDomainId(1)
                            .ipVersion(4);
            cpu0 = cpuTicks(pid);
            long t0 = System.nanoTime();
            for (int i = 0; i < rows; i++) {
                w.write(enriched(b, i), null);
            }
            w.flush(true);
            secs = (System.nanoTime() - t0) / 1e9;
            cpuInsert = cpuTicks(pid) - cpu0;
        }
        int polls = settle(ch);
        long cpuSettled = cpuTicks(pid) - cpu0;
        String load1 = loadAverage();
        String disk =
                String.join(
                        " ",
                        ch.query(
                                "SELECT sum(rows), sum(bytes_on_disk) FROM system.parts"
                                        + " WHERE active AND database = '"
                                        + db
                                        + "' AND table = 'flows'"));
        print(
                "%-6s %2d cols: %,d rows in %.2f s (%,.0f rows/s, %.0f MB RowBinary);"
                        + " server CPU insert %.2f s = %.3f s/M rows (%,.0f K rows/CPU-s),"
                        + " +merges %.2f s = %.3f s/M rows (settle %d polls); parts rows, bytes %s;"
                        + " load %s -> %s",
                mode,
                columns,
                metrics.rowsWritten(),
                secs,
                rows / secs,
                metrics.bytesWritten() / 1e6,
                cpuInsert / (double) TICKS_PER_SECOND,
                cpuInsert / (double) TICKS_PER_SECOND / (rows / 1e6),
                rows / (cpuInsert / (double) TICKS_PER_SECOND) / 1e3,
                cpuSettled / (double) TICKS_PER_SECOND,
                cpuSettled / (double) TICKS_PER_SECOND / (rows / 1e6),
                polls,
                disk,
                load0,
                load1);
        ch.execute("DROP DATABASE " + db);
    }

    /** Polls until no merge runs twice in a row (at most {@link #SETTLE_POLLS} x 0.5 s). */
    private static int settle(LocalClickHouse ch) throws InterruptedException {
        int quiet = 0;
        for (int i = 0; i < SETTLE_POLLS; i++) {
            Thread.sleep(500);
            String n = String.join("", ch.query("SELECT count() FROM system.merges"));
            quiet = "0".equals(n.trim()) ? quiet + 1 : 0;
            if (quiet == 2) {
                return i + 1;
            }
        }
        return SETTLE_POLLS;
    }

    static ClickHouseRowEncoder<EnrichedFlow> encoder(String mode) {
        return switch (mode) {
            case "all" -> new EnrichedFlowRowEncoder();
            case "subset", "dropped" -> new SubsetEncoder();
            case "plain" -> new PlainEncoder();
            default ->
                    throw new IllegalArgumentException(
                            "mode " + mode + " (expected: all, subset, dropped, plain)");
        };
    }

    /**
     * Flow {@code i}, as the e2e bench's enriched job sees it: country on most addresses, exporter
     * and interface names and speeds (options data), no VRF names, nothing from a rules file.
     */
    static EnrichedFlow enriched(FlowRecord.Builder b, long i) {
        long t = 1_705_320_000_000L + i * 9 / 25;
        int exporter = (int) (i % 8);
        long inIf = 1 + i % 16;
        long outIf = 1 + (i / 16) % 16;
        FlowRecord f =
                b.exporterAddress(IpAddress.ofIpv4(0xc0000201 + exporter))
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
                        .inputInterface(inIf)
                        .outputInterface(outIf)
                        .srcAs(64_512 + i % 251)
                        .dstAs(64_512 + i % 97)
                        .bytes(40 + i % 1500)
                        .packets(1 + i % 10)
                        .build();
        FlowContext c =
                new FlowContext(
                        new Attributes(EXPORTER_NAMES[exporter], "", "", "", ""),
                        iface(exporter, inIf),
                        iface(exporter, outIf),
                        COUNTRIES[(int) (i % 251 % COUNTRIES.length)],
                        COUNTRIES[(int) (i % 97 % COUNTRIES.length)],
                        f.srcAs(),
                        f.dstAs(),
                        Attributes.NONE,
                        Attributes.NONE);
        return new EnrichedFlow(f, c);
    }

    private static InterfaceContext iface(int exporter, long ifIndex) {
        return IFACES[exporter * 16 + (int) (ifIndex - 1)];
    }

    private static InterfaceContext[] ifaces() {
        InterfaceContext[] all = new InterfaceContext[8 * 16];
        for (int e = 0; e < 8; e++) {
            for (int i = 0; i < 16; i++) {
                all[e * 16 + i] =
                        new InterfaceContext(
                                String.format(Locale.ROOT, "xe-0/0/%d", i),
                                String.format(Locale.ROOT, "transit: carrier-%d circuit %d", e, i),
                                i < 4 ? 100_000 : 10_000,
                                Boundary.UNDEFINED,
                                "",
                                "");
            }
        }
        return all;
    }

    private static String[] names(String format, int n) {
        String[] names = new String[n];
        for (int i = 0; i < n; i++) {
            names[i] = String.format(Locale.ROOT, format, i + 1, i % 3);
        }
        return names;
    }

    /** Every flow column and the context columns outside {@link #RULES_ONLY}, in table order. */
    private static final class SubsetEncoder implements ClickHouseRowEncoder<EnrichedFlow> {

        private static final long serialVersionUID = 1L;

        private static final List<String> COLUMNS = subset();

        private final FlowRowEncoder flow = new FlowRowEncoder();

        private static List<String> subset() {
            List<String> c = new ArrayList<>();
            for (String name : EnrichedFlowRowEncoder.COLUMNS) {
                if (!RULES_ONLY.contains(name)) {
                    c.add(name);
                }
            }
            return List.copyOf(c);
        }

        @Override
        public String table() {
            return "flows";
        }

        @Override
        public List<String> columns(ServerCapabilities caps) {
            return COLUMNS;
        }

        @Override
        public long shardKey(EnrichedFlow e) {
            return 0;
        }

        @Override
        public void encode(EnrichedFlow e, RowBinaryOutput out, ServerCapabilities caps) {
            // The flow's own srcAs/dstAs are the context's here, so the plain encoder writes them.
            flow.encode(e.flow(), out, caps);
            FlowContext c = e.context();
            out.string(c.exporter().name());
            out.string(c.in().name());
            out.string(c.in().description());
            out.uint64(c.in().speedMbps());
            out.string(c.out().name());
            out.string(c.out().description());
            out.uint64(c.out().speedMbps());
            out.string(c.srcCountry());
            out.string(c.dstCountry());
            out.string(c.inVrfName());
            out.string(c.outVrfName());
        }
    }

    /** The flow columns only, as enrichment off writes them. */
    private static final class PlainEncoder implements ClickHouseRowEncoder<EnrichedFlow> {

        private static final long serialVersionUID = 1L;

        private final FlowRowEncoder flow = new FlowRowEncoder();

        @Override
        public String table() {
            return "flows";
        }

        @Override
        public List<String> columns(ServerCapabilities caps) {
            return FlowRowEncoder.COLUMNS;
        }

        @Override
        public long shardKey(EnrichedFlow e) {
            return 0;
        }

        @Override
        public void encode(EnrichedFlow e, RowBinaryOutput out, ServerCapabilities caps) {
            flow.encode(e.flow(), out, caps);
        }
    }

    /** User + system CPU time of {@code pid} in ticks ({@code /proc/PID/stat} fields 14, 15). */
    private static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        // The command name (field 2) may hold spaces; the fields after its ')' are fixed.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    private static String loadAverage() throws IOException {
        String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
        return f[0] + "/" + f[1];
    }

    private static void print(String format, Object... args) {
        System.out.println(String.format(Locale.ROOT, format, args));
    }
}
