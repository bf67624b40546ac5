// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.jobs.config.DecodeSettings;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.ExporterFootprint;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
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
 */
public final class DecodeOperator
        extends KeyedCoProcessOperator<ExporterKey, RawDatagram, ArchivedTemplate, FlowRecord> {

    private static final long serialVersionUID = 1L;

    /** Index of the template archive among the inputs (the second). */
    private static final int ARCHIVE_INPUT = 1;

    public DecodeOperator(DecodeSettings settings) {
        super(new DecodeRawFlowFunction(settings));
    }

    @Override
    public void open() throws Exception {
        super.open();
        super.processWatermarkStatus(WatermarkStatus.IDLE, ARCHIVE_INPUT);
        DecodeStateLedger ledger = ((DecodeRawFlowFunction) getUserFunction()).ledger();
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
    }

    @Override
    public void processWatermark2(Watermark mark) {
        // The archive's (final) watermark says nothing about the datagrams' receive times.
    }

    @Override
    protected void processWatermarkStatus(WatermarkStatus status, int input) throws Exception {
        if (input != ARCHIVE_INPUT) {
            super.processWatermarkStatus(status, input);
        }
        // The archive input stays idle (see the class comment).
    }
}
