// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.stats;

import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.jobs.config.DecodeStateLimits;
import io.flowhouse.jobs.decode.DatagramObservation;
import io.flowhouse.jobs.model.ProblemKey;
import io.flowhouse.jobs.model.ScopeKey;
import io.flowhouse.jobs.model.ScopeKeyTypeInfo;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Per-exporter statistics from the decode step's {@link DatagramObservation}s, keyed like the
 * decode step, so one exporter's observations arrive in the order they were made: per scope
 * (version, observation domain) and minute of datagram receive time, the counts of {@link
 * ScopeCounters}, sequence accounting by the codec's rules ({@link ScopeCounters#countSequence})
 * and the decode problems by kind, as {@link ExporterStats} rows.
 *
 * <p>A minute is emitted every {@link #STATS_INTERVAL_MILLIS} (processing time) while it changes,
 * and complete when a datagram of a later minute arrives or the watermark (receive time) passes its
 * end: so the last minute of a bounded run (a reprocess, a test) is written too. Records of a held
 * datagram released later count in the minute its scope is in at that time. A re-sent datagram
 * counts as a duplicate only, never as a datagram or in the sequence accounting.
 *
 * <p>Bounded: a scope silent for the scope idle timeout (processing time) is forgotten, with its
 * problems, and when the exporter has no scope left its timer stops, so its state is empty. An
 * exporter has rows for at most {@code statsMaxScopesPerExporter} domains at a time; the datagrams
 * of further domains are counted together under domain {@link #OTHER_DOMAINS} of their version
 * (without sequence accounting, which means nothing across domains).
 */
public final class AggregateExporterStats
        extends KeyedProcessFunction<ExporterKey, DatagramObservation, ExporterStats> {

    /** Period of the {@link ExporterStats} output, processing time. */
    public static final long STATS_INTERVAL_MILLIS = 60_000L;

    /** Stats minutes are minutes of datagram receive time. */
    public static final long MINUTE_MILLIS = 60_000L;

    /** The domain of the row that counts the domains beyond the bound (the largest uint32). */
    public static final long OTHER_DOMAINS = 0xFFFF_FFFFL;

    static final MapStateDescriptor<ScopeKey, ScopeCounters> COUNTERS =
            new MapStateDescriptor<>(
                    "scope-counters",
                    ScopeKeyTypeInfo.INSTANCE,
                    TypeInformation.of(ScopeCounters.class));
    static final MapStateDescriptor<ProblemKey, Long> PROBLEMS =
            new MapStateDescriptor<>(
                    "scope-problems", TypeInformation.of(ProblemKey.class), Types.LONG);
    static final ValueStateDescriptor<Long> STATS_TIMER =
            new ValueStateDescriptor<>("stats-timer", Types.LONG);
    static final ValueStateDescriptor<Integer> SCOPE_COUNT =
            new ValueStateDescriptor<>("stats-scopes", Types.INT);

    private final long idleMillis;
    private final int maxScopes;
    private final int maxSflowSources;

    private transient MapState<ScopeKey, ScopeCounters> counters;
    private transient MapState<ProblemKey, Long> problems;
    private transient ValueState<Long> statsTimer;
    private transient ValueState<Integer> scopeCount;
    private transient Counter lost;
    private transient Counter sequenceResets;
    private transient Counter scopesExpired;
    private transient Counter scopesFolded;
    private transient Counter sflowUntracked;

    /** With the default bounds. */
    public AggregateExporterStats() {
        this(DecodeStateLimits.defaults());
    }

    public AggregateExporterStats(DecodeStateLimits limits) {
        this.idleMillis = limits.statsScopeIdleTimeout().toMillis();
        this.maxScopes = limits.statsMaxScopesPerExporter();
        this.maxSflowSources = limits.statsMaxSflowSources();
    }

    @Override
    public void open(OpenContext openContext) {
        counters = getRuntimeContext().getMapState(COUNTERS);
        problems = getRuntimeContext().getMapState(PROBLEMS);
        statsTimer = getRuntimeContext().getState(STATS_TIMER);
        scopeCount = getRuntimeContext().getState(SCOPE_COUNT);
        // The decode step's group: the sequence counters kept their names when they moved here.
        MetricGroup g =
                getRuntimeContext().getMetricGroup().addGroup("flowhouse").addGroup("decode");
        lost = g.counter("sequence_lost_units_total");
        sequenceResets = g.counter("sequence_resets_total");
        scopesExpired = g.counter("stats_scopes_expired_total");
        scopesFolded = g.counter("stats_scopes_folded_total");
        sflowUntracked = g.counter("stats_sflow_samples_untracked_total");
    }

    @Override
    public void processElement(DatagramObservation o, Context ctx, Collector<ExporterStats> out)
            throws Exception {
        ScopeKey scope = new ScopeKey(o.version(), o.observationDomainId());
        if (o.kind() == DatagramObservation.Kind.DUPLICATE) {
            duplicate(ctx, scope, o);
            return;
        }
        if (!o.kind().arrival()) {
            released(ctx, scope, o);
            return;
        }
        ensureStatsTimer(ctx);
        ScopeCounters c = counters.get(scope);
        boolean folded = false;
        if (c == null && !admit()) {
            folded = true;
            scopesFolded.inc();
            scope = new ScopeKey(o.version(), OTHER_DOMAINS);
            c = counters.get(scope);
            if (c == null) {
                scopeCount.update(scopeCount() + 1); // one per version: still bounded
            }
        }
        c = arrive(ctx, scope, c, o, out);
        if (o.kind() != DatagramObservation.Kind.UNDECODABLE) {
            if (!folded) {
                long lostBefore = c.lostDatagrams + c.lostRecords;
                long resetsBefore = c.sequenceResets;
                c.countSequence(
                        o.version(),
                        o.sequenceNumber(),
                        o.sequenceUnits(),
                        o.streamId(),
                        o.streamSequence());
                lost.inc(c.lostDatagrams + c.lostRecords - lostBefore);
                sequenceResets.inc(c.sequenceResets - resetsBefore);
                if (o.sflowSamples().length > 0) {
                    sflowUntracked.inc(c.countSflowSamples(o.sflowSamples(), maxSflowSources));
                }
            }
            c.templateRecords += o.templateRecords();
        }
        c.records += o.records();
        if (o.rejected()) {
            c.rejectedRecords++;
        }
        counters.put(scope, c);
        DecodeProblem.Kind[] kinds = o.problems();
        for (int i = 0; i < kinds.length; i++) {
            ProblemKey k = new ProblemKey(scope, kinds[i]);
            Long n = problems.get(k);
            problems.put(k, (n == null ? 0L : n) + o.problemCounts()[i]);
        }
    }

    private int scopeCount() throws Exception {
        Integer n = scopeCount.value();
        return n == null ? 0 : n;
    }

    /** Takes a place for a new scope if the exporter has fewer than the bound. */
    private boolean admit() throws Exception {
        int n = scopeCount();
        if (n >= maxScopes) {
            return false;
        }
        scopeCount.update(n + 1);
        return true;
    }

    /**
     * A re-sent datagram counts in its scope's current minute as a duplicate only: not as a
     * datagram, not in the sequence accounting (it would look like a reset and then a gap).
     */
    private void duplicate(Context ctx, ScopeKey scope, DatagramObservation o) throws Exception {
        ensureStatsTimer(ctx);
        ScopeCounters c = counters.get(scope);
        if (c == null && !admit()) {
            scopesFolded.inc();
            scope = new ScopeKey(o.version(), OTHER_DOMAINS);
            c = counters.get(scope);
            if (c == null) {
                scopeCount.update(scopeCount() + 1); // one per version: still bounded
            }
        }
        if (c == null) {
            c = new ScopeCounters();
            c.startMinute(Math.floorDiv(o.receivedMillis(), MINUTE_MILLIS) * MINUTE_MILLIS);
            c.lastReceivedMillis = o.receivedMillis();
        }
        c.duplicateDatagrams++;
        c.markChanged();
        c.lastActiveMillis = ctx.timerService().currentProcessingTime();
        counters.put(scope, c);
        // Written again once the watermark is past its minute (at once if it already is).
        ctx.timerService().registerEventTimeTimer(c.minuteMillis + MINUTE_MILLIS);
    }

    /** What a held datagram emitted when released counts in its scope's current minute. */
    private void released(Context ctx, ScopeKey scope, DatagramObservation o) throws Exception {
        ScopeCounters c = counters.get(scope);
        if (c == null) {
            scope = new ScopeKey(o.version(), OTHER_DOMAINS);
            c = counters.get(scope);
        }
        if (c == null || (o.records() == 0 && !o.rejected())) {
            return;
        }
        c.records += o.records();
        c.recordsBeforeTemplate += o.records();
        if (o.rejected()) {
            c.rejectedRecords++;
        }
        c.markChanged();
        counters.put(scope, c);
        ctx.timerService().registerEventTimeTimer(c.minuteMillis + MINUTE_MILLIS);
    }

    /**
     * The scope's counters with this datagram counted; when the datagram starts a later minute, the
     * finished minute is emitted first.
     */
    private ScopeCounters arrive(
            Context ctx,
            ScopeKey scope,
            ScopeCounters c,
            DatagramObservation o,
            Collector<ExporterStats> out)
            throws Exception {
        long minute = Math.floorDiv(o.receivedMillis(), MINUTE_MILLIS) * MINUTE_MILLIS;
        if (c == null) {
            c = new ScopeCounters();
            c.startMinute(minute);
            ctx.timerService().registerEventTimeTimer(minute + MINUTE_MILLIS);
        } else if (minute > c.minuteMillis) {
            if (c.counted()) {
                out.collect(stats(ctx.getCurrentKey(), scope, c));
            }
            c.startMinute(minute);
            clearProblems(scope);
            ctx.timerService().registerEventTimeTimer(minute + MINUTE_MILLIS);
        }
        c.datagrams++;
        c.datagramBytes += o.bytes();
        c.lastReceivedMillis = Math.max(c.lastReceivedMillis, o.receivedMillis());
        c.markChanged();
        c.lastActiveMillis = ctx.timerService().currentProcessingTime();
        return c;
    }

    private void clearProblems(ScopeKey scope) throws Exception {
        Iterator<Map.Entry<ProblemKey, Long>> it = problems.iterator();
        while (it.hasNext()) {
            if (it.next().getKey().in(scope)) {
                it.remove();
            }
        }
        if (problems.isEmpty()) {
            problems.clear(); // the heap backend keeps an emptied map otherwise
        }
    }

    private void ensureStatsTimer(Context ctx) throws Exception {
        if (statsTimer.value() != null) {
            return;
        }
        schedule(ctx.timerService().currentProcessingTime(), ctx.timerService());
    }

    private void schedule(long now, TimerService timers) throws Exception {
        long next = (Math.floorDiv(now, STATS_INTERVAL_MILLIS) + 1) * STATS_INTERVAL_MILLIS;
        timers.registerProcessingTimeTimer(next);
        statsTimer.update(next);
    }

    /**
     * Emits the running minute of every scope of this exporter that changed since its last row, and
     * forgets the scopes that have been idle for the idle timeout.
     */
    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<ExporterStats> out)
            throws Exception {
        if (ctx.timeDomain() == TimeDomain.EVENT_TIME) {
            emitChanged(ctx.getCurrentKey(), out);
            return;
        }
        Long t = statsTimer.value();
        if (t == null || t != timestamp) {
            return;
        }
        statsTimer.clear();
        List<Map.Entry<ScopeKey, ScopeCounters>> emitted = new ArrayList<>();
        List<ScopeKey> idle = new ArrayList<>();
        for (Map.Entry<ScopeKey, ScopeCounters> e : counters.entries()) {
            ScopeCounters c = e.getValue();
            if (c.changed) {
                if (c.counted()) {
                    out.collect(stats(ctx.getCurrentKey(), e.getKey(), c));
                }
                emitted.add(Map.entry(e.getKey(), c));
            } else if (timestamp - c.lastActiveMillis >= idleMillis) {
                idle.add(e.getKey());
            }
        }
        for (Map.Entry<ScopeKey, ScopeCounters> e : emitted) {
            e.getValue().changed = false;
            counters.put(e.getKey(), e.getValue());
        }
        for (ScopeKey scope : idle) {
            counters.remove(scope);
            clearProblems(scope);
            scopesExpired.inc();
        }
        int left = scopeCount() - idle.size();
        if (ctx.timerService().currentWatermark() == Long.MAX_VALUE) {
            return; // the input of this key has ended (BATCH mode): no timer can be set
        }
        if (counters.isEmpty()) {
            scopeCount.clear();
        } else {
            scopeCount.update(Math.max(left, 0));
            schedule(timestamp, ctx.timerService());
        }
    }

    /** When the watermark passes the end of a minute: the rows that changed since last written. */
    private void emitChanged(ExporterKey key, Collector<ExporterStats> out) throws Exception {
        List<Map.Entry<ScopeKey, ScopeCounters>> emitted = new ArrayList<>();
        for (Map.Entry<ScopeKey, ScopeCounters> e : counters.entries()) {
            ScopeCounters c = e.getValue();
            if (c.changed && c.counted()) {
                out.collect(stats(key, e.getKey(), c));
                emitted.add(Map.entry(e.getKey(), c));
            }
        }
        for (Map.Entry<ScopeKey, ScopeCounters> e : emitted) {
            e.getValue().changed = false;
            counters.put(e.getKey(), e.getValue());
        }
    }

    private ExporterStats stats(ExporterKey exporter, ScopeKey scope, ScopeCounters c)
            throws Exception {
        Map<String, Long> p = new TreeMap<>();
        for (Map.Entry<ProblemKey, Long> e : problems.entries()) {
            if (e.getKey().in(scope)) {
                p.put(e.getKey().kind().name(), e.getValue());
            }
        }
        return c.toStats(
                exporter.address(),
                exporter.port(),
                scope.version(),
                scope.observationDomainId(),
                p);
    }
}
