// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import io.flowhouse.loadgen.packets.PacketPcapGenerator;
import io.flowhouse.loadgen.profile.TrafficProfile;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bench packets}: the capture path's front half. loadgen writes a synthetic packet pcap
 * (flows of packets, exact totals); the capture agent reads it at full speed ({@code --pcap FILE
 * --speed max --no-udp}) into Kafka as packet-summary batches. Reports packets/s (from the agent's
 * own counter between its first and last change), CPU and memory, and checks that every packet was
 * parsed and every batch acknowledged by Kafka.
 */
final class PacketsBench {

    private static final Pattern SUMMARY =
            Pattern.compile(
                    "([0-9]+) packets, ([0-9]+) parsed, ([0-9]+) batches, ([0-9]+) records"
                            + " acknowledged by kafka, ([0-9]+) spooled, ([0-9]+) dropped");

    private PacketsBench() {}

    static int run(BenchOptions cl, BenchContext ctx, PrintStream out) throws Exception {
        long flows = cl.flows(20_000, 1, Long.MAX_VALUE);
        Path pcap = ctx.workDir().resolve("packets.pcap");
        PacketPcapGenerator.Totals totals =
                new PacketPcapGenerator(TrafficProfile.defaults(), 1, 2_000)
                        .write(pcap, flows, 1_700_000_000_000L);
        out.println("bench packets: " + totals.format(pcap));

        String topic = "bench-packets-" + ctx.runId();
        ctx.createTopic(topic, 4);
        Path config = ctx.workDir().resolve("agent-packets.yaml");
        Files.writeString(
                config,
                "kafka:\n  packets-topic: " + topic + "\n  raw-topic: " + topic + "-raw\n",
                StandardCharsets.UTF_8);
        int metricsPort = BenchContext.freeTcpPort();
        List<String> cmd = new ArrayList<>();
        cmd.add(ctx.javaBin());
        cmd.add("-Xmx1g");
        cmd.add("-cp");
        cmd.add(ctx.classPath());
        cmd.add("io.flowhouse.agent.CaptureAgentMain");
        cmd.addAll(
                List.of(
                        "--config",
                        config.toString(),
                        "--agent-id",
                        "bench",
                        "--pcap",
                        pcap.toString(),
                        "--speed",
                        "max",
                        "--no-udp",
                        "--bootstrap-servers",
                        ctx.bootstrap(),
                        "--metrics-port",
                        Integer.toString(metricsPort),
                        "--spool-dir",
                        ctx.workDir().resolve("packets-spool").toString()));
        Path log = ctx.workDir().resolve("agent-packets.log");
        ChildProcess agent = ChildProcess.start("agent", cmd, log);
        String url = "http://127.0.0.1:" + metricsPort + "/metrics";
        long firstNanos = 0;
        long lastNanos = 0;
        long lastCount = 0;
        long ticks = 0;
        long rssKb = 0;
        long deadline = System.nanoTime() + 300_000_000_000L;
        while (agent.isAlive() && System.nanoTime() < deadline) {
            long t = ProcStats.cpuTicks(agent.pid());
            ticks = t >= 0 ? t : ticks;
            rssKb = Math.max(rssKb, ProcStats.statusKb(agent.pid(), "VmHWM"));
            try {
                long n = PrometheusScrape.fetch(url).sum("flowhouse_agent_packets_total");
                long now = System.nanoTime();
                if (n > 0 && firstNanos == 0) {
                    firstNanos = now;
                }
                if (n != lastCount) {
                    lastCount = n;
                    lastNanos = now;
                }
            } catch (java.io.IOException e) {
                // not up yet, or already closing
            }
            Thread.sleep(100);
        }
        int exit = agent.stop(30);
        Files.deleteIfExists(pcap); // hundreds of MB; rebuilt from the seed on every run
        String text = Files.readString(log, StandardCharsets.UTF_8);
        Matcher m = SUMMARY.matcher(text);
        if (exit != 0 || !m.find()) {
            out.println("bench packets: the agent did not finish cleanly (exit " + exit + "):");
            out.println(agent.logTail());
            ctx.kafka().deleteQuietly(topic);
            return 1;
        }
        long packets = Long.parseLong(m.group(1));
        long parsed = Long.parseLong(m.group(2));
        long batches = Long.parseLong(m.group(3));
        long acked = Long.parseLong(m.group(4));
        long spooled = Long.parseLong(m.group(5));
        long dropped = Long.parseLong(m.group(6));
        long inKafka = ctx.kafka().records(topic);
        ctx.kafka().deleteQuietly(topic);
        double seconds = Math.max(1e-3, (lastNanos - firstNanos) / 1e9);
        double rate = parsed / seconds;
        double cpu = 100.0 * ticks / ProcStats.TICKS_PER_SECOND / seconds;
        boolean clean =
                packets == totals.packets()
                        && parsed == totals.packets()
                        && dropped == 0
                        && acked == batches
                        && inKafka == batches;
        Outcome o =
                new Outcome(
                        totals,
                        packets,
                        parsed,
                        batches,
                        acked,
                        inKafka,
                        spooled,
                        dropped,
                        rate,
                        seconds,
                        cpu,
                        rssKb / 1024,
                        clean);
        write(ctx, o, out);
        return clean ? 0 : 1;
    }

    /** What one run measured. */
    private record Outcome(
            PacketPcapGenerator.Totals totals,
            long packets,
            long parsed,
            long batches,
            long acked,
            long inKafka,
            long spooled,
            long dropped,
            double rate,
            double seconds,
            double cpu,
            long rssMb,
            boolean clean) {}

    private static void write(BenchContext ctx, Outcome o, PrintStream out)
            throws java.io.IOException {
        PacketPcapGenerator.Totals totals = o.totals();
        long packets = o.packets();
        long parsed = o.parsed();
        long batches = o.batches();
        long acked = o.acked();
        long inKafka = o.inKafka();
        long spooled = o.spooled();
        long dropped = o.dropped();
        double rate = o.rate();
        double seconds = o.seconds();
        double cpu = o.cpu();
        long rssKb = o.rssMb() * 1024;
        boolean clean = o.clean();
        String row =
                String.format(
                        Locale.ROOT,
                        "flows %d, packets in pcap %d, read %d, parsed %d, batches %d, acked %d,"
                                + " in Kafka %d, spooled %d, dropped %d; %.0f packets/s over %.2f s;"
                                + " agent CPU %.0f %% (incl. JVM start), peak RSS %d MiB; %s",
                        totals.flows(),
                        totals.packets(),
                        packets,
                        parsed,
                        batches,
                        acked,
                        inKafka,
                        spooled,
                        dropped,
                        rate,
                        seconds,
                        cpu,
                        rssKb / 1024,
                        clean ? "clean" : "LOSS");
        out.println("bench packets: " + row);
        Files.createDirectories(ctx.resultsDir());
        Path base = ctx.resultsDir().resolve("packets-" + ctx.runId());
        Files.writeString(
                Path.of(base + ".csv"),
                "flows,packets,read,parsed,batches,acked,in_kafka,spooled,dropped,packets_per_s,"
                        + "seconds,agent_cpu_percent,agent_peak_rss_mib,clean\n"
                        + String.format(
                                Locale.ROOT,
                                "%d,%d,%d,%d,%d,%d,%d,%d,%d,%.0f,%.2f,%.0f,%d,%s%n",
                                totals.flows(),
                                totals.packets(),
                                packets,
                                parsed,
                                batches,
                                acked,
                                inKafka,
                                spooled,
                                dropped,
                                rate,
                                seconds,
                                cpu,
                                rssKb / 1024,
                                clean),
                StandardCharsets.UTF_8);
        Files.writeString(
                Path.of(base + ".json"),
                String.format(
                        Locale.ROOT,
                        "{\n  \"stage\": \"packets\",\n  \"run\": \"%s\",\n  \"pcap\": %s,\n"
                                + "  \"agent\": {\"read\": %d, \"parsed\": %d, \"batches\": %d,"
                                + " \"acked\": %d, \"in_kafka\": %d, \"spooled\": %d,"
                                + " \"dropped\": %d, \"packets_per_s\": %.0f, \"seconds\": %.2f,"
                                + " \"cpu_percent\": %.0f, \"peak_rss_mib\": %d},\n"
                                + "  \"clean\": %s,\n  \"loadavg_at_end\": %s\n}\n",
                        ctx.runId(),
                        totals.toJson().trim().replace("\n", "\n  "),
                        packets,
                        parsed,
                        batches,
                        acked,
                        inKafka,
                        spooled,
                        dropped,
                        rate,
                        seconds,
                        cpu,
                        rssKb / 1024,
                        clean,
                        BenchReport.quote(BenchReport.loadAverage())),
                StandardCharsets.UTF_8);
        out.println("bench packets: results in " + base + ".json (+ .csv)");
    }
}
