// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import java.util.Collection;
import java.util.List;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

/**
 * Tumbling event-time windows assigned by a row's own {@code windowStart} rather than by its
 * timestamp: the rows of {@link AddressSummaries} are stamped with their firing time, which for a
 * late re-firing lies after their window. Allowed lateness works as for {@code
 * TumblingEventTimeWindows}; the trigger fires at the window end and, for late rows, once at the
 * next watermark ({@link WatermarkBatchedTrigger}), so a late re-firing upstream makes one new
 * ranking, not one per row.
 */
public final class RowWindows extends WindowAssigner<Object, TimeWindow> {

    private static final long serialVersionUID = 1L;

    private final long size;

    public RowWindows(long size) {
        if (size <= 0) {
            throw new IllegalArgumentException("window size " + size + " ms (expected: > 0)");
        }
        this.size = size;
    }

    @Override
    public Collection<TimeWindow> assignWindows(
            Object element, long timestamp, WindowAssignerContext ctx) {
        long start = Math.floorDiv(((RollupRow) element).windowStart(), size) * size;
        return List.of(new TimeWindow(start, start + size));
    }

    @Override
    public Trigger<Object, TimeWindow> getDefaultTrigger() {
        return WatermarkBatchedTrigger.create();
    }

    @Override
    public TypeSerializer<TimeWindow> getWindowSerializer(ExecutionConfig config) {
        return new TimeWindow.Serializer();
    }

    @Override
    public boolean isEventTime() {
        return true;
    }

    @Override
    public String toString() {
        return "RowWindows(" + size + ")";
    }
}
