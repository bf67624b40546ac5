// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.bench;

import io.flowhouse.agent.CaptureAgent;
import io.flowhouse.agent.PcapReplay;
import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.config.CidrSet;
import io.flowhouse.agent.udp.DatagramToRawFlowHandler;
import io.flowhouse.testkit.TestDataDir;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent's cost per sFlow datagram, split by thread: the real agent ({@link CaptureAgent}, epoll
 * receive, envelope, Kafka producer) and a real in-process KRaft broker, fed the datagrams of
 * {@code sflow-pmacct-rate1.pcap.gz} (spread over 8 sFlow agents, as loadgen's 8 exporters) over
 * loopback at a paced rate. CPU is each thread's own clock ({@link ThreadMXBean}) over the step, so
 * the figure holds on a shared machine better than a drop-free rate does. Not a test.
 *
 * <p>{@code SflowPublishBench RATE SECONDS [--set KEY=VALUE ...]}: the agent arguments after the
 * first two are passed on (e.g. {@code --set kafka.compression=none}). RATE 0: no UDP; the bench
 * thread hands the datagrams to the agent's own handler ({@link DatagramToRawFlowHandler}, through
 * a Netty {@link EmbeddedChannel}) as fast as the producer takes them (at most 50,000 in flight):
 * the handler, envelope and producer cost at full batching, with no kernel drop to blur it.
 */
public final class SflowPublishBench {

    private SflowPublishBench() {}

    public static void main(String[] args) throws Exception {
        int rate = Integer.parseInt(args[0]);
        int seconds = Integer.parseInt(args[1]);
        List<String> extra = List.of(args).subList(2, args.length);
        List<ByteBuffer> pool = datagrams();
        long samples = 0;
        for (ByteBuffer b : pool) {
            samples += b.getInt(b.position() + 24);
        }
        double samplesPerDatagram = (double) samples / pool.size();
        Path dir = Files.createTempDirectory("sflow-publish-bench");
        try (EmbeddedKafka kafka =
                EmbeddedKafka.builder().partitions(4).dataDir(dir.resolve("kafka")).build()) {
            kafka.start();
            kafka.createTopic("flows.raw", 4);
            kafka.createTopic("flows.rejected", 1);
            List<String> a = new ArrayList<>();
            a.addAll(
                    List.of(
                            "--listen",
                            "127.0.0.1:0",
                            "--bootstrap-servers",
                            kafka.bootstrapServers(),
                            "--spool-dir",
                            dir.resolve("spool").toString(),
                            "--no-metrics",
                            "--agent-id",
                            "bench"));
            a.addAll(extra);
            try (CaptureAgent agent =
                    CaptureAgent.start(AgentCommand.configFrom(a.toArray(new String[0])))) {
                InetSocketAddress target = agent.udp().localAddresses().get(0);
                EmbeddedChannel direct = rate > 0 ? null : new EmbeddedChannel(handler(agent));
                // Warm-up, then the measured step.
                send(target, direct, pool, rate, Math.min(5, seconds), agent);
                ThreadMXBean mx = ManagementFactory.getThreadMXBean();
                Map<Long, Long> before = cpu(mx);
                long sentBefore = agent.metrics().sentDatagrams("flows.raw");
                long recordsBefore = agent.metrics().sentCount("flows.raw");
                long t0 = System.nanoTime();
                long sent = send(target, direct, pool, rate, seconds, agent);
                long wall = System.nanoTime() - t0;
                Map<Long, Long> after = cpu(mx);
                long delivered = agent.metrics().sentDatagrams("flows.raw") - sentBefore;
                long records = agent.metrics().sentCount("flows.raw") - recordsBefore;
                Map<String, Long> byGroup = new LinkedHashMap<>();
                for (Map.Entry<Long, Long> e : after.entrySet()) {
                    var info = mx.getThreadInfo(e.getKey());
                    if (info == null) {
                        continue;
                    }
                    long d = e.getValue() - before.getOrDefault(e.getKey(), 0L);
                    byGroup.merge(group(info.getThreadName()), d, Long::sum);
                }
                System.out.printf(
                        "rate %,d datagrams/s (<= 0: handler direct, no UDP) (%.1f samples each) for %d s, %s: sent %,d, in Kafka"
                                + " %,d (in %,d records), kernel/agent loss %,d, spooled %d,"
                                + " dropped %d, load %s%n",
                        rate,
                        samplesPerDatagram,
                        seconds,
                        extra.isEmpty() ? "defaults" : String.join(" ", extra),
                        sent,
                        delivered,
                        records,
                        sent - delivered,
                        agent.metrics().spooledCount(),
                        agent.metrics().droppedCount(),
                        Files.readString(Path.of("/proc/loadavg")).trim());
                for (var m : agent.publisher().producer().metrics().entrySet()) {
                    String n = m.getKey().name();
                    if (m.getKey().group().equals("producer-metrics")
                            && (n.equals("compression-rate-avg")
                                    || n.equals("batch-size-avg")
                                    || n.equals("records-per-request-avg"))) {
                        System.out.printf("  producer %s %.3f%n", n, m.getValue().metricValue());
                    }
                }
                long total = 0;
                for (Map.Entry<String, Long> e : byGroup.entrySet()) {
                    total += e.getValue();
                    System.out.printf(
                            "  %-26s %6.2f us CPU per datagram  %5.1f %% of a core%n",
                            e.getKey(),
                            e.getValue() / 1000.0 / Math.max(1, delivered),
                            100.0 * e.getValue() / wall);
                }
                System.out.printf(
                        "  %-26s %6.2f us CPU per datagram%n",
                        "all threads", total / 1000.0 / Math.max(1, delivered));
            }
        }
    }

    private static DatagramToRawFlowHandler handler(CaptureAgent agent) {
        AgentConfig c = agent.config();
        return new DatagramToRawFlowHandler(
                CidrSet.of(List.of()),
                c.kafka().rawTopic(),
                c.kafka().rejectedTopic(),
                true,
                c.agentId(),
                agent.publisher(),
                agent.batcher(),
                agent.metrics(),
                Clock.systemUTC(),
                agent.stamper());
    }

    /** Paced sends for {@code seconds}; returns the datagrams sent, after the agent drained. */
    private static long send(
            InetSocketAddress target,
            EmbeddedChannel direct,
            List<ByteBuffer> pool,
            int rate,
            int seconds,
            CaptureAgent agent)
            throws Exception {
        long sent = 0;
        if (direct != null) {
            InetSocketAddress[] senders = new InetSocketAddress[8];
            for (int s = 0; s < senders.length; s++) {
                senders[s] = new InetSocketAddress("127.0.0.1", 40_000 + s);
            }
            long start = System.nanoTime();
            long end = start + seconds * 1_000_000_000L;
            int i = 0;
            while (System.nanoTime() < end) {
                if (rate < 0) {
                    long due = (System.nanoTime() - start) * -rate / 1_000_000_000L;
                    if (sent >= due) {
                        Thread.sleep(0, 200_000);
                        continue;
                    }
                }
                for (int n = 0; n < (rate < 0 ? 10 : 1_000); n++) {
                    while (agent.publisher().inFlight() > 50_000) {
                        Thread.onSpinWait();
                    }
                    ByteBuffer b = pool.get(i);
                    i = (i + 1) % pool.size();
                    direct.writeInbound(
                            new DatagramPacket(
                                    Unpooled.wrappedBuffer(b.duplicate()), target, senders[i & 7]));
                    sent++;
                }
            }
        }
        try (DatagramChannel ch = direct != null ? null : DatagramChannel.open()) {
            long start = System.nanoTime();
            long end = direct != null ? start : start + seconds * 1_000_000_000L;
            if (ch != null) {
                ch.connect(target);
            }
            int i = 0;
            while (true) {
                long now = System.nanoTime();
                if (now >= end) {
                    break;
                }
                long due = (now - start) * rate / 1_000_000_000L;
                while (sent < due) {
                    ByteBuffer b = pool.get(i);
                    i = (i + 1) % pool.size();
                    ch.write(b.duplicate());
                    sent++;
                }
                Thread.sleep(0, 200_000);
            }
        }
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline
                && (agent.publisher().inFlight() > 0 || agent.publisher().isSpooling())) {
            Thread.sleep(20);
        }
        Thread.sleep(300);
        return sent;
    }

    /**
     * The capture's datagrams, each once, spread over sFlow agent addresses 10.0.0.1..8 (header
     * bytes 8-11) in turn: no datagram repeats within the compressor's window, as in live traffic.
     */
    private static List<ByteBuffer> datagrams() throws Exception {
        List<ByteBuffer> out = new ArrayList<>();
        int n = 0;
        for (PcapReplay.Exporter e :
                PcapReplay.load(TestDataDir.file("sflow-pmacct-rate1.pcap.gz"))) {
            for (byte[] p : e.payloads()) {
                ByteBuffer b = ByteBuffer.wrap(p.clone());
                if (b.getInt(4) == 1) {
                    b.putInt(8, 0x0a000000 | (n++ % 8 + 1));
                }
                out.add(ByteBuffer.allocateDirect(b.capacity()).put(b).flip());
            }
        }
        return out;
    }

    private static Map<Long, Long> cpu(ThreadMXBean mx) {
        Map<Long, Long> out = new LinkedHashMap<>();
        for (long id : mx.getAllThreadIds()) {
            long t = mx.getThreadCpuTime(id);
            if (t >= 0) {
                out.put(id, t);
            }
        }
        return out;
    }

    private static String group(String thread) {
        if (thread.startsWith("epollEventLoop") || thread.contains("flowhouse-udp")) {
            return "agent receive (epoll)";
        }
        if (thread.startsWith("kafka-producer-network-thread")) {
            return "agent kafka producer I/O";
        }
        if (thread.startsWith("flowhouse-")) {
            return "agent other";
        }
        if (thread.equals("main")) {
            return "sender (bench)";
        }
        return "broker and JVM";
    }
}
