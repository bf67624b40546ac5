// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import java.time.Duration;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.state.AggregatingStateDescriptor;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.streaming.runtime.operators.windowing.WindowOperator;
import org.apache.flink.streaming.runtime.operators.windowing.functions.InternalSingleValueProcessWindowFunction;
import org.apache.flink.util.OutputTag;

/**
 * The bucket windows: Flink's window operator as {@code keyBy(bucket).window(tumbling)
 * .allowedLateness(..).aggregate(SumCounters, EmitRollup)} builds it (same state name and
 * serializers, so savepoints restore either way), except that it registers no cleanup timer per
 * element: {@link BucketWindowTrigger} registers it once, when the window fires, so each bucket has
 * one timer at a time instead of two. Firing, lateness (elements after end + allowed lateness go to
 * the late output), late re-firings and the cleanup of the window's state are the operator's own.
 */
final class BucketWindowOperator
        extends WindowOperator<RollupKey, RollupRow, RollupCounters, RollupRow, TimeWindow> {

    private static final long serialVersionUID = 1L;

    /**
     * @param size window size
     * @param allowedLateness allowed lateness
     * @param late where elements later than that go, or null (dropped, counted by the operator)
     * @param emit the window function
     */
    static BucketWindowOperator of(
            Duration size, Duration allowedLateness, OutputTag<RollupRow> late, EmitRollup emit) {
        TumblingEventTimeWindows windows = TumblingEventTimeWindows.of(size);
        long lateness = allowedLateness.toMillis();
        return new BucketWindowOperator(
                windows,
                // The builder's state: name, aggregate function and accumulator serializer.
                new AggregatingStateDescriptor<>(
                        "window-contents",
                        new SumCounters<RollupRow>(),
                        RollupCountersTypeInfo.INSTANCE.createSerializer(
                                new ExecutionConfig().getSerializerConfig())),
                emit,
                lateness,
                late);
    }

    private BucketWindowOperator(
            TumblingEventTimeWindows windows,
            AggregatingStateDescriptor<RollupRow, RollupCounters, RollupCounters> state,
            EmitRollup emit,
            long allowedLateness,
            OutputTag<RollupRow> late) {
        super(
                windows,
                windows.getWindowSerializer(new ExecutionConfig()),
                new RollupKey.OfRow(),
                RollupKeyTypeInfo.Serializer.INSTANCE,
                state,
                new InternalSingleValueProcessWindowFunction<>(emit),
                new BucketWindowTrigger(allowedLateness),
                allowedLateness,
                late);
    }

    @Override
    protected void registerCleanupTimer(TimeWindow window) {
        // BucketWindowTrigger registers it when the window fires.
    }
}
