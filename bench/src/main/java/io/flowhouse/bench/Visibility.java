// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.util.Locale;

/**
 * When a step's rows became visible, for the stages whose output is read by a query (e2e): a step
 * counts as sustained only when every row it sent was visible within {@code maxLagSeconds} of the
 * end of its load. A pipeline that buffers the step and catches up during the drain delivers every
 * row, so it is clean by the counts, but it did not keep up with the offered rate.
 *
 * @param p50Seconds median latency datagram -> visible row ({@link VisibilityLatency})
 * @param p99Seconds 99th percentile of that latency
 * @param catchUpSeconds from the end of the step's load to the moment its last row became visible
 * @param maxLagSeconds the bound on {@code catchUpSeconds} ({@code --max-lag})
 */
record Visibility(
        double p50Seconds, double p99Seconds, double catchUpSeconds, double maxLagSeconds) {

    /** Every row was visible within the bound after the load ended. */
    boolean withinLag() {
        return catchUpSeconds <= maxLagSeconds;
    }

    String describe() {
        return String.format(
                Locale.ROOT,
                "lag p50 %.1f s, p99 %.1f s; last row %.1f s after the load (bound %.1f s)",
                p50Seconds,
                p99Seconds,
                catchUpSeconds,
                maxLagSeconds);
    }
}
