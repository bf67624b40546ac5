// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.pcap;

import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.metrics.AgentMetrics;
import java.nio.ByteBuffer;
import java.sql.Timestamp;
import java.util.concurrent.locks.LockSupport;
import org.pcap4j.core.BpfProgram;
import org.pcap4j.core.NotOpenException;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.PcapNativeException;
import org.pcap4j.core.PcapNetworkInterface;
import org.pcap4j.core.PcapStat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Live capture on an interface through pcap4j (libpcap via JNA): BPF filter, snap length,
 * promiscuous mode, kernel buffer size, nanosecond timestamps when the system offers them, and
 * libpcap's drop counters reported to the metrics once a second. Packets are read with {@link
 * DirectPcapReader} (one direct native call per packet into a reused buffer) and through pcap4j's
 * per-packet API only where that is not available. Needs CAP_NET_RAW (root here).
 */
public final class Pcap4jPacketSource implements PacketSource {

    private static final Logger LOG = LoggerFactory.getLogger(Pcap4jPacketSource.class);

    /** libpcap read timeout: how often an idle capture flushes partial batches. */
    static final int READ_TIMEOUT_MILLIS = 50;

    private final AgentConfig.Packets config;
    private final AgentMetrics metrics;
    private final PcapHandle handle;
    private final int linkType;
    private final boolean nanos;
    private final boolean direct;

    /** Park when libpcap has nothing: bounds idle CPU while adding at most this latency. */
    static final long EMPTY_POLL_PARK_NANOS = 500_000L;

    static final long IDLE_INTERVAL_NANOS = 10_000_000L;

    private volatile boolean closed;
    private volatile boolean running;
    private long lastDrops;
    private long lastIfDrops;

    /** Opens the interface and applies the filter; throws if either fails. */
    public Pcap4jPacketSource(AgentConfig.Packets config, AgentMetrics metrics)
            throws PcapNativeException, NotOpenException {
        this(config, metrics, true);
    }

    /**
     * @param direct read packets through {@link DirectPcapReader} when it is available; false reads
     *     every packet through pcap4j (the slower path, kept as the fallback)
     */
    Pcap4jPacketSource(AgentConfig.Packets config, AgentMetrics metrics, boolean direct)
            throws PcapNativeException, NotOpenException {
        this.direct = direct;
        this.config = config;
        this.metrics = metrics;
        PcapHandle h = open(config, PcapHandle.TimestampPrecision.NANO);
        if (h == null) {
            h = open(config, PcapHandle.TimestampPrecision.MICRO);
        }
        this.handle = h;
        this.nanos = handle.getTimestampPrecision() == PcapHandle.TimestampPrecision.NANO;
        try {
            if (config.filter() != null && !config.filter().isBlank()) {
                handle.setFilter(config.filter(), BpfProgram.BpfCompileMode.OPTIMIZE);
            }
            // Linux TPACKET_V3 never retires an empty block, so a blocking read with no traffic
            // would never return (no idle flush, no clean stop): read non-blocking and park
            // briefly when nothing is there.
            handle.setBlockingMode(PcapHandle.BlockingMode.NONBLOCKING);
        } catch (PcapNativeException | NotOpenException | RuntimeException e) {
            handle.close();
            throw e;
        }
        this.linkType = handle.getDlt().value();
        LOG.info(
                "capturing on {} (link type {}, snaplen {}, filter \"{}\", {} timestamps)",
                config.interfaceName(),
                linkType,
                config.snaplen(),
                config.filter(),
                nanos ? "ns" : "us");
    }

    private static PcapHandle open(AgentConfig.Packets c, PcapHandle.TimestampPrecision precision)
            throws PcapNativeException {
        PcapHandle.Builder b =
                new PcapHandle.Builder(c.interfaceName())
                        .snaplen(c.snaplen())
                        .promiscuousMode(
                                c.promiscuous()
                                        ? PcapNetworkInterface.PromiscuousMode.PROMISCUOUS
                                        : PcapNetworkInterface.PromiscuousMode.NONPROMISCUOUS)
                        .timeoutMillis(READ_TIMEOUT_MILLIS)
                        .bufferSize(c.bufferBytes())
                        .timestampPrecision(precision);
        try {
            return b.build();
        } catch (PcapNativeException e) {
            if (precision == PcapHandle.TimestampPrecision.NANO) {
                return null;
            }
            throw e;
        }
    }

    @Override
    public long run(FrameConsumer consumer) throws NotOpenException, PcapNativeException {
        long delivered = 0;
        long nextStats = System.nanoTime() + 1_000_000_000L;
        long nextIdle = System.nanoTime() + IDLE_INTERVAL_NANOS;
        synchronized (this) {
            if (closed) {
                return 0;
            }
            running = true;
        }
        DirectPcapReader reader =
                direct ? DirectPcapReader.on(handle, nanos, config.snaplen()) : null;
        if (direct && reader == null) {
            LOG.warn("direct libpcap reads not available; reading through pcap4j (slower)");
        }
        try {
            while (!closed) {
                boolean got;
                if (reader != null) {
                    int r = reader.next();
                    got = r == DirectPcapReader.PACKET;
                    if (got) {
                        consumer.frame(
                                reader.frame(),
                                linkType,
                                reader.timestampNanos(),
                                reader.originalLength());
                    } else if (r < 0) {
                        throw new PcapNativeException(
                                "pcap_next_ex on "
                                        + config.interfaceName()
                                        + ": "
                                        + handle.getError(),
                                r);
                    }
                } else {
                    got = readThroughPcap4j(consumer);
                }
                if (got) {
                    delivered++;
                } else {
                    if (System.nanoTime() - nextIdle > 0) {
                        consumer.idle();
                        nextIdle = System.nanoTime() + IDLE_INTERVAL_NANOS;
                    }
                    LockSupport.parkNanos(EMPTY_POLL_PARK_NANOS);
                }
                if (System.nanoTime() - nextStats > 0) {
                    nextStats = System.nanoTime() + 1_000_000_000L;
                    reportStats();
                }
            }
        } finally {
            // The capture thread owns the handle while it runs: closing it from another thread
            // while a read is in libpcap would wait (or crash) there.
            running = false;
            closed = true;
            reportStats();
            handle.close();
        }
        return delivered;
    }

    private boolean readThroughPcap4j(FrameConsumer consumer) throws NotOpenException {
        byte[] raw = handle.getNextRawPacket();
        if (raw == null) {
            return false;
        }
        Timestamp ts = handle.getTimestamp();
        long tsNanos = Math.floorDiv(ts.getTime(), 1000L) * 1_000_000_000L + ts.getNanos();
        Integer orig = handle.getOriginalLength();
        consumer.frame(ByteBuffer.wrap(raw), linkType, tsNanos, orig == null ? raw.length : orig);
        return true;
    }

    private void reportStats() {
        PcapStat s;
        try {
            s = handle.getStats();
        } catch (PcapNativeException | NotOpenException e) {
            return;
        }
        long drops = s.getNumPacketsDropped();
        long ifDrops = s.getNumPacketsDroppedByIf();
        metrics.pcapDrops(drops - lastDrops, ifDrops - lastIfDrops);
        lastDrops = drops;
        lastIfDrops = ifDrops;
    }

    /** libpcap's counters now: {received, dropped, dropped by interface}. */
    public long[] stats() throws PcapNativeException, NotOpenException {
        PcapStat s = handle.getStats();
        return new long[] {
            s.getNumPacketsReceived(), s.getNumPacketsDropped(), s.getNumPacketsDroppedByIf()
        };
    }

    @Override
    public String describe() {
        return "interface " + config.interfaceName();
    }

    /** Stops {@link #run} (which closes the handle), or closes the handle if it never ran. */
    @Override
    public synchronized void close() {
        boolean wasClosed = closed;
        closed = true;
        if (!wasClosed && !running) {
            handle.close();
        }
    }
}
