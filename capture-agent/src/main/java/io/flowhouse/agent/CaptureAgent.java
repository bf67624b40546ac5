// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent;

import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.config.CidrSet;
import io.flowhouse.agent.kafka.DatagramBatcher;
import io.flowhouse.agent.kafka.RawFlowPublisher;
import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.agent.metrics.KernelUdpStats;
import io.flowhouse.agent.metrics.MetricsServer;
import io.flowhouse.agent.net.PortOwners;
import io.flowhouse.agent.pcap.PacketBatcher;
import io.flowhouse.agent.pcap.PacketSource;
import io.flowhouse.agent.pcap.Pcap4jPacketSource;
import io.flowhouse.agent.pcap.PcapFilePacketSource;
import io.flowhouse.agent.pcap.ReopeningPacketSource;
import io.flowhouse.agent.spool.DiskSpool;
import io.flowhouse.agent.stamp.AgentEpoch;
import io.flowhouse.agent.stamp.DatagramStamper;
import io.flowhouse.agent.udp.DatagramToRawFlowHandler;
import io.flowhouse.agent.udp.UdpReceiver;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running capture agent: UDP listeners and/or a packet source, the publisher with its spool, the
 * kernel-drop poller and the metrics endpoint. Wiring only; {@link #close()} stops the inputs
 * first, then flushes everything to Kafka (or the spool).
 */
public final class CaptureAgent implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CaptureAgent.class);

    /** How long a clean shutdown may take to deliver what is pending before it spools it. */
    public static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

    /** How long start-up waits for Kafka metadata before it starts anyway (spooling). */
    public static final Duration METADATA_WAIT = Duration.ofSeconds(15);

    private final AgentConfig config;
    private final AgentMetrics metrics;
    private final ScheduledExecutorService poller =
            Executors.newSingleThreadScheduledExecutor(
                    r -> {
                        Thread t = new Thread(r, "flowhouse-agent-poller");
                        t.setDaemon(true);
                        return t;
                    });
    private final CompletableFuture<Long> packetsDone = new CompletableFuture<>();
    private DiskSpool spool;
    private RawFlowPublisher publisher;
    private DatagramStamper stamper;
    private UdpReceiver udp;
    private DatagramBatcher batcher;
    private MetricsServer metricsServer;
    private PacketSource packetSource;
    private Thread captureThread;
    private volatile boolean closed;

    private CaptureAgent(AgentConfig config) {
        this.config = config;
        this.metrics =
                new AgentMetrics(config.metrics().maxExporters(), config.metrics().exporterTtl());
    }

    /** Starts everything the configuration asks for; on failure, stops what was started. */
    public static CaptureAgent start(AgentConfig config) throws Exception {
        CaptureAgent agent = new CaptureAgent(config);
        try {
            agent.startAll();
        } catch (Exception e) {
            agent.close();
            throw e;
        }
        return agent;
    }

    private void startAll() throws Exception {
        AgentConfig.Spool s = config.spool();
        spool = DiskSpool.open(s.directory(), s.maxBytes(), s.segmentBytes());
        publisher = new RawFlowPublisher(config.kafka(), spool, metrics, s.syncInterval());
        poller.scheduleWithFixedDelay(metrics::expireExporters, 1, 1, TimeUnit.SECONDS);
        List<String> topics = new ArrayList<>();
        if (config.udp().enabled()) {
            topics.add(config.kafka().rawTopic());
            topics.add(config.kafka().rejectedTopic());
        }
        if (config.packets().enabled()) {
            topics.add(config.kafka().packetsTopic());
        }
        publisher.awaitMetadata(topics, METADATA_WAIT);
        if (config.metrics().enabled()) {
            metricsServer = startMetrics();
            LOG.info(
                    "metrics on http://{}:{}/metrics",
                    config.metrics().host(),
                    metricsServer.port());
        }
        if (config.udp().enabled()) {
            AgentConfig.Udp u = config.udp();
            requireFreeUdpPorts(u);
            // Before the first datagram: this run's epoch, durable in the spool directory.
            stamper =
                    new DatagramStamper(
                            AgentEpoch.next(s.directory(), Clock.systemUTC()),
                            u.maxExporterStreams());
            metrics.stampGauges(stamper::streamsStarted, stamper::streamsEvicted);
            LOG.info("agent {} epoch {}", config.agentId(), stamper.epoch());
            AgentConfig.Kafka k = config.kafka();
            batcher =
                    new DatagramBatcher(
                            publisher,
                            k.rawTopic(),
                            k.recordMaxDatagrams(),
                            k.recordMaxBytes(),
                            k.recordLinger(),
                            metrics);
            DatagramToRawFlowHandler handler =
                    new DatagramToRawFlowHandler(
                            CidrSet.of(u.allowedExporters()),
                            config.kafka().rawTopic(),
                            config.kafka().rejectedTopic(),
                            u.forwardRejected(),
                            config.agentId(),
                            publisher,
                            batcher,
                            metrics,
                            Clock.systemUTC(),
                            stamper);
            udp = new UdpReceiver(u, handler).start();
            Set<Integer> ports = udp.boundPorts();
            poller.scheduleWithFixedDelay(
                    () -> metrics.kernelStats(KernelUdpStats.read(ports)), 0, 1, TimeUnit.SECONDS);
        }
        if (config.packets().enabled()) {
            startPackets();
        } else {
            packetsDone.complete(0L);
        }
    }

    /**
     * The metrics endpoint on its port. A port in use fails the start with the address and its
     * holder, except for a packet file read with the default port (a one-shot run next to a running
     * agent): that one takes a free port and says so.
     */
    private MetricsServer startMetrics() throws IOException {
        AgentConfig.Metrics m = config.metrics();
        try {
            return new MetricsServer(m.host(), m.port(), metrics, this::health);
        } catch (BindException e) {
            String holder =
                    PortOwners.tcpListener(InetAddress.getByName(m.host()), m.port())
                            .orElse("another process");
            if (m.anyPortIfTaken()) {
                MetricsServer any = new MetricsServer(m.host(), 0, metrics, this::health);
                LOG.warn(
                        "metrics port {}:{} is in use by {}; this packet file run serves its"
                                + " metrics on {}:{} instead",
                        m.host(),
                        m.port(),
                        holder,
                        m.host(),
                        any.port());
                return any;
            }
            throw new IOException(
                    "metrics endpoint "
                            + m.host()
                            + ":"
                            + m.port()
                            + " is already in use by "
                            + holder
                            + ": choose another port with --metrics-port PORT (0: any free"
                            + " port) or turn the endpoint off with --no-metrics",
                    e);
        }
    }

    /**
     * Fails when another socket already holds a configured UDP port: with SO_REUSEPORT a second
     * agent of the same user could bind it too and the kernel would split the exporters between the
     * two without a word.
     */
    private static void requireFreeUdpPorts(AgentConfig.Udp u) throws IOException {
        for (AgentConfig.Listener l : u.listeners()) {
            if (l.port() == 0) {
                continue;
            }
            var holder = PortOwners.udp(InetAddress.getByName(l.host()), l.port());
            if (holder.isPresent()) {
                throw new IOException(
                        "UDP port "
                                + l.port()
                                + " (listen address "
                                + l.host()
                                + ") is already bound by "
                                + holder.get()
                                + ": another agent on the same ports? Stop it, or give this one"
                                + " other ports (--listen)");
            }
        }
    }

    private void startPackets() throws Exception {
        AgentConfig.Packets p = config.packets();
        packetSource =
                p.file() != null
                        ? new PcapFilePacketSource(p.file(), p.speed())
                        : new ReopeningPacketSource(
                                new Pcap4jPacketSource(p, metrics),
                                () -> new Pcap4jPacketSource(p, metrics),
                                metrics);
        PacketBatcher batcher =
                new PacketBatcher(
                        config.kafka().packetsTopic(),
                        p.interfaceIndex(),
                        p.batchPackets(),
                        p.batchLinger().toNanos(),
                        PacketBatcher.DEFAULT_BUCKETS,
                        publisher,
                        metrics,
                        Clock.systemUTC());
        if (p.file() == null) {
            batcher.ticksWhenQuiet(p.clockTick());
        }
        PacketSource source = packetSource;
        captureThread =
                new Thread(
                        () -> {
                            long t0 = System.nanoTime();
                            try {
                                long n = source.run(batcher);
                                if (p.file() != null) {
                                    batcher.endOfCapture();
                                } else {
                                    batcher.flush();
                                }
                                double secs = (System.nanoTime() - t0) / 1e9;
                                LOG.info(
                                        "{}: {} packets, {} summaries in {} s ({} packets/s)",
                                        source.describe(),
                                        n,
                                        batcher.summaries(),
                                        String.format(Locale.ROOT, "%.3f", secs),
                                        String.format(
                                                Locale.ROOT, "%.0f", n / Math.max(secs, 1e-9)));
                                packetsDone.complete(n);
                            } catch (Throwable e) {
                                batcher.flush();
                                LOG.error("packet capture from {} failed", source.describe(), e);
                                packetsDone.completeExceptionally(e);
                            }
                        },
                        "flowhouse-capture");
        captureThread.start();
    }

    private MetricsServer.Health health() {
        long spoolBytes = spool == null ? 0 : spool.bytes();
        long max = config.spool().maxBytes();
        boolean spooling = publisher != null && publisher.isSpooling();
        boolean nearlyFull = spoolBytes >= max * 95 / 100;
        boolean ok = !closed && !nearlyFull;
        String status =
                closed ? "STOPPING" : nearlyFull ? "SPOOL_FULL" : spooling ? "SPOOLING" : "UP";
        String json =
                String.format(
                        Locale.ROOT,
                        "{\"status\":\"%s\",\"udpPorts\":%s,\"spoolRecords\":%d,\"spoolBytes\":%d,"
                                + "\"spoolMaxBytes\":%d,\"datagrams\":%d,\"dropped\":%d}\n",
                        status,
                        udp == null ? "[]" : udp.boundPorts().toString(),
                        spool == null ? 0 : spool.records(),
                        spoolBytes,
                        max,
                        metrics.datagrams(),
                        metrics.droppedCount());
        return new MetricsServer.Health(ok, status, json);
    }

    /** Completes with the packet count when a packet file is fully read (0 with no packet path). */
    public CompletableFuture<Long> packetsDone() {
        return packetsDone;
    }

    public AgentMetrics metrics() {
        return metrics;
    }

    /** Gathers accepted datagrams into records; null before the UDP listeners start. */
    public DatagramBatcher batcher() {
        return batcher;
    }

    public RawFlowPublisher publisher() {
        return publisher;
    }

    /** The datagram stamper of this run, or null when the UDP listeners are off. */
    public DatagramStamper stamper() {
        return stamper;
    }

    /** The UDP listeners, or null when they are off. */
    public UdpReceiver udp() {
        return udp;
    }

    public AgentConfig config() {
        return config;
    }

    /** The metrics HTTP port, or -1 when the endpoint is off. */
    public int metricsPort() {
        return metricsServer == null ? -1 : metricsServer.port();
    }

    @Override
    public void close() {
        close(SHUTDOWN_TIMEOUT);
    }

    /** Stops the inputs, then delivers or spools everything pending within {@code timeout}. */
    public synchronized void close(Duration timeout) {
        if (closed) {
            return;
        }
        closed = true;
        if (udp != null) {
            udp.close();
        }
        if (batcher != null) {
            // After the last datagram came in, before the publisher stops taking records.
            batcher.close();
        }
        if (packetSource != null) {
            packetSource.close();
        }
        if (captureThread != null) {
            try {
                captureThread.join(timeout.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        poller.shutdownNow();
        if (publisher != null) {
            publisher.close(timeout);
        } else if (spool != null) {
            spool.close();
        }
        if (metricsServer != null) {
            metricsServer.close();
        }
        LOG.info(
                "agent stopped: {} datagrams, {} rejected, {} dropped, {} spooled",
                metrics.datagrams(),
                metrics.rejectedCount(),
                metrics.droppedCount(),
                metrics.spooledCount());
    }
}
