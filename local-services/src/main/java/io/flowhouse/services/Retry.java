// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Polls a condition until it holds or a deadline passes, sleeping between attempts: a fixed
 * interval, or a backoff that doubles up to a ceiling. The one wait loop of the services, the test
 * fixtures and the bench (a server coming up, a topic showing in the metadata).
 *
 * <pre>{@code
 * boolean up = Retry.within(Duration.ofSeconds(60)).every(Duration.ofMillis(200)).until(this::answers);
 * }</pre>
 */
public final class Retry {

    private final Duration timeout;
    private final Duration first;
    private final Duration ceiling;

    private Retry(Duration timeout, Duration first, Duration ceiling) {
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.first = Objects.requireNonNull(first, "first");
        this.ceiling = Objects.requireNonNull(ceiling, "ceiling");
    }

    /** Attempts for at most {@code timeout}, every 100 ms unless told otherwise. */
    public static Retry within(Duration timeout) {
        return new Retry(timeout, Duration.ofMillis(100), Duration.ofMillis(100));
    }

    /** A fixed pause between attempts. */
    public Retry every(Duration interval) {
        return new Retry(timeout, interval, interval);
    }

    /** A pause of {@code first}, doubled after each failed attempt up to {@code ceiling}. */
    public Retry backoff(Duration first, Duration ceiling) {
        return new Retry(timeout, first, ceiling);
    }

    /**
     * Calls {@code done} until it returns true (then true) or the time is up (then false). It is
     * always called at least once; an exception from it ends the wait.
     */
    public boolean until(BooleanSupplier done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Duration pause = first;
        while (true) {
            if (done.getAsBoolean()) {
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            sleep(Duration.ofNanos(Math.min(left, pause.toNanos())));
            Duration doubled = pause.multipliedBy(2);
            pause = doubled.compareTo(ceiling) > 0 ? ceiling : doubled;
        }
    }

    /** Sleeps; an interrupt keeps the flag set and ends the caller's wait with an exception. */
    public static void sleep(Duration duration) {
        try {
            // In nanoseconds: a pause under a millisecond must not round down to no pause.
            TimeUnit.NANOSECONDS.sleep(duration.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting", e);
        }
    }
}
