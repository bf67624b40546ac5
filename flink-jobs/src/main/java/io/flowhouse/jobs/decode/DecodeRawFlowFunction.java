// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.jobs.config.DecodeSettings;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.HeldDatagram;
import io.flowhouse.jobs.model.ScopeKey;
import io.flowhouse.jobs.model.ScopeKeyTypeInfo;
import io.flowhouse.jobs.model.StoredTemplate;
import io.flowhouse.jobs.model.TemplateStateKey;
import io.flowhouse.jobs.model.TemplateStateKeyTypeInfo;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Decodes raw export datagrams keyed by the exporter that owns their template space ({@link
 * ExporterKeys}) into flow records, with templates and options data (sampling, time base) in
 * checkpointed keyed state ({@link StateBackedTemplateCache}).
 *
 * <ul>
 *   <li>A stamped datagram seen before (a re-send) is dropped first, before anything counts it
 *       ({@link DuplicateFilter}); only the statistics count it, as a duplicate.
 *   <li>Input 1: datagrams from {@code flows.raw}. Input 2: templates restored from the compacted
 *       templates topic ({@link TemplateArchive}), so that a replay from any offset decodes data
 *       whose template came earlier.
 *   <li>Data whose template is unknown is held ({@link HeldDatagrams}) until the template comes,
 *       from the stream or the archive, or until {@link DecodeSettings#templateHold()} has passed
 *       (processing time); then what decodes is emitted and the datagram goes to {@link
 *       DecodeOutputs#REJECTED} with reason {@code TEMPLATE_MISSING} ({@link DeadLetters}). A held
 *       datagram emits nothing until it is released, so no record is emitted twice.
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

    private final DecodeSettings settings;

    private transient StateBackedTemplateCache cache;
    private transient HeldDatagrams held;
    private transient DatagramDecoder decoder;
    private transient FlowEmitter emitter;
    private transient DeadLetters deadLetters;
    private transient TemplateArchive archive;
    private transient DecodeMetrics metrics;
    private transient DuplicateFilter duplicates;

    public DecodeRawFlowFunction(DecodeSettings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext openContext) {
        cache =
                new StateBackedTemplateCache(
                        getRuntimeContext().getMapState(TEMPLATES),
                        getRuntimeContext().getMapState(OPTIONS),
                        settings.templateLimits());
        metrics = new DecodeMetrics(getRuntimeContext().getMetricGroup());
        held =
                new HeldDatagrams(
                        getRuntimeContext(),
                        settings.templateHold().toMillis(),
                        settings.maxHeldDatagrams());
        decoder = new DatagramDecoder(settings.optionsLimits());
        emitter =
                new FlowEmitter(
                        settings.sampling(),
                        cache,
                        new EventTimeClamp(settings.eventTime()),
                        metrics.flows,
                        metrics.eventTimeClamped,
                        metrics.eventTimeRejected);
        duplicates =
                new DuplicateFilter(
                        getRuntimeContext().getMapState(DuplicateFilter.STREAMS),
                        settings.dedup().maxStreams(),
                        settings.dedup().maxGaps(),
                        metrics.unverified,
                        metrics.streamsEvicted);
        deadLetters = new DeadLetters(settings.templateHold(), metrics.rejected);
        archive = new TemplateArchive(cache, settings.archiveTemplates());
    }

    @Override
    public void processElement1(RawDatagram d, Context ctx, Collector<FlowRecord> out)
            throws Exception {
        metrics.datagrams.inc();
        ExporterKey key = ctx.getCurrentKey();
        if (duplicates.see(d) == StreamWindow.Verdict.DUPLICATE) {
            // Seen before (a re-send): nothing of it counts again, anywhere.
            metrics.duplicates.inc();
            ctx.output(DecodeOutputs.OBSERVATIONS, DatagramObservation.duplicate(key, d));
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
            return;
        }
        int learned = archive.archiveLearned(ctx, key, d.receivedMillis());
        metrics.templatesLearned.inc(learned);
        boolean hold = r.missesTemplates() && !settings.templateHold().isZero();
        int emitted = 0;
        boolean rejected = false;
        if (!hold) {
            emitted = emitter.emit(d, r, out);
            rejected = deadLetters.afterDecode(ctx, d, r);
            rejected = outOfRange(ctx, d, emitted, rejected);
        }
        // Before any release below: the statistics count arrivals before what they release.
        ctx.output(
                DecodeOutputs.OBSERVATIONS,
                DatagramObservation.arrived(key, d, r, hold, emitted, rejected));
        if (hold) {
            metrics.held.inc();
            held.hold(d, ctx.timerService(), (h, expired) -> release(ctx, h, out, expired));
        }
        if (learned > 0) {
            releaseHeld(ctx, out, Long.MIN_VALUE);
        }
    }

    @Override
    public void processElement2(ArchivedTemplate t, Context ctx, Collector<FlowRecord> out)
            throws Exception {
        if (archive.restore(t)) {
            metrics.templatesRestored.inc();
            releaseHeld(ctx, out, Long.MIN_VALUE);
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<FlowRecord> out)
            throws Exception {
        if (held.fired(timestamp)) {
            releaseHeld(ctx, out, timestamp);
        }
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

    private void releaseHeld(Context ctx, Collector<FlowRecord> out, long now) throws Exception {
        held.releaseAll(now, ctx.timerService(), (h, expired) -> release(ctx, h, out, expired));
    }

    /**
     * Re-decodes a held datagram (read-only: what it teaches does not enter state). Once it decodes
     * fully it is emitted; past its deadline it is emitted as far as it decodes and rejected for
     * the rest.
     *
     * @return true if the datagram is done with
     */
    private boolean release(Context ctx, HeldDatagram h, Collector<FlowRecord> out, boolean expired)
            throws Exception {
        RawDatagram d = h.datagram();
        ExporterKey key = ctx.getCurrentKey();
        cache.bindReadOnly(key, d.receivedMillis());
        DecodedDatagram r;
        try {
            r = decoder.decode(d, cache);
        } catch (DecodeException e) {
            deadLetters.reject(ctx, d, e.kind().name(), e.getMessage());
            return true;
        }
        if (r.missesTemplates() && !expired) {
            return false;
        }
        int emitted = emitter.emit(d, r, out);
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
        return true;
    }
}
