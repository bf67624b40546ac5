// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.emit;

/**
 * Paces a sender to a target rate of units (flows or datagrams) per second: a token bucket whose
 * tokens accrue from a fixed schedule ({@code rate * elapsed}), so bursts that fall behind are
 * caught up and the long-run rate is exact. Catch-up is bounded by {@code maxBacklog}: anything the
 * sender is further behind than that is dropped from the schedule and counted as {@link
 * #shortfall()}, which the caller must report ("cannot keep up"), never hide.
 *
 * <p>Pure logic: the caller passes {@code System.nanoTime()} readings in, so tests can drive it
 * with made-up times. Not thread-safe.
 */
public final class RateLimiter {

    private static final double NANOS_PER_SECOND = 1e9;

    private final double ratePerSecond;
    private final long startNanos;
    private final long maxBacklog;
    private long consumed;
    private long shortfall;
    private long behindEvents;

    /**
     * @param ratePerSecond target rate in units per second; {@code <= 0} means unlimited
     * @param startNanos the schedule's origin
     * @param maxBacklog most units the sender may be behind before the excess is written off
     */
    public RateLimiter(double ratePerSecond, long startNanos, long maxBacklog) {
        if (maxBacklog < 1) {
            throw new IllegalArgumentException("max backlog " + maxBacklog + " (expected: >= 1)");
        }
        this.ratePerSecond = ratePerSecond;
        this.startNanos = startNanos;
        this.maxBacklog = maxBacklog;
    }

    /** A limiter allowing about 100 ms of catch-up, at least {@code minBacklog} units. */
    public static RateLimiter withDefaultBacklog(
            double ratePerSecond, long startNanos, long minBacklog) {
        long backlog = Math.max(minBacklog, (long) Math.ceil(ratePerSecond / 10));
        return new RateLimiter(ratePerSecond, startNanos, Math.max(1, backlog));
    }

    public boolean unlimited() {
        return ratePerSecond <= 0;
    }

    /** Units the schedule has earned by {@code nowNanos}, from the start. */
    long scheduled(long nowNanos) {
        double elapsed = Math.max(0L, nowNanos - startNanos);
        return (long) Math.floor(elapsed * ratePerSecond / NANOS_PER_SECOND);
    }

    /**
     * Units that may be sent now (may be negative after a large datagram was sent on credit). If
     * the sender is more than {@code maxBacklog} behind, the excess is counted as shortfall.
     */
    public long available(long nowNanos) {
        if (unlimited()) {
            return Long.MAX_VALUE;
        }
        long avail = scheduled(nowNanos) - consumed - shortfall;
        if (avail > maxBacklog) {
            shortfall += avail - maxBacklog;
            behindEvents++;
            avail = maxBacklog;
        }
        return avail;
    }

    /** Records that {@code units} were sent. */
    public void consume(long units) {
        consumed += units;
    }

    /** Nanoseconds from {@code nowNanos} until {@code units} more are available (0 if now). */
    public long nanosUntil(long units, long nowNanos) {
        if (unlimited()) {
            return 0;
        }
        long needed = consumed + shortfall + units;
        long at = startNanos + (long) Math.ceil(needed * NANOS_PER_SECOND / ratePerSecond);
        return Math.max(0L, at - nowNanos);
    }

    public long consumed() {
        return consumed;
    }

    /** Units the schedule asked for that the sender could not send in time. */
    public long shortfall() {
        return shortfall;
    }

    /** How many times the sender was found more than {@code maxBacklog} behind. */
    public long behindEvents() {
        return behindEvents;
    }

    public double ratePerSecond() {
        return ratePerSecond;
    }
}
