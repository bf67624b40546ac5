// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import java.io.Serializable;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Event time of flow pieces: each piece's timestamp is the start of its window, and the watermark
 * is the flows' own (receive time, per Kafka partition, from the source; packet time for packet
 * flows) held back by {@code delayMillis}, so a flow that ends up to that long before its datagram
 * arrived is on time. Unlike a timestamp assigner, which makes its own watermark from what it sees,
 * this passes on the watermark and idleness of its input: a flow's time (an exporter's clock) moves
 * no watermark, and a quiet partition does not hold the others back.
 */
final class PieceEventTime<T> extends AbstractStreamOperator<T>
        implements OneInputStreamOperator<T, T> {

    private static final long serialVersionUID = 1L;

    /** The start of a piece's window, epoch ms. */
    @FunctionalInterface
    interface WindowStart<T> extends Serializable {
        long of(T piece);
    }

    private final WindowStart<T> windowStart;

    private final long delayMillis;
    private long emitted = Long.MIN_VALUE;

    /** For rollup rows. */
    static PieceEventTime<RollupRow> ofRows(long delayMillis) {
        return new PieceEventTime<>(delayMillis, RollupRow::windowStart);
    }

    PieceEventTime(long delayMillis, WindowStart<T> windowStart) {
        this.windowStart = windowStart;
        if (delayMillis < 0) {
            throw new IllegalArgumentException("delay " + delayMillis + " ms (expected: >= 0)");
        }
        this.delayMillis = delayMillis;
    }

    /** The pieces' watermark for the flows' watermark {@code t}. */
    static long held(long t, long delayMillis) {
        if (t == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return t < Long.MIN_VALUE + delayMillis ? Long.MIN_VALUE : t - delayMillis;
    }

    @Override
    public void processElement(StreamRecord<T> element) {
        output.collect(element.replace(element.getValue(), windowStart.of(element.getValue())));
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        long w = held(mark.getTimestamp(), delayMillis);
        if (w > emitted) {
            emitted = w;
            super.processWatermark(new Watermark(w));
        }
    }
}
