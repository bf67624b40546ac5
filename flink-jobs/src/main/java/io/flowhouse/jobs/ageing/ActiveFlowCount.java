// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;

/**
 * The memory bound's count of the flows a parallel instance caches, kept in operator state: a
 * restore at the same parallelism resumes it exactly, so the flows cut near the bound after a
 * failure are the ones the run before it cut (otherwise the count restarts at zero, new flows are
 * admitted that the first run exported at once, and their replayed rows get other ids). After a
 * rescale each instance gets some of the old counts (Flink's even split): the bound is approximate
 * until the restored flows end. A savepoint taken before this state existed restores zero, as
 * before.
 */
final class ActiveFlowCount {

    private static final ListStateDescriptor<Long> DESCRIPTOR =
            new ListStateDescriptor<>("active-flows", Types.LONG);

    private ListState<Long> state;
    private long restored;

    /** Registers the state; reads the restored count (0 on a fresh start). */
    void initialize(FunctionInitializationContext ctx) throws Exception {
        state = ctx.getOperatorStateStore().getListState(DESCRIPTOR);
        restored = 0;
        if (ctx.isRestored()) {
            for (Long n : state.get()) {
                restored += n;
            }
        }
    }

    /** The count to start from. */
    long restored() {
        return restored;
    }

    /** Stores the count at a checkpoint. */
    void snapshot(long activeFlows) throws Exception {
        if (state != null) {
            state.update(List.of(activeFlows));
        }
    }
}
