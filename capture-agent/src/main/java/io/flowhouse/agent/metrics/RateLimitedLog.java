// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.metrics;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logging for per-datagram and per-record problems: at most one line per interval per instance,
 * with the number of lines suppressed since the last one, so a flood of bad datagrams cannot flood
 * the log (or slow the receive path).
 */
public final class RateLimitedLog {

    private final Logger log;
    private final long intervalNanos;
    private final AtomicLong next = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    public RateLimitedLog(Logger log, Duration interval) {
        this.log = log;
        this.intervalNanos = interval.toNanos();
    }

    private boolean permit() {
        long now = System.nanoTime();
        long n = next.get();
        if ((n == Long.MIN_VALUE || now - n >= 0) && next.compareAndSet(n, now + intervalNanos)) {
            return true;
        }
        suppressed.incrementAndGet();
        return false;
    }

    public void warn(String format, Object arg) {
        if (permit()) {
            log.warn(format + " ({} similar suppressed)", arg, suppressed.getAndSet(0));
        }
    }

    public void warn(String format, Object arg1, Object arg2) {
        if (permit()) {
            log.warn(format + " ({} similar suppressed)", arg1, arg2, suppressed.getAndSet(0));
        }
    }

    public void error(String format, Object arg) {
        if (permit()) {
            log.error(format + " ({} similar suppressed)", arg, suppressed.getAndSet(0));
        }
    }
}
