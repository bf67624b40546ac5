// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.emit;

import io.flowhouse.loadgen.export.DatagramSource;
import io.flowhouse.loadgen.export.ExportDatagram;
import io.flowhouse.loadgen.report.ExporterTotals;
import io.flowhouse.loadgen.report.RunSummary;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Drives the simulated exporters round-robin into a {@link DatagramSink} at a target rate, for a
 * duration or a count, and keeps exact totals. One sending thread: on a small machine that is
 * faster than several contending ones, and it keeps each exporter's datagrams in order.
 *
 * <p>Pacing: a {@link RateLimiter} schedule in flows or datagrams per second, read with {@code
 * nanoTime}; the loop sends in batches of what the schedule allows and parks (never spins) until
 * about a millisecond of traffic is due: a sender spinning between datagrams took a core from the
 * collector it measured on a small machine. When the sender falls behind by more than ~100 ms of
 * traffic, the backlog is written off and reported as shortfall, so a run that cannot keep up says
 * so rather than silently sending less.
 *
 * <p>Virtual time: when {@code paced} is false (writing a pcap only), nothing sleeps and export
 * times advance by the schedule, so the file looks as if sent at the target rate.
 */
public final class DatagramEmitter {

    /** What the rate and the count are measured in. */
    public enum Unit {
        FLOWS,
        DATAGRAMS;

        public String label() {
            return this == FLOWS ? "flows" : "datagrams";
        }
    }

    /** Called about once a second from the sending thread. */
    @FunctionalInterface
    public interface ProgressListener {
        void progress(long elapsedNanos, long units, RunSummaryView view);
    }

    /** Live counters for a progress line. */
    public record RunSummaryView(
            long flows, long datagrams, long malformed, long errors, long shortfall) {}

    /**
     * @param unit what the rate and count are in
     * @param rate target units per second; {@code <= 0} unlimited
     * @param count stop after this many units; {@code <= 0} no count limit
     * @param durationNanos stop after this long; {@code <= 0} no time limit (one of the two limits
     *     must be set)
     * @param paced false to run on virtual time (pcap only, no sleeping)
     * @param startMillis the first export time when not paced
     */
    public record Settings(
            Unit unit,
            double rate,
            long count,
            long durationNanos,
            boolean paced,
            long startMillis) {
        public Settings {
            if (count <= 0 && durationNanos <= 0) {
                throw new IllegalArgumentException("a run needs a count or a duration");
            }
            if (!paced && count <= 0 && rate <= 0) {
                throw new IllegalArgumentException(
                        "an unpaced run needs a count or a rate to place time");
            }
        }
    }

    private static final int MAX_BATCH = 64;
    private static final long PROGRESS_INTERVAL_NANOS = 1_000_000_000L;

    private final List<? extends DatagramSource> exporters;
    private final DatagramSink sink;
    private final Settings settings;
    private final LongSupplier nanoTime;
    private final LongSupplier wallMillis;
    private final ProgressListener progress;
    private final List<ExporterTotals> totals;
    private volatile boolean stopRequested;

    public DatagramEmitter(
            List<? extends DatagramSource> exporters,
            DatagramSink sink,
            Settings settings,
            LongSupplier nanoTime,
            LongSupplier wallMillis,
            ProgressListener progress) {
        if (exporters.isEmpty()) {
            throw new IllegalArgumentException("no exporters");
        }
        this.exporters = List.copyOf(exporters);
        this.sink = sink;
        this.settings = settings;
        this.nanoTime = nanoTime;
        this.wallMillis = wallMillis;
        this.progress = progress;
        this.totals = new ArrayList<>(exporters.size());
        for (DatagramSource e : this.exporters) {
            ExporterTotals t = new ExporterTotals(e.index(), e.protocol().label(), e.domainId());
            InetSocketAddress src = sink.source(e.index());
            t.source(src.getAddress().getHostAddress() + ":" + src.getPort());
            totals.add(t);
        }
    }

    /** Asks a running {@link #run(String)} to stop after the datagram in flight (any thread). */
    public void stop() {
        stopRequested = true;
    }

    /**
     * Runs to the count or the duration and returns the exact totals.
     *
     * @param targetLabel collector address for the summary ("" for pcap only)
     */
    public RunSummary run(String targetLabel, long seed) {
        boolean flowsUnit = settings.unit() == Unit.FLOWS;
        long start = nanoTime.getAsLong();
        // Catch-up of ~100 ms, and at least a full datagram of flows so one can always go out.
        RateLimiter limiter = RateLimiter.withDefaultBacklog(settings.rate(), start, 64);
        long units = 0;
        long flows = 0;
        long datagrams = 0;
        long malformed = 0;
        long errors = 0;
        long nextProgress = start + PROGRESS_INTERVAL_NANOS;
        long last = start;
        int rr = 0;
        boolean paced = settings.paced();
        double virtualNanosPerUnit =
                settings.rate() > 0 ? 1e9 / settings.rate() : 1e9 / 10_000.0; // unlimited: 10k/s
        // Units to wake for: a millisecond of traffic, well inside the limiter's catch-up.
        long wakeUnits = Math.max(1L, (long) (settings.rate() / 1_000));
        while (!stopRequested) {
            long now = nanoTime.getAsLong();
            if (settings.durationNanos() > 0) {
                long elapsed = paced ? now - start : (long) (units * virtualNanosPerUnit);
                if (elapsed >= settings.durationNanos()) {
                    break;
                }
            }
            if (settings.count() > 0 && units >= settings.count()) {
                break;
            }
            long allowed = paced ? limiter.available(now) : Long.MAX_VALUE;
            if (allowed <= 0) {
                LockSupport.parkNanos(limiter.nanosUntil(wakeUnits, now));
                continue;
            }
            for (int b = 0; b < MAX_BATCH && allowed > 0; b++) {
                DatagramSource ex = exporters.get(rr);
                rr = rr + 1 == exporters.size() ? 0 : rr + 1;
                long timeMillis =
                        paced
                                ? wallMillis.getAsLong()
                                : settings.startMillis()
                                        + (long) (units * virtualNanosPerUnit / 1e6);
                int maxFlows = Integer.MAX_VALUE;
                if (flowsUnit && settings.count() > 0) {
                    maxFlows = (int) Math.min(Integer.MAX_VALUE, settings.count() - units);
                }
                ExportDatagram d = ex.next(timeMillis, maxFlows);
                long cost = flowsUnit ? d.flows().size() : 1;
                ExporterTotals t = totals.get(ex.index());
                try {
                    sink.send(d, timeMillis);
                    t.sent(d);
                    if (d.malformed()) {
                        malformed++;
                    } else {
                        datagrams++;
                        flows += d.flows().size();
                    }
                } catch (IOException e) {
                    t.sendError();
                    errors++;
                }
                // Failed sends still used their slot: the rate is what we tried to send.
                units += cost;
                limiter.consume(cost);
                allowed -= cost;
                if (settings.count() > 0 && units >= settings.count()) {
                    break;
                }
            }
            last = nanoTime.getAsLong();
            if (progress != null && last >= nextProgress) {
                nextProgress = last + PROGRESS_INTERVAL_NANOS;
                progress.progress(
                        last - start,
                        units,
                        new RunSummaryView(
                                flows, datagrams, malformed, errors, limiter.shortfall()));
            }
        }
        long elapsed = paced ? last - start : (long) (units * virtualNanosPerUnit);
        for (DatagramSource e : exporters) {
            totals.get(e.index()).sequence(e.sequence(), e.gaps(), e.missingSequence());
        }
        return new RunSummary(
                targetLabel,
                settings.unit().label(),
                settings.rate(),
                seed,
                elapsed,
                limiter.shortfall(),
                totals);
    }
}
