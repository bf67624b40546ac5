// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.enrich;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.sinks.kafka.FlowsTopicInput;

/**
 * A decoded flow and its context, side by side: {@link FlowRecord} stays what the exporter sent
 * (its 40-field constructors, the codec and the reprocessing do not change), and a sink that stores
 * context reads it from here.
 */
public record EnrichedFlow(FlowRecord flow, FlowContext context) {

    /** The decoded-flows topic's view of it: the flow and its context. */
    public static final FlowsTopicInput<EnrichedFlow> TOPIC_INPUT = new TopicInput();

    private static final class TopicInput implements FlowsTopicInput<EnrichedFlow> {
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
