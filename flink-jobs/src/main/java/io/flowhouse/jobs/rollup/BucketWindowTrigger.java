// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.triggers.TriggerResult;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

/**
 * Fires like Flink's {@code EventTimeTrigger} (when the watermark passes the window's end, and
 * again for every element within the allowed lateness), but keeps one timer per key and window at a
 * time, not two: the end timer until the window fires, then the cleanup timer (end + allowed
 * lateness), which it registers itself, in place of {@link BucketWindowOperator}. The bucket
 * windows hold one key per bucket, so their timers were as many as their buckets twice over, each
 * hashed on every element and written into every checkpoint.
 *
 * <p>The timers are the ones the standard operator registers (end and cleanup time, same key and
 * window), so savepoints of the standard operator restore: a restored end timer fires and registers
 * the cleanup timer, which timers being unique per key, window and time makes at most one. Not the
 * other way round: restored into the plain operator, a bucket whose window had not ended keeps its
 * state unless a piece comes after the restore (that operator registers the cleanup per element).
 */
final class BucketWindowTrigger extends Trigger<Object, TimeWindow> {

    private static final long serialVersionUID = 1L;

    private final long allowedLateness;

    /**
     * @param allowedLateness the window operator's, in milliseconds
     */
    BucketWindowTrigger(long allowedLateness) {
        if (allowedLateness < 0) {
            throw new IllegalArgumentException(
                    "allowed lateness " + allowedLateness + " (expected: >= 0)");
        }
        this.allowedLateness = allowedLateness;
    }

    /** The window operator's cleanup time: end + allowed lateness, or none on overflow. */
    long cleanupTime(TimeWindow w) {
        long t = w.maxTimestamp() + allowedLateness;
        return t >= w.maxTimestamp() ? t : Long.MAX_VALUE;
    }

    private void registerCleanup(TimeWindow w, TriggerContext ctx) {
        long t = cleanupTime(w);
        if (t != Long.MAX_VALUE) {
            ctx.registerEventTimeTimer(t);
        }
    }

    @Override
    public TriggerResult onElement(
            Object element, long timestamp, TimeWindow window, TriggerContext ctx) {
        if (window.maxTimestamp() <= ctx.getCurrentWatermark()) {
            // Late within the allowed lateness: the window may have had no element before, so no
            // end timer fired to register the cleanup.
            registerCleanup(window, ctx);
            return TriggerResult.FIRE;
        }
        ctx.registerEventTimeTimer(window.maxTimestamp());
        return TriggerResult.CONTINUE;
    }

    @Override
    public TriggerResult onEventTime(long time, TimeWindow window, TriggerContext ctx) {
        if (time != window.maxTimestamp()) {
            return TriggerResult.CONTINUE;
        }
        registerCleanup(window, ctx);
        return TriggerResult.FIRE;
    }

    @Override
    public TriggerResult onProcessingTime(long time, TimeWindow window, TriggerContext ctx) {
        return TriggerResult.CONTINUE;
    }

    @Override
    public void clear(TimeWindow window, TriggerContext ctx) {
        ctx.deleteEventTimeTimer(window.maxTimestamp());
        long t = cleanupTime(window);
        if (t != Long.MAX_VALUE && t != window.maxTimestamp()) {
            ctx.deleteEventTimeTimer(t);
        }
    }

    @Override
    public String toString() {
        return "BucketWindowTrigger(" + allowedLateness + " ms)";
    }
}
