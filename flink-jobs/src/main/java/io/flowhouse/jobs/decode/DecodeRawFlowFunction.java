// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.sflow.InterfaceCounters;
import io.flowhouse.enrich.EnrichSettings;
import io.flowhouse.jobs.config.DecodeSettings;
import io.flowhouse.jobs.config.DecodeStateLimits;
import io.flowhouse.jobs.enrich.FlowEnrichment;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.ExporterFootprint;
import io.flowhouse.jobs.model.HeldDatagram;
import io.flowhouse.jobs.model.ScopeKey;
import io.flowhouse.jobs.model.ScopeKeyTypeInfo;
import io.flowhouse.jobs.model.ScopeUsage;
import io.flowhouse.jobs.model.StoredTemplate;
import io.flowhouse.jobs.model.TemplateStateKey;
import io.flowhouse.jobs.model.TemplateStateKeyTypeInfo;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Decodes raw export datagrams keyed by the exporter that owns their template space ({@link
 * ExporterKeys}) into flow records, with templates and options data (sampling, time base) in
 * checkpointed keyed state ({@link StateBackedTemplateCache}). Run it as a {@link DecodeOperator}
 * (which restores the instance's state total at start).
 *
 * <ul>
 *   <li>A stamped datagram seen before (a re-send) is dropped first, before anything counts it
 *       ({@link DuplicateFilter}); only the statistics count it, as a duplicate.
 *   <li>Input 1: datagrams from {@code flows.raw}. Input 2: templates restored from the compacted
 *       templates topic ({@link TemplateArchive}), so that a replay from any offset decodes data
 *       whose template came earlier.
 *   <li>Data whose template is unknown is held ({@link HeldDatagrams}) until the templates it waits
 *       for come, from the stream or the archive, or until {@link DecodeSettings#templateHold()}
 *       has passed (processing time); then what decodes is emitted and the datagram goes to {@link
 *       DecodeOutputs#REJECTED} with reason {@code TEMPLATE_MISSING} ({@link DeadLetters}). A held
 *       datagram emits nothing until it is released, so no record is emitted twice.
 *   <li>State is bounded ({@link DecodeStateLimits}): bytes per exporter and per instance ({@link
 *       ExporterBudget}), templates expire a lifetime after their last re-send (receive time), and
 *       a key idle for the idle timeout (processing time) loses all its state.
 *   <li>Each flow carries the sampling rate that applies to it, and times within the event-time
 *       window around its receive time ({@link FlowEmitter}, {@link EventTimeClamp}).
 *   <li>What each datagram showed (version, domain, sequence, problems, records, held or rejected)
 *       goes out as a {@link DatagramObservation} on {@link DecodeOutputs#OBSERVATIONS}; the
 *       exporter statistics are their own operator.
 * </ul>
 */
public final class DecodeRawFlowFunction
        extends KeyedCoProcessFunction<ExporterKey, RawDatagram, ArchivedTemplate, FlowRecord> {

    static final MapStateDescriptor<TemplateStateKey, StoredTemplate> TEMPLATES =
            new MapStateDescriptor<>(
                    "templates",
                    TemplateStateKeyTypeInfo.INSTANCE,
                    TypeInformation.of(StoredTemplate.class));
    static final MapStateDescriptor<ScopeKey, byte[]> OPTIONS =
            new MapStateDescriptor<>(
                    "options",
                    ScopeKeyTypeInfo.INSTANCE,
                    PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);
    static final MapStateDescriptor<ScopeKey, ScopeUsage> SCOPES =
            new MapStateDescriptor<>(
                    "scope-usage", ScopeKeyTypeInfo.INSTANCE, TypeInformation.of(ScopeUsage.class));
    static final MapStateDescriptor<TemplateStateKey, Long> WITHDRAWALS =
            new MapStateDescriptor<>(
                    "template-withdrawals", TemplateStateKeyTypeInfo.INSTANCE, Types.LONG);

    private final DecodeSettings settings;
    private final EnrichSettings enrich;

    private transient DecodeStateLedger ledger;
    private transient ExporterBudget budget;
    private transient StateBackedTemplateCache cache;
    private transient HeldDatagrams held;
    private transient DatagramDecoder decoder;
    private transient FlowEmitter emitter;
    private transient DeadLetters deadLetters;
    private transient TemplateArchive archive;
    private transient DecodeMetrics metrics;
    private transient DuplicateFilter duplicates;
    private transient FlowEnrichment enrichment;
    private transient EnrichedOutput enriched;

    public DecodeRawFlowFunction(DecodeSettings settings) {
        this(settings, null);
    }

    /**
     * @param enrich with it, every flow also goes to {@link DecodeOutputs#ENRICHED} with its
     *     context; null: none
     */
    public DecodeRawFlowFunction(DecodeSettings settings, EnrichSettings enrich) {
        this.settings = settings;
        this.enrich = enrich;
    }

    @Override
    public void open(OpenContext openContext) {
        DecodeStateLimits limits = settings.stateLimits();
        metrics = new DecodeMetrics(getRuntimeContext().getMetricGroup());
        ledger = new DecodeStateLedger(limits.maxBytes());
        ledger.register(metrics.group);
        budget =
                new ExporterBudget(
                        getRuntimeContext().getState(ExporterBudget.FOOTPRINT),
                        ledger,
                        limits.maxBytesPerExporter(),
                        limits.exporterIdleTimeout().toMillis());
        cache =
                new StateBackedTemplateCache(
                        getRuntimeContext().getMapState(TEMPLATES),
                        getRuntimeContext().getMapState(OPTIONS),
                        getRuntimeContext().getMapState(SCOPES),
                        getRuntimeContext().getMapState(WITHDRAWALS),
                        settings.templateLimits(),
                        limits,
                        budget,
                        metrics);
        held =
                new HeldDatagrams(
                        getRuntimeContext(),
                        budget,
                        settings.templateHold().toMillis(),
                        settings.maxHeldDatagrams(),
                        limits.maxHeldBytes(),
                        metrics);
        decoder = new DatagramDecoder(settings.optionsLimits());
        emitter =
                new FlowEmitter(
                        settings.sampling(),
                        cache,
                        new EventTimeClamp(settings.eventTime()),
                        metrics.flows,
                        metrics.eventTimeClamped,
                        metrics.eventTimeDurationCut,
                        metrics.eventTimeRejected);
        duplicates =
                new DuplicateFilter(
                        getRuntimeContext().getMapState(DuplicateFilter.STREAMS),
                        settings.dedup().maxStreams(),
                        settings.dedup().maxGaps(),
                        metrics.unverified,
                        metrics.streamsEvicted);
        deadLetters = new DeadLetters(settings.templateHold(), metrics.rejected);
        archive =
                new TemplateArchive(
                        cache,
                        settings.archiveTemplates(),
                        limits.archiveMaxRecordBytes(),
                        metrics);
        if (enrich != null) {
            enrichment = FlowEnrichment.open(enrich, getRuntimeContext().getMetricGroup());
            enriched = new EnrichedOutput(enrichment);
        }
    }

    @Override
    public void close() throws Exception {
        if (enrichment != null) {
            enrichment.close();
            enrichment = null;
        }
        super.close();
    }

    /** Decode's enrichment, or null when off. */
    FlowEnrichment enrichment() {
        return enrichment;
    }

    /** Where the flows of the element or timer being processed go. */
    private Collector<FlowRecord> flows(Context ctx, Collector<FlowRecord> out) {
        return enriched == null ? out : enriched.of(ctx, out);
    }

    DecodeMetrics metrics() {
        return metrics;
    }

    /** The instance's state total, for {@link DecodeOperator} to restore. */
    DecodeStateLedger ledger() {
        return ledger;
    }

    @Override
    public void processElement1(RawDatagram d, Context ctx, Collector<FlowRecord> out)
            throws Exception {
        metrics.datagrams.inc();
        ExporterKey key = ctx.getCurrentKey();
        TimerService timers = ctx.timerService();
        budget.begin(timers.currentProcessingTime(), d.receivedMillis());
        budget.touch();
        if (duplicates.see(d) == StreamWindow.Verdict.DUPLICATE) {
            // Seen before (a re-send): nothing of it counts again, anywhere.
            metrics.duplicates.inc();
            ctx.output(DecodeOutputs.OBSERVATIONS, DatagramObservation.duplicate(key, d));
            budget.commit(timers);
            return;
        }
        cache.bind(key, d.receivedMillis());
        DecodedDatagram r;
        try {
            r = decoder.decode(d, cache);
        } catch (DecodeException e) {
            ctx.output(
                    DecodeOutputs.OBSERVATIONS, DatagramObservation.undecodable(key, d, e.kind()));
            deadLetters.reject(ctx, d, e.kind().name(), e.getMessage());
            budget.commit(timers);
            return;
        }
        archive.write(ctx);
        InterfaceNames.learned(ctx, cache.learned(), enrichment);
        VrfNames.learned(cache.learned(), enrichment);
        metrics.templatesLearned.inc(cache.learned().size());
        List<TemplateStateKey> installed = new ArrayList<>(cache.installed());
        boolean hold = r.missesTemplates() && !settings.templateHold().isZero() && holdable(d, r);
        int emitted = 0;
        boolean rejected = false;
        if (!hold) {
            emitted = emitter.emit(d, r, flows(ctx, out));
            for (InterfaceCounters c : r.counters()) {
                ctx.output(DecodeOutputs.INTERFACE_COUNTERS, c);
            }
            rejected = deadLetters.afterDecode(ctx, d, r);
            rejected = outOfRange(ctx, d, emitted, rejected);
        }
        // Before any release below: the statistics count arrivals before what they release.
        ctx.output(
                DecodeOutputs.OBSERVATIONS,
                DatagramObservation.arrived(key, d, r, hold, emitted, rejected));
        if (hold) {
            metrics.held.inc();
            held.hold(
                    d,
                    r.version(),
                    r.observationDomainId(),
                    r.missingTemplateIds(),
                    timers,
                    (h, expired) -> release(ctx, h, out, expired));
        }
        releaseWaiting(ctx, out, installed);
        budget.commit(timers);
    }

    /**
     * Whether a datagram that misses templates can be held: it names every template it misses (the
     * codec lists a bounded number), has a scope, and fits the hold and state bounds.
     */
    private boolean holdable(RawDatagram d, DecodedDatagram r) throws Exception {
        int missing = r.missingTemplateIds().size();
        if (r.scope() != null
                && missing < DecodeResult.MAX_MISSING_TEMPLATE_IDS
                && held.canHold(HeldDatagrams.cost(d, missing))) {
            return true;
        }
        metrics.refusedHeld.inc();
        return false;
    }

    @Override
    public void processElement2(ArchivedTemplate t, Context ctx, Collector<FlowRecord> out)
            throws Exception {
        TimerService timers = ctx.timerService();
        budget.begin(timers.currentProcessingTime(), Long.MIN_VALUE);
        cache.bind(ctx.getCurrentKey(), Long.MIN_VALUE);
        if (archive.restore(t)) {
            metrics.templatesRestored.inc();
            InterfaceNames.restored(ctx, t, enrichment);
            VrfNames.restored(t, enrichment);
            releaseWaiting(ctx, out, new ArrayList<>(cache.installed()));
        }
        budget.commit(timers);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<FlowRecord> out)
            throws Exception {
        TimerService timers = ctx.timerService();
        budget.begin(timestamp, Long.MIN_VALUE);
        ExporterFootprint fp = budget.peek();
        if (fp == null) {
            return;
        }
        if (timers.currentWatermark() == Long.MAX_VALUE) {
            // This key's input has ended (BATCH mode fires its timers at the end of each key,
            // where no new timer can be set): release what is held, keep nothing.
            held.releaseAll(timers, (h, expired) -> release(ctx, h, out, expired));
            held.clear();
            cache.clear();
            duplicates.clear();
            budget.remove(timers);
            return;
        }
        if (held.fired(timestamp)) {
            held.expire(timestamp, timers, (h, expired) -> release(ctx, h, out, expired));
        }
        if (fp.idleTimer == timestamp) {
            budget.edit().idleTimer = 0;
            idle(ctx, out);
        }
        budget.commit(timers);
    }

    /**
     * The idle timer: a key idle for the timeout loses everything (held datagrams are released
     * first, the templates' ends archived); a busy key only loses the templates that expired.
     */
    private void idle(OnTimerContext ctx, Collector<FlowRecord> out) throws Exception {
        ExporterKey key = ctx.getCurrentKey();
        if (!budget.idle()) {
            ExporterFootprint fp = budget.peek();
            if ((fp.templates > 0 || fp.withdrawals > 0)
                    && fp.lastReceivedMillis != Long.MIN_VALUE) {
                cache.sweepExpired(key, fp.lastReceivedMillis);
                archive.write(ctx);
            }
            return;
        }
        held.releaseAll(ctx.timerService(), (h, expired) -> release(ctx, h, out, expired));
        held.clear();
        cache.clearIdle(key);
        duplicates.clear();
        archive.write(ctx);
        budget.remove(ctx.timerService());
        metrics.exportersExpired.inc();
    }

    /** Dead-letters a datagram whose flows were dropped for their times, unless it already was. */
    private boolean outOfRange(Context ctx, RawDatagram d, int emitted, boolean rejected) {
        int dropped = emitter.lastOutOfRange();
        if (dropped == 0 || rejected) {
            return rejected;
        }
        deadLetters.outOfRange(ctx, d, dropped, emitted);
        return true;
    }

    /** Offers the datagrams waiting for newly usable templates to {@link #release}. */
    private void releaseWaiting(
            Context ctx, Collector<FlowRecord> out, List<TemplateStateKey> installed)
            throws Exception {
        for (TemplateStateKey k : installed) {
            held.templateArrived(
                    k, ctx.timerService(), (h, expired) -> release(ctx, h, out, expired));
        }
    }

    /**
     * Re-decodes a held datagram (read-only: what it teaches does not enter state). Once none of
     * the templates it waits for is missing it is emitted; past its deadline it is emitted as far
     * as it decodes and rejected for the rest. A template it did not wait for that is missing now
     * (withdrawn or expired meanwhile) will not come back: it is released at once.
     *
     * @return null when done with, else the templates it still waits for
     */
    private int[] release(Context ctx, HeldDatagram h, Collector<FlowRecord> out, boolean expired)
            throws Exception {
        RawDatagram d = h.datagram();
        ExporterKey key = ctx.getCurrentKey();
        metrics.heldRedecoded.inc();
        cache.bindReadOnly(key, d.receivedMillis());
        DecodedDatagram r;
        try {
            r = decoder.decode(d, cache);
        } catch (DecodeException e) {
            deadLetters.reject(ctx, d, e.kind().name(), e.getMessage());
            return null;
        }
        if (r.missesTemplates() && !expired) {
            int[] still = stillWaiting(h, r.missingTemplateIds());
            if (still != null) {
                return still;
            }
        }
        int emitted = emitter.emit(d, r, flows(ctx, out));
        boolean rejected;
        if (r.missesTemplates()) {
            rejected = deadLetters.templateMissing(ctx, d, r);
        } else {
            metrics.heldDecoded.inc();
            rejected = deadLetters.notProcessed(ctx, d, r);
        }
        rejected = outOfRange(ctx, d, emitted, rejected);
        ctx.output(
                DecodeOutputs.OBSERVATIONS,
                DatagramObservation.released(key, d, r, emitted, rejected));
        return null;
    }

    /** The missing ids if all are ones {@code h} waits for, else null. */
    private static int[] stillWaiting(HeldDatagram h, List<Integer> missing) {
        int[] still = new int[missing.size()];
        for (int i = 0; i < still.length; i++) {
            int id = missing.get(i);
            if (!h.waitsFor(id)) {
                return null;
            }
            still[i] = id;
        }
        return still;
    }
}
