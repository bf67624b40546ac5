// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Writes a stage's results: a table on the terminal, {@code <stage>-<run>.json} and {@code .csv}
 * under {@code bench/results/}, and the rate-vs-loss PNG beside them.
 */
final class BenchReport {
    private BenchReport() {}

    static void print(PrintStream out, String stage, List<SystemResult> systems) {
        out.printf(
                Locale.ROOT,
                "%n== bench %s: drop-free search (load average now: %s) ==%n",
                stage,
                loadAverage());
        out.printf(
                Locale.ROOT,
                "%-16s %12s %12s %12s %12s %9s %9s %9s %-28s %-26s %-9s %-15s %s%n",
                "system",
                "offered/s",
                "sent/s",
                "expected",
                "delivered",
                "lost",
                "kernel",
                "internal",
                "cpu % (1 core = 100)",
                "peak rss MiB",
                "sustained",
                "lag p50/p99 s",
                "result");
        for (SystemResult s : systems) {
            for (StepResult st : s.steps()) {
                out.printf(
                        Locale.ROOT,
                        "%-16s %,12.0f %,12.0f %,12d %,12d %,9d %,9d %,9d %-28s %-26s %-9s %-15s"
                                + " %s%n",
                        s.system(),
                        st.targetRate(),
                        st.achievedRate(),
                        st.expected(),
                        st.delivered(),
                        st.lost(),
                        st.kernelDrops(),
                        st.internalDropTotal(),
                        format(st.cpuPercent()),
                        formatLong(st.peakRssMb()),
                        sustainedColumn(st),
                        lagColumn(st),
                        st.clean() ? (st.rateHeld() ? "clean" : "clean (loadgen limit)") : "LOSS");
            }
        }
        out.println();
        out.printf(
                Locale.ROOT,
                "%-16s %26s %12s %12s  %s%n",
                "system",
                "highest drop-free flows/s",
                "cpu %",
                "rss MiB",
                "note");
        for (SystemResult s : systems) {
            StepResult best = s.bestStep();
            String sys = s.system();
            out.printf(
                    Locale.ROOT,
                    "%-16s %26s %12s %12s  %s%n",
                    sys,
                    best == null
                            ? "none"
                            : (s.loadgenLimited() ? ">= " : "")
                                    + String.format(Locale.ROOT, "%,.0f", best.achievedRate()),
                    best == null ? "-" : String.format(Locale.ROOT, "%.0f", ownCpu(best)),
                    best == null ? "-" : Long.toString(ownRss(best)),
                    s.error() != null
                            ? s.error()
                            : s.loadgenLimited()
                                    ? "no loss seen: lower bound (loadgen ceiling or highest"
                                            + " --rates value)"
                                    : "");
        }
    }

    /**
     * "yes" / "no" (with the time the last row came after the load), "-" where the stage does not
     * measure visibility.
     */
    static String sustainedColumn(StepResult st) {
        Visibility v = st.visibility();
        if (v == null) {
            return "-";
        }
        if (Double.isInfinite(v.catchUpSeconds())) {
            return "no (none)";
        }
        // Rounded up, so a "no" never shows the bound itself.
        return String.format(
                Locale.ROOT,
                "%s %.1fs",
                v.withinLag() ? "yes" : "no",
                Math.ceil(v.catchUpSeconds() * 10) / 10);
    }

    static String lagColumn(StepResult st) {
        Visibility v = st.visibility();
        if (v == null || Double.isNaN(v.p50Seconds())) {
            return "-";
        }
        return String.format(Locale.ROOT, "%.1f/%.1f", v.p50Seconds(), v.p99Seconds());
    }

    /** CPU of the system's own processes (not loadgen or Kafka). */
    static double ownCpu(StepResult s) {
        return s.cpuPercent().entrySet().stream()
                .filter(e -> !e.getKey().equals("loadgen") && !e.getKey().equals("kafka"))
                .mapToDouble(Map.Entry::getValue)
                .sum();
    }

    static long ownRss(StepResult s) {
        return s.peakRssMb().entrySet().stream()
                .filter(e -> !e.getKey().equals("loadgen") && !e.getKey().equals("kafka"))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    /** Writes JSON, CSV and PNG; returns the JSON path. */
    static Path write(
            Path dir, String stage, String runId, String settings, List<SystemResult> systems)
            throws IOException {
        Files.createDirectories(dir);
        String base = stage + "-" + runId;
        Path json = dir.resolve(base + ".json");
        Files.writeString(json, json(stage, runId, settings, systems), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(base + ".csv"), csv(systems), StandardCharsets.UTF_8);
        LossChart.write(
                dir.resolve(base + ".png"),
                "flowhouse bench " + stage + ": loss vs rate (" + runId + ")",
                systems);
        return json;
    }

    static String csv(List<SystemResult> systems) {
        StringBuilder sb =
                new StringBuilder(
                        "system,offered_flows_per_s,sent_flows_per_s,rate_held,sent_flows,"
                                + "sent_datagrams,unit,expected,delivered,lost,loss_percent,"
                                + "kernel_drops,internal_drops,cpu_percent,peak_rss_mib,seconds,"
                                + "flows_per_cpu_second,clean,sustained,lag_p50_s,lag_p99_s,"
                                + "last_row_after_load_s,max_lag_s,drop_free\n");
        for (SystemResult s : systems) {
            for (StepResult st : s.steps()) {
                sb.append(
                        String.format(
                                Locale.ROOT,
                                "%s,%.0f,%.1f,%s,%d,%d,%s,%d,%d,%d,%.4f,%d,%d,\"%s\",\"%s\",%.2f,"
                                        + "\"%s\",%s,%s,%s,%s,%s,%s,%s%n",
                                st.system(),
                                st.targetRate(),
                                st.achievedRate(),
                                st.rateHeld(),
                                st.sentFlows(),
                                st.sentDatagrams(),
                                st.unit(),
                                st.expected(),
                                st.delivered(),
                                st.lost(),
                                st.lossPercent(),
                                st.kernelDrops(),
                                st.internalDropTotal(),
                                format(st.cpuPercent()),
                                formatLong(st.peakRssMb()),
                                st.seconds(),
                                format(st.flowsPerCpuSecond()),
                                st.clean(),
                                st.sustained() == null ? "" : st.sustained(),
                                number(st.visibility(), Visibility::p50Seconds),
                                number(st.visibility(), Visibility::p99Seconds),
                                number(st.visibility(), Visibility::catchUpSeconds),
                                number(st.visibility(), Visibility::maxLagSeconds),
                                st.dropFree()));
            }
        }
        return sb.toString();
    }

    static String json(String stage, String runId, String settings, List<SystemResult> systems) {
        StringBuilder sb = new StringBuilder(4096);
        sb.append("{\n  \"stage\": \"").append(stage).append("\",\n");
        sb.append("  \"run\": \"").append(runId).append("\",\n");
        sb.append("  \"settings\": ").append(settings).append(",\n");
        sb.append("  \"host\": {\"cpus\": ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(", \"java\": \"")
                .append(System.getProperty("java.version"))
                .append("\", \"net.core.rmem_default\": ")
                .append(sysctl("net/core/rmem_default"))
                .append(", \"net.core.rmem_max\": ")
                .append(sysctl("net/core/rmem_max"))
                .append(", \"loadavg_at_end\": ")
                .append(quote(loadAverage()))
                .append("},\n");
        sb.append("  \"systems\": [");
        for (int i = 0; i < systems.size(); i++) {
            SystemResult s = systems.get(i);
            sb.append(i == 0 ? "\n" : ",\n");
            sb.append("    {\"system\": \"").append(s.system()).append("\", ");
            sb.append(
                    String.format(
                            Locale.ROOT,
                            "\"highest_clean_flows_per_s\": %.1f,"
                                    + " \"highest_drop_free_flows_per_s\": %.1f,"
                                    + " \"loadgen_limited\": %s, ",
                            s.highestCleanRate(),
                            s.highestDropFreeRate(),
                            s.loadgenLimited()));
            sb.append("\"error\": ")
                    .append(s.error() == null ? "null" : quote(s.error()))
                    .append(", \"notes\": [");
            for (int n = 0; n < s.notes().size(); n++) {
                sb.append(n == 0 ? "" : ", ").append(quote(s.notes().get(n)));
            }
            sb.append("],\n      \"steps\": [");
            for (int k = 0; k < s.steps().size(); k++) {
                StepResult st = s.steps().get(k);
                sb.append(k == 0 ? "\n" : ",\n");
                sb.append(
                        String.format(
                                Locale.ROOT,
                                "        {\"offered_flows_per_s\": %.0f, \"sent_flows_per_s\": %.1f,"
                                        + " \"rate_held\": %s, \"sent_flows\": %d,"
                                        + " \"sent_datagrams\": %d, \"unit\": \"%s\","
                                        + " \"expected\": %d, \"delivered\": %d, \"lost\": %d,"
                                        + " \"kernel_drops\": %d, \"internal_drops\": %s,"
                                        + " \"cpu_percent\": %s, \"peak_rss_mib\": %s,"
                                        + " \"seconds\": %.2f, \"clean\": %s,"
                                        + " \"flows_per_cpu_second\": %s, \"sustained\": %s,"
                                        + " \"lag_p50_s\": %s, \"lag_p99_s\": %s,"
                                        + " \"last_row_after_load_s\": %s, \"max_lag_s\": %s,"
                                        + " \"drop_free\": %s}",
                                st.targetRate(),
                                st.achievedRate(),
                                st.rateHeld(),
                                st.sentFlows(),
                                st.sentDatagrams(),
                                st.unit(),
                                st.expected(),
                                st.delivered(),
                                st.lost(),
                                st.kernelDrops(),
                                jsonMap(st.internalDrops()),
                                jsonMap(st.cpuPercent()),
                                jsonMap(st.peakRssMb()),
                                st.seconds(),
                                st.clean(),
                                jsonMap(st.flowsPerCpuSecond()),
                                st.sustained() == null ? "null" : st.sustained(),
                                jsonNumber(st.visibility(), Visibility::p50Seconds),
                                jsonNumber(st.visibility(), Visibility::p99Seconds),
                                jsonNumber(st.visibility(), Visibility::catchUpSeconds),
                                jsonNumber(st.visibility(), Visibility::maxLagSeconds),
                                st.dropFree()));
            }
            sb.append("\n      ]}");
        }
        sb.append("\n  ]\n}\n");
        return sb.toString();
    }

    /** {@code /proc/loadavg}: other work on the machine moves the numbers, so it is recorded. */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "";
        }
    }

    private static long sysctl(String path) {
        try {
            return KernelSetting.read(path);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** A visibility figure for the CSV: empty when not measured (or not finite). */
    private static String number(Visibility v, ToDoubleFunction<Visibility> f) {
        String n = jsonNumber(v, f);
        return "null".equals(n) ? "" : n;
    }

    private static String jsonNumber(Visibility v, ToDoubleFunction<Visibility> f) {
        if (v == null || !Double.isFinite(f.applyAsDouble(v))) {
            return "null";
        }
        return String.format(Locale.ROOT, "%.2f", f.applyAsDouble(v));
    }

    private static String jsonMap(Map<String, ? extends Number> m) {
        StringBuilder sb = new StringBuilder("{");
        m.forEach(
                (k, v) -> {
                    if (sb.length() > 1) {
                        sb.append(", ");
                    }
                    sb.append(quote(k)).append(": ");
                    sb.append(
                            v instanceof Double d
                                    ? String.format(Locale.ROOT, "%.1f", d)
                                    : v.toString());
                });
        return sb.append('}').toString();
    }

    static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    private static String format(Map<String, Double> m) {
        StringBuilder sb = new StringBuilder();
        m.forEach(
                (k, v) ->
                        sb.append(sb.length() == 0 ? "" : " ")
                                .append(k)
                                .append('=')
                                .append(String.format(Locale.ROOT, "%.0f", v)));
        return sb.toString();
    }

    private static String formatLong(Map<String, Long> m) {
        StringBuilder sb = new StringBuilder();
        m.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : " ").append(k).append('=').append(v));
        return sb.toString();
    }
}
