// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.enrich.FlowContext;
import java.io.Serializable;

/**
 * What the decoded-flows topic takes from one element of its stream: the flow, and its context when
 * the job enriches (the job's own pair type stays the job's; the sinks never import it).
 */
public interface FlowInput<T> extends Serializable {

    FlowRecord flow(T element);

    /** The flow's context, or null: the flow is written alone. */
    FlowContext context(T element);

    /** Decoded flows, without context. */
    FlowInput<FlowRecord> FLOWS =
            new FlowInput<>() {
                private static final long serialVersionUID = 1L;

                @Override
                public FlowRecord flow(FlowRecord element) {
                    return element;
                }

                @Override
                public FlowContext context(FlowRecord element) {
                    return null;
                }
            };
}
