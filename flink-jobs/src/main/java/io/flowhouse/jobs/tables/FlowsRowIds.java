// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.kafka.FlowRowIds;

/**
 * The ids {@link FlowRowEncoder} writes to {@code flows}, for every other output that carries them
 * (the decoded-flows topic): one place, so the topic and the table never disagree.
 */
public final class FlowsRowIds implements FlowRowIds {

    private static final long serialVersionUID = 1L;

    public static final FlowsRowIds INSTANCE = new FlowsRowIds();

    private FlowsRowIds() {}

    @Override
    public long low(FlowRecord r) {
        return RowIds.of(r);
    }

    @Override
    public long high(FlowRecord r) {
        return RowIds.high(r);
    }
}
