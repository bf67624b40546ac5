// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.enrich;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.enrich.EnrichSettings;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * The enrich stage over flows that do not come from decode (sFlow samples aged into flows, tests):
 * each flow with its {@link io.flowhouse.enrich.FlowContext} ({@link FlowEnrichment}). One input,
 * so it chains to what feeds it. Decoded flows are enriched by decode itself ({@link
 * io.flowhouse.jobs.decode.DecodeOutputs#ENRICHED}), with the interface names of its options data;
 * this stage has none (sFlow sends none).
 */
public final class EnrichFlows extends RichMapFunction<FlowRecord, EnrichedFlow> {

    private static final long serialVersionUID = 1L;

    private final EnrichSettings settings;
    private transient FlowEnrichment enrichment;

    public EnrichFlows(EnrichSettings settings) {
        this.settings = settings;
    }

    /** The enrich stage over {@code flows}. */
    public static SingleOutputStreamOperator<EnrichedFlow> attach(
            DataStream<FlowRecord> flows, EnrichSettings settings) {
        return flows.map(new EnrichFlows(settings), TypeInformation.of(EnrichedFlow.class));
    }

    @Override
    public void open(OpenContext context) {
        enrichment = FlowEnrichment.open(settings, getRuntimeContext().getMetricGroup());
    }

    @Override
    public void close() {
        if (enrichment != null) {
            enrichment.close();
            enrichment = null;
        }
    }

    @Override
    public EnrichedFlow map(FlowRecord f) {
        return enrichment.enrich(f);
    }
}
