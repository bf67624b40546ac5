// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Latency from datagram to row visible in ClickHouse, measured from outside the pipeline during a
 * {@code bench e2e} step. A poller thread asks ClickHouse every {@link #POLL_MILLIS} how many of
 * the step's rows there are per second of {@code time_received} (the agent's receive time of the
 * datagram, stamped before Kafka). Rows of a second that were not there at the previous poll became
 * visible between the two polls: each counts with latency {@code (previous poll + this poll) / 2 -
 * (second + 0.5 s)}. Both halves are midpoint estimates ({@code time_received} has whole seconds),
 * so a single row's figure is within about +-0.5 s plus half a poll interval of the truth, and the
 * percentiles over hundreds of thousands of rows are unbiased to that resolution. Rows become
 * visible when the ClickHouse sink sends a batch (by size, by its flush interval, or on a
 * checkpoint), so the job's flush interval and checkpoint interval dominate.
 */
final class VisibilityLatency {

    /** How often ClickHouse is asked; each poll is one GROUP BY over the step's rows. */
    static final long POLL_MILLIS = 500;

    /** Histogram resolution and range: 10 ms buckets up to 10 minutes. */
    private static final int BUCKET_MILLIS = 10;

    private static final int BUCKETS = 60_000;

    /** Runs a query, returns ClickHouse's TabSeparated answer. */
    @FunctionalInterface
    interface Query {
        String run(String sql) throws Exception;
    }

    /**
     * Percentiles of one step.
     *
     * @param lastVisibleMillis wall-clock time (ms) the last new rows became visible: the middle of
     *     the poll interval in which they appeared
     */
    record Result(
            long rows,
            double p50Seconds,
            double p99Seconds,
            double maxSeconds,
            long lastVisibleMillis) {

        /**
         * What the step's visibility says about keeping up: the last row's time after the load
         * ended ({@code loadEndMillis}), against the bound.
         */
        Visibility visibility(long loadEndMillis, double maxLagSeconds) {
            return new Visibility(
                    p50Seconds,
                    p99Seconds,
                    Math.max(0, lastVisibleMillis - loadEndMillis) / 1000.0,
                    maxLagSeconds);
        }

        String describe() {
            return String.format(
                    Locale.ROOT,
                    "p50 %.1f s, p99 %.1f s, max %.1f s over %,d rows",
                    p50Seconds,
                    p99Seconds,
                    maxSeconds,
                    rows);
        }
    }

    private final Query query;
    private final String sql;
    private final Map<Long, Long> seen = new HashMap<>();
    private final long[] histogram = new long[BUCKETS];
    private final Thread thread;
    private volatile boolean stop;
    private long lastPollMillis;
    private long rows;
    private long lastVisibleMillis;
    private Exception failure;

    /**
     * Starts polling.
     *
     * @param table the flows table, {@code db.flows}
     * @param fromSeconds first second of {@code time_received} that belongs to the step
     */
    VisibilityLatency(Query query, String table, long fromSeconds) {
        this(query, table, fromSeconds, System.currentTimeMillis(), true);
    }

    /** With {@code poller} false nothing polls by itself: tests call {@link #poll} with times. */
    VisibilityLatency(
            Query query, String table, long fromSeconds, long startMillis, boolean poller) {
        this.query = query;
        this.sql =
                "SELECT toUnixTimestamp(time_received) AS s, count() FROM "
                        + table
                        + " WHERE time_received >= toDateTime("
                        + fromSeconds
                        + ") GROUP BY s";
        this.lastPollMillis = startMillis;
        this.thread = new Thread(this::run, "bench-e2e-latency");
        thread.setDaemon(true);
        if (poller) {
            thread.start();
        }
    }

    private void run() {
        try {
            while (!stop) {
                long t = System.currentTimeMillis();
                poll(t);
                long rest = POLL_MILLIS - (System.currentTimeMillis() - t);
                if (rest > 0) {
                    Thread.sleep(rest);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            synchronized (this) {
                failure = e;
            }
        }
    }

    /** One poll at wall-clock time {@code now} (ms). */
    void poll(long now) throws Exception {
        String answer = query.run(sql);
        synchronized (this) {
            long visibleAt = (lastPollMillis + now) / 2;
            for (String line : answer.split("\n")) {
                if (line.isBlank()) {
                    continue;
                }
                String[] f = line.split("\t");
                long second = Long.parseLong(f[0].trim());
                long count = Long.parseLong(f[1].trim());
                long before = seen.getOrDefault(second, 0L);
                if (count > before) {
                    seen.put(second, count);
                    long latency = Math.max(0, visibleAt - (second * 1000 + 500));
                    int bucket = (int) Math.min(BUCKETS - 1, latency / BUCKET_MILLIS);
                    histogram[bucket] += count - before;
                    rows += count - before;
                    lastVisibleMillis = visibleAt;
                }
            }
            lastPollMillis = now;
        }
    }

    /** Stops polling (after one last poll) and returns the percentiles, or null when no row. */
    Result finish() throws Exception {
        stop = true;
        thread.interrupt();
        thread.join(30_000);
        synchronized (this) {
            if (failure != null) {
                throw failure;
            }
        }
        poll(System.currentTimeMillis());
        return result();
    }

    /** The percentiles of what the polls saw so far, or null when no row. */
    synchronized Result result() {
        if (rows == 0) {
            return null;
        }
        return new Result(rows, quantile(0.50), quantile(0.99), quantile(1.0), lastVisibleMillis);
    }

    /** The upper edge of the bucket that holds the q-quantile, in seconds. */
    private double quantile(double q) {
        long rank = Math.max(1, (long) Math.ceil(q * rows));
        long acc = 0;
        for (int i = 0; i < BUCKETS; i++) {
            acc += histogram[i];
            if (acc >= rank) {
                return (i + 1) * BUCKET_MILLIS / 1000.0;
            }
        }
        return BUCKETS * BUCKET_MILLIS / 1000.0;
    }

    /** Stops polling without a result (a step that ended abnormally). */
    void cancel() throws InterruptedException {
        stop = true;
        thread.interrupt();
        thread.join(30_000);
    }
}
