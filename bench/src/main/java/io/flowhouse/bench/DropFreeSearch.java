// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import io.flowhouse.loadgen.LoadgenMain;
import io.flowhouse.loadgen.LoadgenOptions;
import io.flowhouse.loadgen.report.RunSummary;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Steps the offered rate up until a system loses anything anywhere (missing output, kernel socket
 * drops, its own drop/reject counters, or, where its output's visibility is measured, rows seen too
 * long after the load ended: {@link StepResult#dropFree()}), then tries once between the last clean
 * and the first lossy rate ({@link RateLadder}). The load comes from loadgen in this JVM, over
 * loopback UDP. Bounded: a step takes its load time plus at most the drain time, and the search
 * stops at its deadline.
 */
final class DropFreeSearch {

    /**
     * @param protocol loadgen protocol (v5, v9, ipfix, mix)
     * @param exporters simulated exporters
     * @param rates offered flows/s, ascending
     * @param stepSeconds load time per step
     * @param drainMillis most time to wait for a system to catch up after a step
     * @param replayPool loadgen replay pool size (0 = generate live)
     * @param bind loadgen's source address (null: 127.0.0.1)
     * @param maxDatagram loadgen's largest datagram in bytes (0: its default)
     */
    record Settings(
            String protocol,
            int exporters,
            List<Double> rates,
            int stepSeconds,
            long drainMillis,
            int replayPool,
            String bind,
            int maxDatagram,
            WarmUp warmUp,
            int refineSteps,
            double refineGap) {
        Settings(
                String protocol,
                int exporters,
                List<Double> rates,
                int stepSeconds,
                long drainMillis,
                int replayPool,
                String bind,
                int maxDatagram) {
            this(
                    protocol,
                    exporters,
                    rates,
                    stepSeconds,
                    drainMillis,
                    replayPool,
                    bind,
                    maxDatagram,
                    WarmUp.ramp(rates.get(0) / 2, 3, 1),
                    1,
                    0);
        }

        Settings(
                String protocol,
                int exporters,
                List<Double> rates,
                int stepSeconds,
                long drainMillis,
                int replayPool,
                String bind) {
            this(protocol, exporters, rates, stepSeconds, drainMillis, replayPool, bind, 0);
        }

        Settings(
                String protocol,
                int exporters,
                List<Double> rates,
                int stepSeconds,
                long drainMillis,
                int replayPool) {
            this(protocol, exporters, rates, stepSeconds, drainMillis, replayPool, null);
        }

        /**
         * These settings with another warm-up and ladder refinement ({@link RateLadder#refined}).
         */
        Settings with(WarmUp w, int steps, double gap) {
            return new Settings(
                    protocol,
                    exporters,
                    rates,
                    stepSeconds,
                    drainMillis,
                    replayPool,
                    bind,
                    maxDatagram,
                    w,
                    steps,
                    gap);
        }
    }

    /**
     * The unmeasured load a system gets before its first step, each part drained before the next:
     * the same for every system of a search, so that a system that needs longer to warm (a job with
     * more operators and state) is not measured cold while another is measured warm.
     *
     * @param rates offered flows/s of each part, ascending
     * @param secondsEach load time of each part
     */
    record WarmUp(List<Double> rates, int secondsEach) {

        /**
         * {@code parts} loads ramping up evenly to {@code top} flows/s over about {@code seconds}
         * (at least one second each).
         */
        static WarmUp ramp(double top, int seconds, int parts) {
            if (top <= 0 || seconds < 1 || parts < 1) {
                throw new IllegalArgumentException(
                        "warm-up to " + top + " flows/s, " + seconds + " s, " + parts + " parts");
            }
            List<Double> r = new ArrayList<>();
            for (int i = 1; i <= parts; i++) {
                r.add((double) Math.round(top * i / parts));
            }
            return new WarmUp(List.copyOf(r), Math.max(1, seconds / parts));
        }

        int seconds() {
            return rates.size() * secondsEach;
        }
    }

    private final Settings settings;
    private final PrintStream log;
    private final Map<String, Long> sharedProcesses;

    /**
     * @param sharedProcesses processes measured in every step besides the system's own (the loadgen
     *     JVM, the Kafka broker)
     */
    DropFreeSearch(Settings settings, PrintStream log, Map<String, Long> sharedProcesses) {
        this.settings = settings;
        this.log = log;
        this.sharedProcesses = sharedProcesses;
    }

    SystemResult run(Collector c, long deadlineNanos) {
        RateLadder.Outcome o;
        try {
            o = search(c, deadlineNanos);
            if (o.failure() != null) {
                log.printf(Locale.ROOT, "bench: %s failed: %s%n", c.name(), o.failure());
            }
        } finally {
            try {
                c.close();
            } catch (Exception e) {
                log.printf(Locale.ROOT, "bench: closing %s: %s%n", c.name(), e);
            }
        }
        return new SystemResult(c.name(), o.steps(), o.limited(), o.error(), c.notes());
    }

    private RateLadder.Outcome search(Collector c, long deadlineNanos) {
        long warm;
        try {
            c.open();
            long w0 = System.nanoTime();
            warmUp(c);
            warm = System.nanoTime() - w0;
        } catch (Exception e) {
            return RateLadder.Outcome.failed(e);
        }
        // The time limit bounds the steps; the warm-up (45 s and its drains for e2e) comes on top.
        return new RateLadder(settings.rates(), stepBudgetNanos(), deadlineNanos + warm)
                .refined(settings.refineSteps(), settings.refineGap())
                .climb(rate -> step(c, rate), StepResult::dropFree);
    }

    /**
     * Runs loadgen for a few seconds into a socket nobody reads, so the first measured step does
     * not pay for the JIT.
     */
    void warmUp() throws Exception {
        try (java.nio.channels.DatagramChannel sink = java.nio.channels.DatagramChannel.open()) {
            sink.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
            int port = ((java.net.InetSocketAddress) sink.getLocalAddress()).getPort();
            load(port, settings.rates().get(0), 3);
        }
    }

    /**
     * The unmeasured load of {@link Settings#warmUp} into the system itself (JIT, connections,
     * metadata, the job's state and heap), each part drained before the next and the first step.
     * Systems started per step (nfcapd) are warmed by nothing; they need none.
     */
    private void warmUp(Collector c) throws Exception {
        if (c instanceof NfcapdCollector) {
            return;
        }
        WarmUp plan = settings.warmUp();
        if (plan.seconds() > 3) {
            log.printf(
                    Locale.ROOT,
                    "bench: %s warm-up (not measured): %s flows/s, %d s each%n",
                    c.name(),
                    plan.rates(),
                    plan.secondsEach());
        }
        for (double rate : plan.rates()) {
            c.beginStep();
            RunSummary w = load(c.port(), rate, plan.secondsEach());
            c.loadSent(w);
            c.awaitDrained(
                    "datagrams".equals(c.unit()) ? w.datagrams() : w.flows(),
                    settings.drainMillis());
            c.finishStep();
        }
    }

    private long stepBudgetNanos() {
        return (settings.stepSeconds() * 1000L + settings.drainMillis() + 5_000L) * 1_000_000L;
    }

    private StepResult step(Collector c, double rate) throws Exception {
        c.beginStep();
        long kernel0 = ProcStats.udpDrops(c.port());
        Map<String, Long> drops0 = c.internalDrops();
        Map<String, Long> pids = new LinkedHashMap<>(c.processes());
        pids.putAll(sharedProcesses);
        Map<String, Long> ticks0 = new LinkedHashMap<>();
        pids.forEach((n, pid) -> ticks0.put(n, ProcStats.cpuTicks(pid)));
        long t0 = System.nanoTime();

        RunSummary load = load(c.port(), rate, settings.stepSeconds());
        long expected = "datagrams".equals(c.unit()) ? load.datagrams() : load.flows();
        c.loadSent(load);
        c.awaitDrained(expected, settings.drainMillis());

        double seconds = (System.nanoTime() - t0) / 1e9;
        Map<String, Double> cpu = new LinkedHashMap<>();
        Map<String, Long> rss = new LinkedHashMap<>();
        pids.forEach(
                (n, pid) -> {
                    long t = ProcStats.cpuTicks(pid);
                    long before = ticks0.getOrDefault(n, -1L);
                    if (t >= 0 && before >= 0) {
                        cpu.put(n, 100.0 * (t - before) / ProcStats.TICKS_PER_SECOND / seconds);
                    }
                    long hwm = ProcStats.statusKb(pid, "VmHWM");
                    if (hwm >= 0) {
                        rss.put(n, hwm / 1024);
                    }
                });
        long kernel = ProcStats.udpDrops(c.port()) - kernel0;
        long delivered = c.finishStep();
        Map<String, Long> drops1 = c.internalDrops();
        Map<String, Long> drops = new LinkedHashMap<>();
        drops1.forEach((k, v) -> drops.put(k, v - drops0.getOrDefault(k, 0L)));
        StepResult s =
                new StepResult(
                        c.name(),
                        rate,
                        load.achievedRate(),
                        load.rateHeld(),
                        load.flows(),
                        load.datagrams(),
                        c.unit(),
                        expected,
                        delivered,
                        kernel,
                        drops,
                        cpu,
                        rss,
                        seconds,
                        c.visibility());
        log.printf(
                Locale.ROOT,
                "bench: %-16s offered %,9.0f flows/s  sent %,10.0f/s%s  %s %,d of %,d  kernel drops"
                        + " %,d  internal %s  %s  cpu %s  load %s%n",
                c.name(),
                rate,
                load.achievedRate(),
                load.rateHeld() ? "" : " (loadgen limit)",
                c.unit(),
                delivered,
                expected,
                kernel,
                drops,
                s.clean() ? (s.dropFree() ? "clean" : "clean but NOT sustained") : "LOSS",
                cpu.keySet().stream()
                        .map(
                                n ->
                                        String.format(
                                                Locale.ROOT,
                                                "%s=%.0f%%/%,.0f flows per CPU-s",
                                                n,
                                                cpu.get(n),
                                                s.flowsPerCpuSecond().getOrDefault(n, 0.0)))
                        .collect(java.util.stream.Collectors.joining(" ")),
                BenchReport.loadAverage().split(" ")[0]);
        return s;
    }

    private RunSummary load(int port, double rate, int seconds) throws Exception {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--to",
                                "127.0.0.1:" + port,
                                "--protocol",
                                settings.protocol(),
                                "--exporters",
                                Integer.toString(settings.exporters()),
                                "--rate",
                                Long.toString(Math.round(rate)),
                                "--duration",
                                seconds + "s",
                                "--seed",
                                "1",
                                "--quiet"));
        if (settings.replayPool() > 0) {
            args.add("--replay-pool");
            args.add(Integer.toString(settings.replayPool()));
        }
        if (settings.bind() != null) {
            args.add("--bind");
            args.add(settings.bind());
        }
        if (settings.maxDatagram() > 0) {
            args.add("--max-datagram");
            args.add(Integer.toString(settings.maxDatagram()));
        }
        LoadgenOptions o =
                LoadgenOptions.parse(args.toArray(new String[0]), System.currentTimeMillis());
        return LoadgenMain.send(o, log);
    }
}
