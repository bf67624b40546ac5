// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import java.io.Serializable;
import java.time.Duration;
import java.util.Locale;

/**
 * The window a decoded flow's time must lie in, around the time the agent received its datagram: an
 * exporter's clock (or a bug) cannot put a flow in 1970 or 2100, and one flow cannot spread over
 * more than {@code maxFlowDuration} of rollup windows.
 *
 * @param past how far before the receive time a flow may end
 * @param future how far after the receive time a flow may end (clocks a little ahead)
 * @param maxFlowDuration the longest a flow may last; an earlier start is moved to its end minus
 *     this
 * @param outOfRange what becomes of a flow whose end lies outside the window
 */
public record EventTimeSettings(
        Duration past, Duration future, Duration maxFlowDuration, OutOfRange outOfRange)
        implements Serializable {

    /** What becomes of a flow whose end lies outside the window. */
    public enum OutOfRange {
        /** Its times are moved into the window; the exporter's are kept beside them. */
        CLAMP,
        /** It is dropped and its datagram goes to the dead-letter topic (once). */
        REJECT;

        /** {@code clamp} or {@code reject}. */
        public static OutOfRange parse(String s) {
            try {
                return valueOf(s.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "event-time out-of-range '" + s + "' (expected: clamp or reject)");
            }
        }
    }

    public EventTimeSettings {
        if (past.isNegative() || future.isNegative()) {
            throw new IllegalArgumentException(
                    "event-time window -" + past + "/+" + future + " (expected: >= 0 each)");
        }
        if (maxFlowDuration.isNegative()) {
            throw new IllegalArgumentException(
                    "max flow duration " + maxFlowDuration + " (expected: >= 0)");
        }
    }

    public static EventTimeSettings defaults() {
        return new EventTimeSettings(
                JobKeys.EVENT_TIME_PAST.defaultValue(),
                JobKeys.EVENT_TIME_FUTURE.defaultValue(),
                JobKeys.EVENT_TIME_MAX_FLOW_DURATION.defaultValue(),
                JobKeys.EVENT_TIME_OUT_OF_RANGE.defaultValue());
    }
}
