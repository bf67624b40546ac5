// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.enrich.EnrichSettings;
import io.flowhouse.jobs.config.DecodeSettings;
import io.flowhouse.jobs.enrich.FlowEnrichment;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.ExporterFootprint;
import io.flowhouse.jobs.model.ScopeKey;
import java.time.Duration;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * The decode step's operator: {@link DecodeRawFlowFunction} in a keyed co-process operator that,
 * when it opens, adds up the footprints of every exporter key it was given (after a restore or a
 * rescale: whichever key groups it now owns), so the instance's total state bound starts from what
 * its state really holds. O(keys) once per start.
 *
 * <p>Event time comes from the datagrams alone. The template archive (second input) is read once at
 * the start and then finishes with the final watermark; Flink leaves idle inputs out of an
 * operator's watermark, so once every raw partition went idle, that final watermark became the
 * decode step's, every rollup window and statistics minute closed, and whatever came after was
 * dropped as too late. The archive input is therefore idle from the start and its watermarks and
 * statuses are ignored: a quiet raw input makes the operator idle, and the next datagram moves the
 * watermark on from where it was.
 *
 * <p>When every raw partition is quiet, the watermark stands still and the last rollup windows and
 * statistics minute would wait for the next datagram. With {@code quietAfter} set, a stream quiet
 * that long moves on with the wall clock ({@link QuietWatermark}), checked once a second at most;
 * the operator then stays active (an idle raw input is not passed on once a receive time is known),
 * and the raw input's own watermark goes on again once it passes what the wall clock reached. The
 * raw input's last watermark is kept in the checkpoint, so a stream that stays quiet after a
 * restore moves on too. Off (pure event time) for BATCH and bounded runs.
 *
 * <p>When the raw input ends (a drained stop, or the end of a bounded run), event time ends here
 * too: the final watermark goes downstream, so every open window closes (the hour of the traffic
 * included) before the writers flush. Flink's source task sends that final watermark itself, but
 * drops it while its output is idle (FLINK-40499), which a quiet raw topic always is after {@code
 * decode.idleness}: a drained stop then ended the job without the windows that only it closes.
 */
public final class DecodeOperator
        extends KeyedCoProcessOperator<ExporterKey, RawDatagram, ArchivedTemplate, FlowRecord>
        implements BoundedMultiInput {

    private static final long serialVersionUID = 1L;

    /** Index of the template archive among the inputs (the second). */
    private static final int ARCHIVE_INPUT = 1;

    /** The raw input's id in {@link #endInput} (1-based). */
    private static final int RAW_INPUT_ID = 1;

    /** The raw input's last watermark (union: every subtask sees the same input watermark). */
    private static final ListStateDescriptor<Long> QUIET_WATERMARK =
            new ListStateDescriptor<>("quiet-watermark", Types.LONG);

    private final long quietAfterMillis;
    private transient QuietWatermark quiet;
    private transient ListState<Long> quietState;
    private transient Counter wallClockAdvances;
    private transient boolean outputIdle;

    /** The highest watermark sent downstream. */
    private transient long forwarded;

    public DecodeOperator(DecodeSettings settings) {
        this(settings, Duration.ZERO);
    }

    /**
     * @param quietAfter how long no datagram may arrive before the watermark moves on with the wall
     *     clock; zero keeps pure event time
     */
    public DecodeOperator(DecodeSettings settings, Duration quietAfter) {
        this(settings, quietAfter, null);
    }

    /**
     * @param enrich with it, every flow also goes to {@link DecodeOutputs#ENRICHED} with its
     *     context (null: none)
     */
    public DecodeOperator(DecodeSettings settings, Duration quietAfter, EnrichSettings enrich) {
        super(new DecodeRawFlowFunction(settings, enrich));
        this.quietAfterMillis = quietAfter.toMillis();
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        if (quietAfterMillis <= 0) {
            return;
        }
        quiet = new QuietWatermark(quietAfterMillis);
        quietState = context.getOperatorStateStore().getUnionListState(QUIET_WATERMARK);
        long now = getProcessingTimeService().getCurrentProcessingTime();
        for (Long w : quietState.get()) {
            quiet.restored(w, now);
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        if (quiet != null) {
            quietState.clear();
            if (quiet.knowsTime()) {
                quietState.add(quiet.inputWatermark());
            }
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        forwarded = Long.MIN_VALUE;
        super.processWatermarkStatus(WatermarkStatus.IDLE, ARCHIVE_INPUT);
        DecodeRawFlowFunction function = (DecodeRawFlowFunction) getUserFunction();
        DecodeStateLedger ledger = function.ledger();
        this.<ExporterKey>getKeyedStateBackend()
                .applyToAllKeys(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        ExporterBudget.FOOTPRINT,
                        (ExporterKey key, ValueState<ExporterFootprint> state) -> {
                            ExporterFootprint fp = state.value();
                            if (fp != null) {
                                ledger.restored(fp.bytes);
                            }
                        });
        FlowEnrichment enrichment = function.enrichment();
        if (enrichment != null) {
            // The options-data names come back from the keys' own options data in state.
            this.<ExporterKey>getKeyedStateBackend()
                    .applyToAllKeys(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            DecodeRawFlowFunction.OPTIONS,
                            (ExporterKey key, MapState<ScopeKey, byte[]> state) -> {
                                for (byte[] wire : state.values()) {
                                    InterfaceNames.restoredState(key.address(), wire, enrichment);
                                    VrfNames.restoredState(key.address(), wire, enrichment);
                                }
                            });
        }
        if (quiet != null) {
            wallClockAdvances =
                    getMetricGroup()
                            .addGroup("flowhouse")
                            .addGroup("decode")
                            .counter("watermark_wall_clock_advances_total");
            long period = Math.max(10, Math.min(QuietWatermark.STEP_MILLIS, quietAfterMillis / 4));
            getProcessingTimeService().scheduleWithFixedDelay(t -> quietTick(), period, period);
        }
    }

    @Override
    public void processElement1(StreamRecord<RawDatagram> element) throws Exception {
        if (quiet != null) {
            quiet.datagram(getProcessingTimeService().getCurrentProcessingTime());
        }
        super.processElement1(element);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        // The raw input's watermark (the archive's never gets here): goes on only above what the
        // wall clock already moved it to, so the event time of this operator never goes back.
        if (quiet == null
                || quiet.input(
                        mark.getTimestamp(),
                        getProcessingTimeService().getCurrentProcessingTime())) {
            forward(mark.getTimestamp());
        }
    }

    @Override
    public void endInput(int inputId) throws Exception {
        if (inputId == RAW_INPUT_ID && forwarded != Long.MAX_VALUE) {
            forward(Long.MAX_VALUE);
        }
    }

    private void forward(long watermark) throws Exception {
        if (outputIdle) {
            // An idle output drops watermarks.
            output.emitWatermarkStatus(WatermarkStatus.ACTIVE);
            outputIdle = false;
        }
        forwarded = Math.max(forwarded, watermark);
        super.processWatermark(new Watermark(watermark));
    }

    private void quietTick() throws Exception {
        long w = quiet.advance(getProcessingTimeService().getCurrentProcessingTime());
        if (w == Long.MIN_VALUE) {
            return;
        }
        wallClockAdvances.inc();
        forward(w);
    }

    @Override
    public void processWatermark2(Watermark mark) {
        // The archive's (final) watermark says nothing about the datagrams' receive times.
    }

    @Override
    protected void processWatermarkStatus(WatermarkStatus status, int input) throws Exception {
        if (input == ARCHIVE_INPUT) {
            return; // the archive input stays idle (see the class comment)
        }
        if (quiet != null && status.isIdle() && quiet.knowsTime()) {
            return; // a quiet stream's watermark moves on with the wall clock instead
        }
        super.processWatermarkStatus(status, input);
        outputIdle = status.isIdle();
    }
}
