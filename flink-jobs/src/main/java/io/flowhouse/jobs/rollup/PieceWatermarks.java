// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;

/**
 * Bounded out-of-orderness that also emits on events: whenever the newest element moves the
 * watermark by at least {@link #STEP_MILLIS} of event time, the watermark goes out at once rather
 * than at the next periodic tick. So which windows fire, and which pieces are late, depends only on
 * the order of the input, not on processing speed (and costs at most one watermark per second of
 * event time per split or subtask). The raw source uses it per Kafka partition on receive times.
 */
public final class PieceWatermarks<T> implements WatermarkGenerator<T> {

    /** Least event-time advance that emits a watermark on an event. */
    static final long STEP_MILLIS = 1_000L;

    private final long delayMillis;
    private long maxTimestamp;
    private long emitted = Long.MIN_VALUE;

    public PieceWatermarks(long delayMillis) {
        this.delayMillis = delayMillis;
        this.maxTimestamp = Long.MIN_VALUE + delayMillis + 1;
    }

    @Override
    public void onEvent(T event, long timestamp, WatermarkOutput out) {
        if (timestamp > maxTimestamp) {
            maxTimestamp = timestamp;
            long w = maxTimestamp - delayMillis - 1;
            if (emitted == Long.MIN_VALUE || w - emitted >= STEP_MILLIS) {
                emitted = w;
                out.emitWatermark(new Watermark(w));
            }
        }
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput out) {
        long w = maxTimestamp - delayMillis - 1;
        if (w > emitted) {
            emitted = w;
            out.emitWatermark(new Watermark(w));
        }
    }
}
