// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.bench;

import io.flowhouse.agent.config.AgentConfigLoader;
import io.flowhouse.agent.kafka.Outbound;
import io.flowhouse.agent.kafka.RawFlowPublisher;
import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.agent.pcap.PacketBatcher;
import io.flowhouse.agent.pcap.PcapFilePacketSource;
import io.flowhouse.agent.spool.DiskSpool;
import io.flowhouse.codec.packet.ParseResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Offline packet path throughput: a pcap file read with the memory-mapped reader, parsed, batched
 * and encoded into {@code packets.raw} records, N passes. With a bootstrap address the records go
 * to that Kafka broker through the agent's publisher (and the time includes the flush); without,
 * they are encoded and counted only, which isolates the agent's own cost per packet.
 *
 * <p>{@code OfflinePacketBench FILE PASSES [BOOTSTRAP]}
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
            var defaults = AgentConfigLoader.defaults().kafka();
            var kafka =
                    new io.flowhouse.agent.config.AgentConfig.Kafka(
                            bootstrap,
                            defaults.rawTopic(),
                            defaults.rejectedTopic(),
                            defaults.packetsTopic(),
                            defaults.compression(),
                            defaults.lingerMs(),
                            defaults.batchBytes(),
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
                        1024,
                        100_000_000L,
                        PacketBatcher.DEFAULT_BUCKETS,
                        (Outbound o) -> {
                            records.incrementAndGet();
                            bytes.addAndGet(o.value().length);
                            if (pub != null) {
                                pub.publish(o);
                            }
                        },
                        metrics,
                        Clock.systemUTC());
        // Warm-up pass (JIT), not counted.
        new PcapFilePacketSource(file, 0).run(batcher);
        batcher.flush();
        long packets = 0;
        java.lang.management.ThreadMXBean mx =
                java.lang.management.ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
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
        if (publisher != null) {
            publisher.close(Duration.ofSeconds(60));
        }
        System.out.printf(
                Locale.ROOT,
                "offline packets: %d packets, capture thread CPU %.3f s (%.2f M packets per"
                        + " CPU-second), wall %.3f s encoded (%.2f M packets/s), %.3f s to Kafka"
                        + " acks (%.2f M packets/s); whole process CPU %.3f s (%.2f M packets per"
                        + " CPU-second, Kafka client threads and GC included); %d records, %.1f bytes/summary; parsed OK %d;"
                        + " kafka acked %d, spooled %d, dropped %d%n",
                packets,
                cpuNanos / 1e9,
                packets / (cpuNanos / 1e9) / 1e6,
                encodedNanos / 1e9,
                packets / (encodedNanos / 1e9) / 1e6,
                totalNanos / 1e9,
                packets / (totalNanos / 1e9) / 1e6,
                procNanos / 1e9,
                packets / (procNanos / 1e9) / 1e6,
                records.get(),
                bytes.get() / (double) Math.max(1, metrics.packetCount(ParseResult.OK)),
                metrics.packetCount(ParseResult.OK),
                metrics.sentCount("packets.raw"),
                metrics.spooledCount(),
                metrics.droppedCount());
    }
}
