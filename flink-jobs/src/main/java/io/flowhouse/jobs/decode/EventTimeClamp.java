// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.jobs.config.EventTimeSettings;
import io.flowhouse.jobs.config.EventTimeSettings.OutOfRange;

/**
 * Keeps a flow's times inside the window of {@link EventTimeSettings} around its receive time: the
 * end within {@code [received - past, received + future]} (a moved end takes the start along, so
 * the flow keeps its length), the start within {@code [end - maxFlowDuration, end]}. A flow whose
 * times are moved keeps the exporter's in {@link FlowRecord#exportedFlowStartMillis()} / {@link
 * FlowRecord#exportedFlowEndMillis()}; under {@link OutOfRange#REJECT} a flow whose end is outside
 * is dropped instead. Only a moved flow is copied.
 */
final class EventTimeClamp {

    private final long pastMillis;
    private final long futureMillis;
    private final long maxDurationMillis;
    private final boolean reject;

    EventTimeClamp(EventTimeSettings s) {
        this.pastMillis = s.past().toMillis();
        this.futureMillis = s.future().toMillis();
        this.maxDurationMillis = s.maxFlowDuration().toMillis();
        this.reject = s.outOfRange() == OutOfRange.REJECT;
    }

    /** The flow with its times in the window, itself when they are; null when it is rejected. */
    FlowRecord apply(FlowRecord f) {
        long received = f.timeReceivedMillis();
        long end = f.flowEndMillis();
        long start = f.flowStartMillis();
        long newEnd = Math.min(Math.max(end, received - pastMillis), received + futureMillis);
        if (newEnd != end && reject) {
            return null;
        }
        // A moved end moves the start with it: the flow keeps its length, up to the longest.
        long shifted = start + (newEnd - end);
        long newStart = Math.min(Math.max(shifted, newEnd - maxDurationMillis), newEnd);
        if (newEnd == end && newStart == start) {
            return f;
        }
        return f.toBuilder()
                .flowStartMillis(newStart)
                .flowEndMillis(newEnd)
                .exportedTimes(start, end)
                .build();
    }

    /**
     * Whether {@link #apply} cut the flow at the longest flow duration: a moved end keeps the
     * length, so only that cut makes it shorter. The cut bounds the rollup pieces of one flow.
     */
    static boolean durationCut(FlowRecord exported, FlowRecord applied) {
        return applied.flowEndMillis() - applied.flowStartMillis()
                < exported.flowEndMillis() - exported.flowStartMillis();
    }
}
