// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.jobs.enrich.FlowEnrichment;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Decode's flow output with enrichment on: each flow goes to the main output as decoded and, with
 * its context, to {@link DecodeOutputs#ENRICHED}. Both are chained to decode: the context needs no
 * second input (the options-data names are decode's own), so no flow is serialized for it.
 */
final class EnrichedOutput implements Collector<FlowRecord> {

    private final FlowEnrichment enrichment;
    private KeyedCoProcessFunction<?, ?, ?, ?>.Context ctx;
    private Collector<FlowRecord> out;

    EnrichedOutput(FlowEnrichment enrichment) {
        this.enrichment = enrichment;
    }

    /** This output for the element or timer being processed. */
    Collector<FlowRecord> of(
            KeyedCoProcessFunction<?, ?, ?, ?>.Context ctx, Collector<FlowRecord> out) {
        this.ctx = ctx;
        this.out = out;
        return this;
    }

    @Override
    public void collect(FlowRecord f) {
        out.collect(f);
        ctx.output(DecodeOutputs.ENRICHED, enrichment.enrich(f));
    }

    @Override
    public void close() {}
}
