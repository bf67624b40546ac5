// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.enrich;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.sinks.FlowInput;

/**
 * A decoded flow and its context, side by side: {@link FlowRecord} stays what the exporter sent
 * (its 40-field constructors, the codec and the reprocessing do not change), and a sink that stores
 * context reads it from here.
 */
public record EnrichedFlow(FlowRecord flow, FlowContext context) {

    /** The view of the sinks that carry context: the flow and its context. */
    public static final FlowInput<EnrichedFlow> FLOW_INPUT = new Input();

    private static final class Input implements FlowInput<EnrichedFlow> {
        private static final long serialVersionUID = 1L;

        @Override
        public FlowRecord flow(EnrichedFlow e) {
            return e.flow();
        }

        @Override
        public FlowContext context(EnrichedFlow e) {
            return e.context();
        }
    }
}
