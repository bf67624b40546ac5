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

/**
 * The decode step's operator: {@link DecodeRawFlowFunction} in a keyed co-process operator that,
 * when it opens, adds up the footprints of every exporter key it was given (after a restore or a
 * rescale: whichever key groups it now owns), so the instance's total state bound starts from what
 * its state really holds. O(keys) once per start.
 */
public final class DecodeOperator
        extends KeyedCoProcessOperator<ExporterKey, RawDatagram, ArchivedTemplate, FlowRecord> {

    private static final long serialVersionUID = 1L;

    public DecodeOperator(DecodeSettings settings) {
        super(new DecodeRawFlowFunction(settings));
    }

    @Override
    public void open() throws Exception {
        super.open();
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
}
