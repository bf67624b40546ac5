// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.triggers.TriggerResult;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

/**
 * Fires a window when the watermark passes its end, like Flink's {@code EventTimeTrigger}, but
 * fires it again for late elements (within the allowed lateness) once, at the next watermark,
 * instead of once per element. A late re-firing of {@link AddressSummaries} sends every row of a
 * shard's top list; with the event-time trigger each of them fired the ranking again, writing N
 * rankings (N times top-N rows to ClickHouse, all but the last replaced) where one suffices.
 *
 * <p>It needs no state of its own: a late element registers the window's end timer again, which
 * lies behind the watermark, so the timer service fires it when the watermark next advances; timers
 * are unique per key, window and time, so any number of late elements make one firing. The timers
 * are the event-time trigger's, so savepoints taken with either restore with the other.
 */
public final class WatermarkBatchedTrigger extends Trigger<Object, TimeWindow> {

    private static final long serialVersionUID = 1L;

    private static final WatermarkBatchedTrigger INSTANCE = new WatermarkBatchedTrigger();

    private WatermarkBatchedTrigger() {}

    public static WatermarkBatchedTrigger create() {
        return INSTANCE;
    }

    @Override
    public TriggerResult onElement(
            Object element, long timestamp, TimeWindow window, TriggerContext ctx) {
        ctx.registerEventTimeTimer(window.maxTimestamp());
        return TriggerResult.CONTINUE;
    }

    @Override
    public TriggerResult onEventTime(long time, TimeWindow window, TriggerContext ctx) {
        return time == window.maxTimestamp() ? TriggerResult.FIRE : TriggerResult.CONTINUE;
    }

    @Override
    public TriggerResult onProcessingTime(long time, TimeWindow window, TriggerContext ctx) {
        return TriggerResult.CONTINUE;
    }

    @Override
    public void clear(TimeWindow window, TriggerContext ctx) {
        ctx.deleteEventTimeTimer(window.maxTimestamp());
    }

    @Override
    public String toString() {
        return "WatermarkBatchedTrigger()";
    }
}
