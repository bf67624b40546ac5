// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.OptionsData;
import io.flowhouse.codec.template.TemplateScope;
import io.flowhouse.jobs.config.DecodeSettings;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.HeldDatagram;
import io.flowhouse.jobs.model.ScopeCounters;
import io.flowhouse.jobs.model.StoredTemplate;
import io.flowhouse.jobs.stats.ExporterStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Decodes raw export datagrams of one exporter (the key) into flow records, with templates, options
 * data (sampling, time base) and sequence accounting in checkpointed keyed state.
 *
 * <ul>
 *   <li>Input 1: datagrams from {@code flows.raw}. Input 2: templates restored from the compacted
 *       templates topic ({@link ArchivedTemplate}), so that a replay from any offset decodes data
 *       whose template came earlier.
 *   <li>Data whose template is unknown is held (the whole datagram, in {@code ListState}) until the
 *       template comes, from the stream or the archive, or until {@link
 *       DecodeSettings#templateHold()} has passed (processing time); then what decodes is emitted
 *       and the datagram goes to {@link DecodeOutputs#REJECTED} with reason {@code
 *       TEMPLATE_MISSING}. A held datagram emits nothing until it is released, so no record is
 *       emitted twice.
 *   <li>Each flow carries the sampling rate that applies to it ({@link
 *       io.flowhouse.jobs.config.SamplingPolicy}); counters stay as sent.
 *   <li>Sequence gaps are counted per scope ({@link ScopeCounters#countSequence}, the codec's
 *       rules), as Flink metrics and as per-minute {@link ExporterStats} rows (emitted every {@link
 *       #STATS_INTERVAL_MILLIS} while a minute runs, and complete when the next minute starts).
 * </ul>
 */
public final class DecodeRawFlowFunction
        extends KeyedCoProcessFunction<String, RawDatagram, ArchivedTemplate, FlowRecord> {

    /** Period of the {@link ExporterStats} output, processing time. */
    public static final long STATS_INTERVAL_MILLIS = 60_000L;

    /** Stats minutes are minutes of datagram receive time. */
    public static final long MINUTE_MILLIS = 60_000L;

    static final MapStateDescriptor<String, StoredTemplate> TEMPLATES =
            new MapStateDescriptor<>(
                    "templates", Types.STRING, TypeInformation.of(StoredTemplate.class));
    static final MapStateDescriptor<String, byte[]> OPTIONS =
            new MapStateDescriptor<>(
                    "options", Types.STRING, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);
    static final MapStateDescriptor<String, ScopeCounters> COUNTERS =
            new MapStateDescriptor<>(
                    "scope-counters", Types.STRING, TypeInformation.of(ScopeCounters.class));
    static final MapStateDescriptor<String, Long> PROBLEMS =
            new MapStateDescriptor<>("scope-problems", Types.STRING, Types.LONG);
    static final ListStateDescriptor<HeldDatagram> HELD =
            new ListStateDescriptor<>("held", TypeInformation.of(HeldDatagram.class));
    static final ValueStateDescriptor<Long> HOLD_TIMER =
            new ValueStateDescriptor<>("hold-timer", Types.LONG);
    static final ValueStateDescriptor<Long> STATS_TIMER =
            new ValueStateDescriptor<>("stats-timer", Types.LONG);

    private final DecodeSettings settings;

    private transient MapState<String, StoredTemplate> templates;
    private transient MapState<String, byte[]> options;
    private transient MapState<String, ScopeCounters> counters;
    private transient MapState<String, Long> problems;
    private transient ListState<HeldDatagram> held;
    private transient ValueState<Long> holdTimer;
    private transient ValueState<Long> statsTimer;
    private transient StateBackedTemplateCache cache;
    private transient DecodeMetrics metrics;
    private transient DatagramDecoder decoder;

    public DecodeRawFlowFunction(DecodeSettings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext openContext) {
        templates = getRuntimeContext().getMapState(TEMPLATES);
        options = getRuntimeContext().getMapState(OPTIONS);
        counters = getRuntimeContext().getMapState(COUNTERS);
        problems = getRuntimeContext().getMapState(PROBLEMS);
        held = getRuntimeContext().getListState(HELD);
        holdTimer = getRuntimeContext().getState(HOLD_TIMER);
        statsTimer = getRuntimeContext().getState(STATS_TIMER);
        cache = new StateBackedTemplateCache(templates, options);
        metrics = new DecodeMetrics(getRuntimeContext().getMetricGroup());
        decoder = new DatagramDecoder();
    }

    @Override
    public void processElement1(RawDatagram d, Context ctx, Collector<FlowRecord> out)
            throws Exception {
        metrics.datagrams.inc();
        ExporterKey exporter =
                ExporterKeys.exporter(d.exporterAddress(), d.exporterPort(), settings.scopeMode());
        ensureStatsTimer(ctx);
        cache.bind(ctx.getCurrentKey(), d.receivedMillis());
        Decoded r;
        try {
            r = decoder.decode(d, exporter, cache);
        } catch (DecodeException e) {
            ScopeCounters c = counters(ctx, 0, 0L, d);
            c.rejectedRecords++;
            putCounters(0, 0L, c);
            countProblem(0, 0L, e.kind().name());
            reject(ctx, d, e.kind().name(), e.getMessage());
            return;
        }
        archiveLearned(ctx, exporter, d.receivedMillis());
        ScopeCounters c = counters(ctx, r.version(), r.observationDomainId(), d);
        long lostBefore = c.lostDatagrams + c.lostRecords;
        long resetsBefore = c.sequenceResets;
        c.countSequence(
                r.version(),
                r.sequenceNumber(),
                r.missingTemplateIds().isEmpty() ? r.sequenceUnits() : -1L);
        metrics.lost.inc(c.lostDatagrams + c.lostRecords - lostBefore);
        metrics.sequenceResets.inc(c.sequenceResets - resetsBefore);
        c.templateRecords += r.templateRecords();
        putCounters(r.version(), r.observationDomainId(), c);
        for (DecodeProblem p : r.problems()) {
            countProblem(r.version(), r.observationDomainId(), p.kind().name());
        }

        boolean learned = !cache.learned().isEmpty();
        if (!r.missingTemplateIds().isEmpty() && !settings.templateHold().isZero()) {
            hold(ctx, d, out);
        } else {
            emit(d, exporter, r, out, false);
            if (!r.missingTemplateIds().isEmpty()) {
                rejectMissing(ctx, d, r);
            } else {
                rejectProblems(ctx, d, r);
            }
        }
        if (learned) {
            releaseHeld(ctx, out, Long.MIN_VALUE);
        }
    }

    @Override
    public void processElement2(ArchivedTemplate t, Context ctx, Collector<FlowRecord> out)
            throws Exception {
        ExporterKey exporter =
                ExporterKeys.exporter(t.exporterAddress(), t.exporterPort(), settings.scopeMode());
        TemplateScope scope = new TemplateScope(exporter, t.version(), t.observationDomainId());
        boolean changed =
                t.isOptionsData()
                        ? cache.restoreOptions(scope, t.wire())
                        : cache.restore(scope.key(t.templateId()), t.wire(), t.learnedMillis());
        if (changed) {
            metrics.templatesRestored.inc();
            releaseHeld(ctx, out, Long.MIN_VALUE);
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<FlowRecord> out)
            throws Exception {
        Long hold = holdTimer.value();
        if (hold != null && hold == timestamp) {
            holdTimer.clear();
            releaseHeld(ctx, out, timestamp);
        }
        Long stats = statsTimer.value();
        if (stats != null && stats == timestamp) {
            statsTimer.clear();
            emitRunningMinutes(ctx);
        }
    }

    /** Holds a datagram; the oldest is released at once when the per-exporter limit is hit. */
    private void hold(Context ctx, RawDatagram d, Collector<FlowRecord> out) throws Exception {
        long deadline =
                ctx.timerService().currentProcessingTime() + settings.templateHold().toMillis();
        List<HeldDatagram> list = new ArrayList<>();
        for (HeldDatagram h : held.get()) {
            list.add(h);
        }
        list.add(new HeldDatagram(d, deadline));
        metrics.held.inc();
        while (list.size() > settings.maxHeldDatagrams()) {
            HeldDatagram oldest = list.remove(0);
            release(ctx, oldest, out, true);
        }
        held.update(list);
        scheduleHoldTimer(ctx, list);
    }

    /**
     * Re-decodes held datagrams (read-only: what they teach does not enter state). Those that now
     * decode fully are emitted; those past their deadline ({@code now}; {@code Long.MIN_VALUE} for
     * none) are emitted as far as they decode and rejected for the rest.
     */
    private void releaseHeld(Context ctx, Collector<FlowRecord> out, long now) throws Exception {
        Iterable<HeldDatagram> current = held.get();
        if (current == null || !current.iterator().hasNext()) {
            return;
        }
        List<HeldDatagram> keep = new ArrayList<>();
        for (HeldDatagram h : current) {
            if (!release(ctx, h, out, h.deadlineMillis() <= now)) {
                keep.add(h);
            }
        }
        if (keep.isEmpty()) {
            held.clear();
            Long t = holdTimer.value();
            if (t != null) {
                ctx.timerService().deleteProcessingTimeTimer(t);
                holdTimer.clear();
            }
        } else {
            held.update(keep);
            scheduleHoldTimer(ctx, keep);
        }
    }

    /** Returns true if the datagram is done with (emitted, maybe partly rejected). */
    private boolean release(Context ctx, HeldDatagram h, Collector<FlowRecord> out, boolean expired)
            throws Exception {
        RawDatagram d = h.datagram();
        ExporterKey exporter =
                ExporterKeys.exporter(d.exporterAddress(), d.exporterPort(), settings.scopeMode());
        cache.bindReadOnly(ctx.getCurrentKey(), d.receivedMillis());
        Decoded r;
        try {
            r = decoder.decode(d, exporter, cache);
        } catch (DecodeException e) {
            reject(ctx, d, e.kind().name(), e.getMessage());
            return true;
        }
        if (!r.missingTemplateIds().isEmpty() && !expired) {
            return false;
        }
        emit(d, exporter, r, out, true);
        if (!r.missingTemplateIds().isEmpty()) {
            rejectMissing(ctx, d, r);
        } else {
            metrics.heldDecoded.inc();
            rejectProblems(ctx, d, r);
        }
        return true;
    }

    private void scheduleHoldTimer(Context ctx, List<HeldDatagram> list) throws Exception {
        long earliest = Long.MAX_VALUE;
        for (HeldDatagram h : list) {
            earliest = Math.min(earliest, h.deadlineMillis());
        }
        Long t = holdTimer.value();
        if (t != null && t == earliest) {
            return;
        }
        if (t != null) {
            ctx.timerService().deleteProcessingTimeTimer(t);
        }
        ctx.timerService().registerProcessingTimeTimer(earliest);
        holdTimer.update(earliest);
    }

    private void emit(
            RawDatagram d,
            ExporterKey exporter,
            Decoded r,
            Collector<FlowRecord> out,
            boolean wasHeld)
            throws Exception {
        if (r.records().isEmpty()) {
            return;
        }
        boolean announced = false;
        if (r.version() != 5) {
            OptionsData o =
                    cache.options(
                            new TemplateScope(exporter, r.version(), r.observationDomainId()));
            announced = !o.samplingRates().isEmpty();
        }
        boolean fixPort = exporter.port() != d.exporterPort();
        for (FlowRecord f : r.records()) {
            long sent = f.samplingRate();
            long rate =
                    settings.sampling()
                            .rateFor(
                                    d.exporterAddress(),
                                    d.exporterPort(),
                                    sent > 1 || announced ? sent : 0L);
            if (rate != sent || fixPort) {
                f = f.toBuilder().samplingRate(rate).exporterPort(d.exporterPort()).build();
            }
            out.collect(f);
        }
        metrics.flows.inc(r.records().size());
        String k = r.version() + "/" + r.observationDomainId();
        ScopeCounters c = counters.get(k);
        if (c != null) {
            c.records += r.records().size();
            if (wasHeld) {
                c.recordsBeforeTemplate += r.records().size();
            }
            counters.put(k, c);
        }
    }

    private void rejectMissing(Context ctx, RawDatagram d, Decoded r) throws Exception {
        StringJoiner ids = new StringJoiner(", ", "no template ", "");
        for (int id : r.missingTemplateIds()) {
            ids.add(Integer.toString(id));
        }
        String detail =
                ids
                        + " in version "
                        + r.version()
                        + " domain "
                        + r.observationDomainId()
                        + " within "
                        + settings.templateHold()
                        + "; "
                        + r.records().size()
                        + " records of this datagram were decoded and emitted";
        if (DeadLetterPolicy.reason(r.problems()) != null) {
            detail =
                    DeadLetterPolicy.bound(
                            detail + "; also " + DeadLetterPolicy.problems(r.problems()));
        }
        String k = r.version() + "/" + r.observationDomainId();
        ScopeCounters c = counters.get(k);
        if (c != null) {
            c.rejectedRecords++;
            counters.put(k, c);
        }
        reject(ctx, d, DecodeProblem.Kind.TEMPLATE_MISSING.name(), detail);
    }

    /**
     * Dead-letters a datagram (once) whose problems mean part of it was not processed ({@link
     * DeadLetterPolicy}); what decoded has been emitted. Not for held or template-missing data.
     */
    private void rejectProblems(Context ctx, RawDatagram d, Decoded r) throws Exception {
        String reason = DeadLetterPolicy.reason(r.problems());
        if (reason == null) {
            return;
        }
        String k = r.version() + "/" + r.observationDomainId();
        ScopeCounters c = counters.get(k);
        if (c != null) {
            c.rejectedRecords++;
            counters.put(k, c);
        }
        reject(ctx, d, reason, DeadLetterPolicy.detail(r.problems(), r.records().size()));
    }

    private void reject(Context ctx, RawDatagram d, String reason, String detail) {
        metrics.rejected.inc();
        ctx.output(DecodeOutputs.REJECTED, new RejectedDatagram(d, reason, detail));
    }

    private void archiveLearned(Context ctx, ExporterKey exporter, long receivedMillis) {
        List<StateBackedTemplateCache.Learned> learned = cache.learned();
        if (learned.isEmpty()) {
            return;
        }
        metrics.templatesLearned.inc(learned.size());
        if (!settings.archiveTemplates()) {
            return;
        }
        for (StateBackedTemplateCache.Learned l : learned) {
            ctx.output(
                    DecodeOutputs.TEMPLATES,
                    new ArchivedTemplate(
                            exporter.address(),
                            exporter.port(),
                            l.scope().version(),
                            l.scope().observationDomainId(),
                            l.options() ? ArchivedTemplate.OPTIONS_DATA : l.templateId(),
                            l.wire(),
                            receivedMillis));
        }
    }

    /**
     * The scope's counters with this datagram counted; when the datagram starts a later minute, the
     * finished minute is emitted first.
     */
    private ScopeCounters counters(Context ctx, int version, long domain, RawDatagram d)
            throws Exception {
        String k = version + "/" + domain;
        ScopeCounters c = counters.get(k);
        long minute = Math.floorDiv(d.receivedMillis(), MINUTE_MILLIS) * MINUTE_MILLIS;
        if (c == null) {
            c = new ScopeCounters();
            c.startMinute(minute);
        } else if (minute > c.minuteMillis) {
            if (c.datagrams > 0) {
                ctx.output(DecodeOutputs.STATS, stats(ctx.getCurrentKey(), k, c));
            }
            c.startMinute(minute);
            clearProblems(k);
        }
        c.datagrams++;
        c.datagramBytes += d.payload().length;
        c.lastReceivedMillis = Math.max(c.lastReceivedMillis, d.receivedMillis());
        return c;
    }

    private void putCounters(int version, long domain, ScopeCounters c) throws Exception {
        counters.put(version + "/" + domain, c);
    }

    private void countProblem(int version, long domain, String kind) throws Exception {
        String k = version + "/" + domain + "/" + kind;
        Long n = problems.get(k);
        problems.put(k, n == null ? 1L : n + 1);
    }

    private void clearProblems(String scopeKey) throws Exception {
        String prefix = scopeKey + "/";
        Iterator<Map.Entry<String, Long>> it = problems.iterator();
        while (it.hasNext()) {
            if (it.next().getKey().startsWith(prefix)) {
                it.remove();
            }
        }
    }

    private void ensureStatsTimer(Context ctx) throws Exception {
        if (statsTimer.value() != null) {
            return;
        }
        long now = ctx.timerService().currentProcessingTime();
        long next = (Math.floorDiv(now, STATS_INTERVAL_MILLIS) + 1) * STATS_INTERVAL_MILLIS;
        ctx.timerService().registerProcessingTimeTimer(next);
        statsTimer.update(next);
    }

    /** Emits the running minute of every scope of this exporter. */
    private void emitRunningMinutes(OnTimerContext ctx) throws Exception {
        for (Map.Entry<String, ScopeCounters> e : counters.entries()) {
            if (e.getValue().datagrams > 0) {
                ctx.output(
                        DecodeOutputs.STATS, stats(ctx.getCurrentKey(), e.getKey(), e.getValue()));
            }
        }
    }

    private ExporterStats stats(String exporterKey, String scopeKey, ScopeCounters c)
            throws Exception {
        int bar = exporterKey.lastIndexOf('|');
        IpAddress address = IpAddress.parse(bar < 0 ? exporterKey : exporterKey.substring(0, bar));
        int port = bar < 0 ? 0 : Integer.parseInt(exporterKey.substring(bar + 1));
        int slash = scopeKey.indexOf('/');
        int version = Integer.parseInt(scopeKey.substring(0, slash));
        long domain = Long.parseLong(scopeKey.substring(slash + 1));
        Map<String, Long> p = new HashMap<>();
        String prefix = scopeKey + "/";
        for (Map.Entry<String, Long> e : problems.entries()) {
            if (e.getKey().startsWith(prefix)) {
                p.put(e.getKey().substring(prefix.length()), e.getValue());
            }
        }
        return c.toStats(address, port, version, domain, p);
    }

    /** Flink metrics of the decode step, under group {@code flowhouse.decode}. */
    private static final class DecodeMetrics {
        final Counter datagrams;
        final Counter flows;
        final Counter rejected;
        final Counter held;
        final Counter heldDecoded;
        final Counter lost;
        final Counter sequenceResets;
        final Counter templatesLearned;
        final Counter templatesRestored;

        DecodeMetrics(MetricGroup parent) {
            MetricGroup g = parent.addGroup("flowhouse").addGroup("decode");
            datagrams = g.counter("datagrams_total");
            flows = g.counter("flows_total");
            rejected = g.counter("rejected_datagrams_total");
            held = g.counter("held_datagrams_total");
            heldDecoded = g.counter("held_datagrams_decoded_total");
            lost = g.counter("sequence_lost_units_total");
            sequenceResets = g.counter("sequence_resets_total");
            templatesLearned = g.counter("templates_learned_total");
            templatesRestored = g.counter("templates_restored_total");
        }
    }
}
