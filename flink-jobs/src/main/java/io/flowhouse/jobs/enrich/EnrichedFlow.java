// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.enrich;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.enrich.FlowContext;

/**
 * A decoded flow and its context, side by side: {@link FlowRecord} stays what the exporter sent
 * (its 40-field constructors, the codec and the reprocessing do not change), and a sink that stores
 * context reads it from here.
 */
public record EnrichedFlow(FlowRecord flow, FlowContext context) {}
