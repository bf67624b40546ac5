// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.ipfix.IpfixExporter;
import io.flowhouse.sinks.ipfix.IpfixExporterOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code bench ipfix}: the IPFIX re-export ({@link IpfixExporter}, as the Flink sink runs it) over
 * loopback UDP into real collectors, a drop-free search per collector and message size in one run.
 *
 * <p>Each step starts a fresh collector (nfcapd, goflow2) and a fresh exporter (a new transport
 * session: templates first), offers flows at a fixed rate from this thread for the step time,
 * flushes, waits until the collector's socket queue is empty, and counts what the collector itself
 * wrote: {@code nfdump -r FILE -I} for nfcapd, JSON lines for goflow2. A step is clean when that
 * count equals the records sent (flows plus the reverse halves of split biflows, counted from the
 * input, not from the exporter), the kernel dropped nothing on the collector's socket ({@code
 * /proc/net/udp}), and neither the exporter (send errors, drops) nor the collector (goflow2 decoder
 * errors) counted a loss.
 *
 * <p>CPU: the exporting thread's own CPU time (encoding and {@code sendmsg}; the flows come from a
 * pre-decoded pool) and the collector process's from {@code /proc/PID/stat}.
 */
final class IpfixBench {

    static final String DEFAULT_RATES = "250000,500000,1000000,1500000,2000000,3000000";
    static final String DEFAULT_GOFLOW2_RATES = "2000,4000,8000,16000,32000";
    static final String DEFAULT_SYSTEMS = "nfcapd:65507,nfcapd:1400,goflow2:8960";

    /** nfcapd's receive buffer, as in {@code bench agent --peers}; capped by rmem_max. */
    private static final int NFCAPD_BUFFER = 4 << 20;

    /** goflow2 2.2.6 reads at most 9,000 bytes per datagram ({@code utils/udp.go}). */
    private static final int GOFLOW2_MAX_DATAGRAM = 9_000;

    /** Largest UDP payload over IPv4 (65,535 - 20 - 8), the most nfcapd can receive. */
    static final int MAX_UDP_PAYLOAD = 65_507;

    private static final long DRAIN_MILLIS = 15_000;

    private final List<FlowRecord> pool;
    private final int[] recordsPerFlow;
    private final int stepSeconds;
    private final Path work;
    private final PrintStream out;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private int stepNumber;
    private int cursor;

    IpfixBench(List<FlowRecord> pool, int stepSeconds, Path work, PrintStream out) {
        this.pool = pool;
        this.stepSeconds = stepSeconds;
        this.work = work;
        this.out = out;
        this.recordsPerFlow = new int[pool.size()];
        for (int i = 0; i < pool.size(); i++) {
            FlowRecord f = pool.get(i);
            // BiflowMode.SPLIT (the default) sends a biflow as two records, the forward one only
            // when it counted something.
            boolean biflow = f.reverseBytes() != 0 || f.reversePackets() != 0;
            boolean forward = f.bytes() != 0 || f.packets() != 0;
            recordsPerFlow[i] = biflow && forward ? 2 : 1;
        }
    }

    /** A collector started fresh for every step. */
    private interface Receiver {
        String name();

        ChildProcess start(Path dir, int port) throws IOException;

        /** The collector's socket is open: what {@link #start} changed for it can be put back. */
        default void listening() {}

        /**
         * Waits until the collector has processed what it received: its socket queue empty for a
         * second (nfcapd writes as it reads).
         */
        default void awaitDrained(Path dir, int port, long expected, long maxMillis)
                throws Exception {
            long deadline = System.nanoTime() + maxMillis * 1_000_000L;
            int quiet = 0;
            while (System.nanoTime() < deadline && quiet < 5) {
                quiet = BenchContext.udpQueueBytes(port) == 0 ? quiet + 1 : 0;
                Thread.sleep(200);
            }
        }

        /** The collector's own loss counters, read while it still runs. */
        Map<String, Long> internalDrops() throws Exception;

        /** Records the stopped collector wrote. */
        long count(Path dir) throws Exception;

        String note();
    }

    static int run(BenchOptions cl, Path stateDir, Path results, String runId, PrintStream out)
            throws Exception {
        long deadline = System.nanoTime() + cl.timeLimitSeconds() * 1_000_000_000L;
        List<Double> rates = cl.rates(DEFAULT_RATES);
        List<Double> goflow2Rates = cl.goflow2Rates(DEFAULT_GOFLOW2_RATES);
        int stepSeconds = cl.stepSeconds(5);
        int nice = cl.collectorNice();
        FanoutFlows.Pool pool = FanoutFlows.load();
        out.println("bench ipfix: input " + pool.source());
        Path work = Files.createDirectories(stateDir.resolve("bench").resolve(runId));
        IpfixBench bench = new IpfixBench(pool.flows(), stepSeconds, work, out);
        String alone = bench.exporterAlone(MAX_UDP_PAYLOAD);
        out.println("bench ipfix: " + alone);

        List<String[]> systems = new ArrayList<>();
        for (String s : cl.systems(DEFAULT_SYSTEMS).split(",")) {
            String[] kv = s.trim().split(":");
            if (kv.length != 2 || !List.of("nfcapd", "goflow2").contains(kv[0])) {
                throw new BenchOptions.UsageError(
                        "--systems takes COLLECTOR:MESSAGE_BYTES,... with nfcapd or goflow2, got "
                                + s);
            }
            systems.add(kv);
        }
        List<SystemResult> done = new ArrayList<>();
        for (int i = 0; i < systems.size(); i++) {
            String collector = systems.get(i)[0];
            int mtu = Integer.parseInt(systems.get(i)[1]);
            Receiver r;
            if (collector.equals("nfcapd")) {
                Path[] nf = PeerTools.nfdump(out);
                r = nfcapd(nf[0], nf[1], nice);
                mtu = Math.min(mtu, MAX_UDP_PAYLOAD);
            } else {
                r = goflow2(PeerTools.goflow2(out), nice);
                mtu = Math.min(mtu, GOFLOW2_MAX_DATAGRAM);
            }
            long share = (deadline - System.nanoTime()) / (systems.size() - i);
            List<Double> ladder = collector.equals("goflow2") ? goflow2Rates : rates;
            done.add(bench.search(r, mtu, ladder, System.nanoTime() + share, alone));
        }
        BenchReport.print(out, "ipfix", done);
        String settings =
                String.format(
                        Locale.ROOT,
                        "{\"input\": %s, \"step_seconds\": %d, \"collector_nice\": %d,"
                                + " \"rates\": %s, \"goflow2_rates\": %s, \"systems\": %s,"
                                + " \"exporter_alone\": %s}",
                        BenchReport.quote(pool.source()),
                        stepSeconds,
                        nice,
                        rates,
                        goflow2Rates,
                        BenchReport.quote(cl.systems(DEFAULT_SYSTEMS)),
                        BenchReport.quote(alone));
        Path json = BenchReport.write(results, "ipfix", runId, settings, done);
        out.println("bench: results in " + json + " (+ .csv, .png)");
        return done.stream().anyMatch(s -> s.steps().isEmpty()) ? 1 : 0;
    }

    /**
     * The exporter unpaced into a socket nobody reads: what it can send on this machine, with its
     * CPU per flow. The first round warms the JIT and is not reported.
     */
    String exporterAlone(int mtu) throws Exception {
        String result = "";
        for (int round = 0; round < 2; round++) {
            try (DatagramChannel sink = DatagramChannel.open()) {
                sink.bind(new InetSocketAddress("127.0.0.1", 0));
                int port = ((InetSocketAddress) sink.getLocalAddress()).getPort();
                Load l = load(port, mtu, Double.POSITIVE_INFINITY, round == 0 ? 2 : stepSeconds);
                result =
                        String.format(
                                Locale.ROOT,
                                "exporter alone (unpaced, %d-byte messages, into a socket nobody"
                                        + " reads): %,.0f flows/s, %,.0f records/s, %.0f ns CPU"
                                        + " per flow",
                                mtu,
                                l.flows / l.seconds,
                                l.metrics.recordsSent() / l.seconds,
                                l.cpuNanos / (double) Math.max(1, l.flows));
            }
        }
        return result;
    }

    private record Load(
            long flows,
            long records,
            double seconds,
            long cpuNanos,
            IpfixExporter.Metrics metrics) {}

    /**
     * Offers flows to a fresh exporter at {@code rate} flows/s for {@code seconds}, then flushes
     * and closes it. Paced from this thread: every wake-up sends what the clock says is due.
     */
    private Load load(int port, int mtu, double rate, int seconds) throws IOException {
        IpfixExporterOptions o =
                IpfixExporterOptions.builder()
                        .target("127.0.0.1:" + port)
                        .maxMessageBytes(mtu)
                        .sendBufferBytes(NFCAPD_BUFFER)
                        .build();
        long cpu = 0;
        long flows = 0;
        long records = 0;
        IpfixExporter.Metrics m;
        long t0;
        long t1;
        try (IpfixExporter e = new IpfixExporter(o.targets().get(0), o)) {
            t0 = System.nanoTime();
            long end = t0 + seconds * 1_000_000_000L;
            while (true) {
                long now = System.nanoTime();
                if (now - end >= 0) {
                    break;
                }
                long due =
                        Double.isInfinite(rate) ? flows + 1024 : (long) ((now - t0) / 1e9 * rate);
                if (flows >= due) {
                    LockSupport.parkNanos(100_000);
                    continue;
                }
                // CPU of the exporting only, not of the pacing's sleeps and wake-ups.
                long c0 = threads.getCurrentThreadCpuTime();
                for (long n = Math.min(due - flows, 4096); n > 0; n--) {
                    records += recordsPerFlow[cursor];
                    e.export(pool.get(cursor));
                    cursor = cursor + 1 == pool.size() ? 0 : cursor + 1;
                    flows++;
                }
                cpu += threads.getCurrentThreadCpuTime() - c0;
            }
            long c0 = threads.getCurrentThreadCpuTime();
            e.flush();
            cpu += threads.getCurrentThreadCpuTime() - c0;
            t1 = System.nanoTime();
            m = e.metrics();
        }
        return new Load(flows, records, (t1 - t0) / 1e9, cpu, m);
    }

    /** The drop-free search of {@code bench agent}, with this exporter as the load. */
    SystemResult search(Receiver r, int mtu, List<Double> rates, long deadlineNanos, String alone) {
        String name = r.name() + "/" + mtu;
        long budget = (stepSeconds * 1000L + DRAIN_MILLIS + 20_000L) * 1_000_000L;
        RateLadder.Outcome o =
                new RateLadder(rates, budget, deadlineNanos)
                        .climb(rate -> step(r, name, mtu, rate), StepResult::clean);
        if (o.failure() != null) {
            out.printf(Locale.ROOT, "bench ipfix: %s failed: %s%n", name, o.failure());
        }
        List<String> notes = new ArrayList<>();
        notes.add(
                "IpfixExporter (flowhouse sinks), UDP, max-message-bytes "
                        + mtu
                        + ", biflows split, unpaced exporter fed at the offered rate by the bench"
                        + " thread");
        notes.add(r.note());
        notes.add(alone);
        return new SystemResult(name, o.steps(), o.limited(), o.error(), notes);
    }

    private StepResult step(Receiver r, String name, int mtu, double rate) throws Exception {
        Path dir = Files.createDirectories(work.resolve(r.name() + "/step-" + stepNumber++));
        int port = BenchContext.freeUdpPort();
        ChildProcess p = r.start(dir, port);
        try {
            p.awaitUdp(port, 20);
            r.listening();
            long kernel0 = ProcStats.udpDrops(port);
            // Warm-up, counted: a collector pays once for every new exporter and observation
            // domain it sees (nfcapd loses datagrams in its first half second without it).
            Load w = load(port, mtu, Math.min(rate / 2, 50_000), 1);
            Thread.sleep(500);
            long ticks0 = ProcStats.cpuTicks(p.pid());
            long t0 = System.nanoTime();
            Load l = load(port, mtu, rate, stepSeconds);
            long expected = w.records + l.records;
            r.awaitDrained(dir, port, expected, DRAIN_MILLIS);
            double seconds = (System.nanoTime() - t0) / 1e9;
            long ticks = ProcStats.cpuTicks(p.pid()) - ticks0;
            long kernel = ProcStats.udpDrops(port) - kernel0;
            long rss = ProcStats.statusKb(p.pid(), "VmHWM");
            Map<String, Long> drops = new LinkedHashMap<>(r.internalDrops());
            drops.put(
                    "exporter_records_dropped",
                    w.metrics.recordsDropped() + l.metrics.recordsDropped());
            drops.put("exporter_send_errors", w.metrics.sendErrors() + l.metrics.sendErrors());
            p.stop(20);
            long delivered = r.count(dir);
            Map<String, Double> cpu = new LinkedHashMap<>();
            cpu.put("exporter", 100.0 * l.cpuNanos / 1e9 / seconds);
            cpu.put(r.name(), 100.0 * ticks / ProcStats.TICKS_PER_SECOND / seconds);
            Map<String, Long> mem = new LinkedHashMap<>();
            mem.put(r.name(), rss / 1024);
            double achieved = l.flows / l.seconds;
            StepResult s =
                    new StepResult(
                            name,
                            rate,
                            achieved,
                            achieved >= rate * 0.98,
                            l.flows,
                            l.metrics.messagesSent(),
                            "records",
                            expected,
                            delivered,
                            kernel,
                            drops,
                            cpu,
                            mem,
                            seconds);
            out.printf(
                    Locale.ROOT,
                    "bench: %-16s offered %,10.0f flows/s  sent %,10.0f/s (%,.0f records/s, %,d"
                            + " messages)  records %,d of %,d  kernel drops %,d  internal %s  CPU"
                            + " per flow: exporter %.0f ns, %s %.0f ns  %s%n",
                    name,
                    rate,
                    achieved,
                    l.records / l.seconds,
                    l.metrics.messagesSent(),
                    delivered,
                    expected,
                    kernel,
                    drops,
                    l.cpuNanos / (double) Math.max(1, l.flows),
                    r.name(),
                    ticks * 1e9 / ProcStats.TICKS_PER_SECOND / Math.max(1, l.flows),
                    s.clean() ? "clean" : "LOSS");
            return s;
        } finally {
            p.stop(20);
            deleteNfcapdFiles(dir);
        }
    }

    /**
     * The collector's command, under {@code nice -n N} when asked: on a shared machine the
     * collector's scheduling, not its CPU cost, decides when its socket buffer overflows.
     */
    private static List<String> niced(int nice, List<String> command) {
        if (nice == 0) {
            return command;
        }
        List<String> c = new ArrayList<>(List.of("nice", "-n", Integer.toString(nice)));
        c.addAll(command);
        return c;
    }

    private static String niceNote(int nice) {
        return nice == 0 ? "" : ", run under nice -n " + nice;
    }

    private static Receiver nfcapd(Path nfcapd, Path nfdump, int nice) {
        return new Receiver() {
            @Override
            public String name() {
                return "nfcapd";
            }

            @Override
            public ChildProcess start(Path dir, int port) throws IOException {
                return ChildProcess.start(
                        "nfcapd",
                        niced(
                                nice,
                                List.of(
                                        nfcapd.toString(),
                                        "-b",
                                        "127.0.0.1",
                                        "-p",
                                        Integer.toString(port),
                                        "-w",
                                        dir.toString(),
                                        "-B",
                                        Integer.toString(NFCAPD_BUFFER),
                                        "-t",
                                        "3600")),
                        dir.resolve("nfcapd.log"));
            }

            @Override
            public Map<String, Long> internalDrops() {
                return Map.of();
            }

            @Override
            public long count(Path dir) throws Exception {
                Path file = nfcapdFile(dir);
                if (file == null) {
                    return 0;
                }
                String info =
                        BenchContext.runTool(
                                List.of(nfdump.toString(), "-r", file.toString(), "-I"), 120);
                Matcher m = Pattern.compile("(?m)^Flows: *([0-9]+)").matcher(info);
                if (!m.find()) {
                    throw new IOException("no flow count in nfdump -I output: " + info);
                }
                return Long.parseLong(m.group(1));
            }

            @Override
            public String note() {
                return "nfcapd "
                        + nfcapd
                        + " -B "
                        + NFCAPD_BUFFER
                        + " -t 3600 (one per step), counted with nfdump -r FILE -I"
                        + niceNote(nice);
            }
        };
    }

    private static Receiver goflow2(Path binary, int nice) throws IOException {
        int metricsPort = BenchContext.freeTcpPort();
        return new Receiver() {
            private KernelSetting receiveBuffer;
            private String bufferNote = "";

            @Override
            public String name() {
                return "goflow2";
            }

            @Override
            public ChildProcess start(Path dir, int port) throws IOException {
                // goflow2 v2 has no receive-buffer flag: nfcapd's -B through the kernel's default
                // for new sockets, raised until goflow2's socket exists.
                receiveBuffer = KernelSetting.atLeast("net/core/rmem_default", NFCAPD_BUFFER);
                bufferNote = receiveBuffer.note();
                return ChildProcess.start(
                        "goflow2",
                        niced(
                                nice,
                                List.of(
                                        binary.toString(),
                                        "-listen",
                                        "netflow://127.0.0.1:" + port + "?workers=1",
                                        "-addr",
                                        "127.0.0.1:" + metricsPort,
                                        "-format",
                                        "json",
                                        "-transport",
                                        "file",
                                        "-transport.file",
                                        dir.resolve("flows.json").toString(),
                                        "-loglevel",
                                        "warn")),
                        dir.resolve("goflow2.log"));
            }

            @Override
            public Map<String, Long> internalDrops() throws Exception {
                PrometheusScrape m =
                        PrometheusScrape.fetch("http://127.0.0.1:" + metricsPort + "/metrics");
                return Map.of("goflow2_decoder_errors", m.sum("goflow2_flow_decoder_error_total"));
            }

            /** goflow2 decodes and writes behind its socket: wait for its output to settle. */
            @Override
            public void awaitDrained(Path dir, int port, long expected, long maxMillis)
                    throws Exception {
                BenchContext.awaitStable(() -> lines(dir), expected, maxMillis, 1_500);
            }

            private long lines(Path dir) throws IOException {
                Path f = dir.resolve("flows.json");
                if (!Files.exists(f)) {
                    return 0;
                }
                try (Stream<String> lines = Files.lines(f)) {
                    return lines.filter(l -> !l.isBlank()).count();
                }
            }

            @Override
            public long count(Path dir) throws IOException {
                Path f = dir.resolve("flows.json");
                if (!Files.exists(f)) {
                    return 0;
                }
                long n;
                try (Stream<String> lines = Files.lines(f)) {
                    n = lines.filter(l -> !l.isBlank()).count();
                }
                Files.delete(f);
                return n;
            }

            @Override
            public String note() {
                return "goflow2 "
                        + binary
                        + " -format json -transport file (one per step, ?workers=1), counted as"
                        + " JSON lines; it has no receive-buffer flag, so its socket gets nfcapd's -B"
                        + " through the kernel default ("
                        + bufferNote
                        + "); it reads at most 9,000 bytes per datagram"
                        + niceNote(nice);
            }

            @Override
            public void listening() {
                receiveBuffer.close();
            }
        };
    }

    private static Path nfcapdFile(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("nfcapd.2"))
                    .findFirst()
                    .orElse(null);
        }
    }

    /** Counted files are deleted: at a million flows/s a step's file is hundreds of MB. */
    private static void deleteNfcapdFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String n = f.getFileName().toString();
                if (n.startsWith("nfcapd.") && !n.endsWith(".log")) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }
}
