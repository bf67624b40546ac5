// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.pcap;

import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.agent.metrics.RateLimitedLog;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A live capture that outlives its interface: when the source fails (libpcap reports the interface
 * went down or disappeared: a container's veth recreated, a NIC reset), the frames read so far are
 * flushed, the failure is logged and counted ({@code flowhouse_agent_capture_reopens_total}), and
 * the capture is opened again, retrying with a backoff from 1 s up to 30 s until it succeeds or
 * {@link #close()} is called. As Suricata's AF_PACKET capture does; before this, a dead handle kept
 * the capture thread polling nothing, silently.
 *
 * <p>The first source is opened by the caller, so a wrong interface name still fails start-up.
 */
public final class ReopeningPacketSource implements PacketSource {

    private static final Logger LOG = LoggerFactory.getLogger(ReopeningPacketSource.class);

    static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private final Callable<PacketSource> opener;
    private final AgentMetrics metrics;
    private final String description;
    private final RateLimitedLog log = new RateLimitedLog(LOG, Duration.ofSeconds(30));
    private PacketSource current;
    private volatile boolean closed;

    /**
     * @param first the open source to read first
     * @param opener opens a new source on the same interface (throws while it is not there)
     */
    public ReopeningPacketSource(
            PacketSource first, Callable<PacketSource> opener, AgentMetrics metrics) {
        this.current = first;
        this.opener = opener;
        this.metrics = metrics;
        this.description = first.describe();
    }

    @Override
    public long run(FrameConsumer consumer) throws InterruptedException {
        long delivered = 0;
        PacketSource source = current;
        while (source != null) {
            try {
                delivered += source.run(consumer);
            } catch (Exception e) {
                if (!closed) {
                    LOG.warn("capture on {} failed: {}; reopening", description, e.toString());
                }
            }
            consumer.idle();
            source = closed ? null : reopen(consumer);
        }
        return delivered;
    }

    /**
     * Opens the source again, with backoff; null once closed. The consumer's {@code idle} runs
     * meanwhile: the interface is quiet, and its packet time still goes on (clock ticks).
     */
    private PacketSource reopen(FrameConsumer consumer) throws InterruptedException {
        long backoff = FIRST_BACKOFF.toMillis();
        while (!closed) {
            sleepUnlessClosed(backoff, consumer);
            if (closed) {
                return null;
            }
            PacketSource next;
            try {
                next = opener.call();
            } catch (Exception e) {
                log.warn("reopening the capture on {} failed: {}", description, e.toString());
                backoff = Math.min(backoff * 2, MAX_BACKOFF.toMillis());
                continue;
            }
            synchronized (this) {
                if (closed) {
                    next.close();
                    return null;
                }
                current = next;
            }
            metrics.captureReopened();
            LOG.info("capture on {} reopened", description);
            return next;
        }
        return null;
    }

    private void sleepUnlessClosed(long millis, FrameConsumer consumer)
            throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (!closed && System.nanoTime() - end < 0) {
            Thread.sleep(Math.min(100, Math.max(1, (end - System.nanoTime()) / 1_000_000L)));
            consumer.idle();
        }
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        PacketSource c;
        synchronized (this) {
            closed = true;
            c = current;
        }
        c.close();
    }
}
