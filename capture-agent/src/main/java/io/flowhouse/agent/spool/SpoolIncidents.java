// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.spool;

import io.flowhouse.agent.spool.DiskSpool.Loss;
import io.flowhouse.agent.spool.DiskSpool.Problem;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What went wrong with a spool's files and what it lost: every problem counted and logged, at most
 * one line per kind every 10 s (a full disk retries every 100 ms). Counts are read from any thread.
 */
final class SpoolIncidents {

    private static final Logger LOG = LoggerFactory.getLogger(DiskSpool.class);

    /** Least time between two log lines of one kind of problem (all are counted). */
    private static final long PROBLEM_LOG_NANOS = 10_000_000_000L;

    private final Map<Problem, AtomicLong> problems = new EnumMap<>(Problem.class);
    private final Map<Loss, AtomicLong> losses = new EnumMap<>(Loss.class);
    private final long[] nextLogNanos = new long[Problem.values().length];

    SpoolIncidents() {
        for (Problem p : Problem.values()) {
            problems.put(p, new AtomicLong());
        }
        for (Loss l : Loss.values()) {
            losses.put(l, new AtomicLong());
        }
    }

    /** Counts {@code p} and logs {@code message} unless one of its kind was logged lately. */
    synchronized void problem(Problem p, String message) {
        long n = problems.get(p).incrementAndGet();
        long now = System.nanoTime();
        long next = nextLogNanos[p.ordinal()];
        if (n == 1 || now - next >= 0) {
            nextLogNanos[p.ordinal()] = now + PROBLEM_LOG_NANOS;
            LOG.warn("{} ({}, {} so far)", message, p, n);
        }
    }

    void lose(Loss l, long records) {
        losses.get(l).addAndGet(records);
    }

    long problems(Problem p) {
        return problems.get(p).get();
    }

    long lost(Loss l) {
        return losses.get(l).get();
    }
}
