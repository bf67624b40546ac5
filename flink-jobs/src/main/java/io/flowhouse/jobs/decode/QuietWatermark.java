// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

/**
 * The decode watermark of a quiet stream. Event time is the agents' receive time; when no datagram
 * has reached the decode step for {@code afterMillis} of processing time, the receive clock is
 * carried on by the elapsed wall-clock time: the watermark becomes the raw input's last watermark
 * plus the time since it last moved, minus {@code afterMillis}. Only a difference of the local
 * clock is used, so an agent whose clock is off from the TaskManager's moves nothing, and a replay
 * of an old topic moves on from the replayed receive times, never to today. A datagram that arrives
 * more than {@code afterMillis} (plus the raw source's out-of-orderness) after it was received can
 * then be behind the watermark: late, as any late datagram.
 *
 * <p>Pure: the operator gives it the processing time. The watermark it hands out never goes back;
 * the input's own watermark goes on only once it passes what was handed out.
 */
final class QuietWatermark {

    /** Least advance that is sent on while quiet, as the raw source steps on events. */
    static final long STEP_MILLIS = 1_000L;

    private final long afterMillis;
    private long inputWatermark = Long.MIN_VALUE;
    private long inputMovedAt;
    private long lastActivity;
    private long emitted = Long.MIN_VALUE;

    QuietWatermark(long afterMillis) {
        if (afterMillis <= 0) {
            throw new IllegalArgumentException(
                    "quiet after " + afterMillis + " ms (expected: > 0)");
        }
        this.afterMillis = afterMillis;
    }

    /** A datagram arrived: the stream is not quiet. */
    void datagram(long now) {
        lastActivity = now;
    }

    /**
     * The raw input's watermark.
     *
     * @return whether it goes on downstream (it is above every watermark sent so far)
     */
    boolean input(long watermark, long now) {
        if (watermark > inputWatermark) {
            inputWatermark = watermark;
            inputMovedAt = now;
            lastActivity = now;
        }
        if (watermark > emitted) {
            emitted = watermark;
            return true;
        }
        return false;
    }

    /**
     * The watermark a previous run of this operator had seen (from its checkpoint): a stream that
     * stays quiet after a restore still moves on from it, counting from {@code now}.
     */
    void restored(long watermark, long now) {
        if (watermark > inputWatermark && watermark != Long.MAX_VALUE) {
            inputWatermark = watermark;
            inputMovedAt = now;
            lastActivity = now;
        }
    }

    /** Whether a quiet stream would move on (a receive time has been seen). */
    boolean knowsTime() {
        return inputWatermark > 0 && inputWatermark != Long.MAX_VALUE;
    }

    /** The raw input's latest watermark, for the checkpoint. */
    long inputWatermark() {
        return inputWatermark;
    }

    /**
     * The watermark to send at {@code now}, or {@link Long#MIN_VALUE} when there is none: the
     * stream is not quiet, no receive time is known yet, or it moved less than a step.
     */
    long advance(long now) {
        if (!knowsTime() || now - lastActivity < afterMillis) {
            return Long.MIN_VALUE;
        }
        long w = inputWatermark + (now - inputMovedAt) - afterMillis;
        if (w > emitted && (emitted == Long.MIN_VALUE || w - emitted >= STEP_MILLIS)) {
            emitted = w;
            return w;
        }
        return Long.MIN_VALUE;
    }
}
