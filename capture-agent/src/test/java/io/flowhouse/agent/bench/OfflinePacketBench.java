// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.bench;

import io.flowhouse.agent.config.AgentKeys;
import io.flowhouse.agent.kafka.Outbound;
import io.flowhouse.agent.kafka.RawFlowPublisher;
import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.agent.pcap.PacketBatcher;
import io.flowhouse.agent.pcap.PcapFilePacketSource;
import io.flowhouse.agent.spool.DiskSpool;
import io.flowhouse.codec.packet.ParseResult;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Offline packet path throughput: a pcap file read with the memory-mapped reader, parsed, batched
 * and encoded into {@code packets.raw} records, N passes. With a bootstrap address the records go
 * to that Kafka broker through the agent's publisher (and the time includes the flush); without,
 * they are encoded and counted only, which isolates the agent's own cost per packet.
 *
 * <p>{@code OfflinePacketBench FILE PASSES [BOOTSTRAP]}; system property {@code bench.compression}
 * overrides the producer's compression (none, lz4, zstd, snappy, gzip). At the end the process CPU
 * of the timed part is split by thread group ({@code /proc/self/task}): capture thread, Kafka
 * network thread, JIT compiler, GC and the rest.
 */
public final class OfflinePacketBench {

    private OfflinePacketBench() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int passes = Integer.parseInt(args[1]);
        String bootstrap = args.length > 2 ? args[2] : null;
        AgentMetrics metrics = new AgentMetrics();
        AtomicLong records = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        RawFlowPublisher publisher = null;
        Path spoolDir = Files.createTempDirectory("bench-spool");
        if (bootstrap != null) {
            var defaults = AgentKeys.defaults().kafka();
            var kafka =
                    new io.flowhouse.agent.config.AgentConfig.Kafka(
                            bootstrap,
                            defaults.rawTopic(),
                            defaults.rejectedTopic(),
                            defaults.packetsTopic(),
                            System.getProperty("bench.compression", defaults.compression()),
                            Integer.parseInt(
                                    System.getProperty(
                                            "bench.linger-ms",
                                            Integer.toString(defaults.lingerMs()))),
                            Integer.parseInt(
                                    System.getProperty(
                                            "bench.batch-bytes",
                                            Integer.toString(defaults.batchBytes()))),
                            defaults.bufferMemoryBytes(),
                            defaults.deliveryTimeout(),
                            defaults.properties());
            publisher =
                    new RawFlowPublisher(
                            kafka, DiskSpool.open(spoolDir, 8L << 30, 64L << 20), metrics);
            publisher.awaitMetadata(java.util.List.of("packets.raw"), Duration.ofSeconds(30));
        }
        RawFlowPublisher pub = publisher;
        PacketBatcher batcher =
                new PacketBatcher(
                        "packets.raw",
                        1,
                        Integer.parseInt(System.getProperty("bench.batch-packets", "1024")),
                        100_000_000L,
                        Integer.parseInt(
                                System.getProperty(
                                        "bench.buckets",
                                        Integer.toString(PacketBatcher.DEFAULT_BUCKETS))),
                        (Outbound o) -> {
                            records.incrementAndGet();
                            bytes.addAndGet(o.value().length);
                            if (pub != null) {
                                pub.publish(o);
                            }
                        },
                        metrics,
                        Clock.systemUTC());
        // Warm-up passes, not counted: until the JIT has compiled the parser, the batcher and the
        // Kafka client's send path, its compiler threads take more CPU than the work itself.
        int warmup = Integer.parseInt(System.getProperty("bench.warmup-passes", "20"));
        for (int i = 0; i < warmup; i++) {
            new PcapFilePacketSource(file, 0).run(batcher);
        }
        batcher.flush();
        if (publisher != null) {
            publisher.producer().flush();
        }
        long warmupRecords = records.get();
        long warmupAcked = metrics.sentCount("packets.raw");
        long packets = 0;
        java.lang.management.ThreadMXBean mx =
                java.lang.management.ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        Map<String, Long> threads0 = threadTicks();
        long cpu0 = mx.getCurrentThreadCpuTime();
        long proc0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        for (int i = 0; i < passes; i++) {
            packets += new PcapFilePacketSource(file, 0).run(batcher);
        }
        batcher.flush();
        long encodedNanos = System.nanoTime() - t0;
        long cpuNanos = mx.getCurrentThreadCpuTime() - cpu0;
        if (publisher != null) {
            publisher.producer().flush();
        }
        long totalNanos = System.nanoTime() - t0;
        long procNanos = os.getProcessCpuTime() - proc0;
        Map<String, Long> threads1 = threadTicks();
        if (publisher != null) {
            publisher.close(Duration.ofSeconds(60));
        }
        System.out.printf(
                Locale.ROOT,
                "offline packets: %d packets (after %d warm-up passes), capture thread CPU %.3f s (%.2f M packets per"
                        + " CPU-second), wall %.3f s encoded (%.2f M packets/s), %.3f s to Kafka"
                        + " acks (%.2f M packets/s); whole process CPU %.3f s (%.2f M packets per"
                        + " CPU-second, Kafka client threads and GC included); %d records, %.1f bytes/summary; parsed OK %d (warm-up included);"
                        + " kafka acked %d, spooled %d, dropped %d%n",
                packets,
                warmup,
                cpuNanos / 1e9,
                packets / (cpuNanos / 1e9) / 1e6,
                encodedNanos / 1e9,
                packets / (encodedNanos / 1e9) / 1e6,
                totalNanos / 1e9,
                packets / (totalNanos / 1e9) / 1e6,
                procNanos / 1e9,
                packets / (procNanos / 1e9) / 1e6,
                records.get() - warmupRecords,
                bytes.get() / (double) Math.max(1, metrics.packetCount(ParseResult.OK)),
                metrics.packetCount(ParseResult.OK),
                metrics.sentCount("packets.raw") - warmupAcked,
                metrics.spooledCount(),
                metrics.droppedCount());
        StringBuilder split = new StringBuilder("offline threads (CPU s):");
        for (Map.Entry<String, Long> e : threads1.entrySet()) {
            long d = e.getValue() - threads0.getOrDefault(e.getKey(), 0L);
            if (d > 0) {
                split.append(String.format(Locale.ROOT, " %s=%.2f", e.getKey(), d / 100.0));
            }
        }
        System.out.println(split);
    }

    /**
     * CPU clock ticks (user+system, 100 per second) per thread group of this process, summed over
     * {@code /proc/self/task/N}: the name with digits removed (so C2 and GC worker threads add up).
     */
    private static Map<String, Long> threadTicks() throws IOException {
        Map<String, Long> out = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String name =
                            Files.readString(task.resolve("comm")).trim().replaceAll("[0-9]+", "#");
                    String stat = Files.readString(task.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    out.merge(name, ticks, Long::sum);
                } catch (IOException | RuntimeException e) {
                    // The thread ended between the listing and the read.
                }
            }
        }
        return out;
    }
}
