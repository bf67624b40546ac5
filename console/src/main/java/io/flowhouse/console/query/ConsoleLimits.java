// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.query;

import java.time.Duration;
import java.util.List;

/**
 * What the planner may do, from the console's keys.
 *
 * @param database the job's database
 * @param resolutions the rollup tables' resolutions, finest first (the job's {@code
 *     flowhouse.rollup.resolutions})
 * @param autoRawUpTo auto resolution: the raw table for ranges up to this
 * @param autoFinestUpTo auto resolution: the finest rollup up to this, the next beyond
 * @param rawMaxRange longest range the raw table is read for (explicit raw, or fields no rollup
 *     holds)
 * @param maxRange longest range of any view
 * @param maxPoints most time buckets of a chart
 * @param maxTopN most rows of a top-N
 * @param jobTopN the job's top-N per window ({@code flowhouse.rollup.top-n}), for error bounds
 * @param sankeyLinks most key combinations a Sankey draws
 */
public record ConsoleLimits(
        String database,
        List<Duration> resolutions,
        Duration autoRawUpTo,
        Duration autoFinestUpTo,
        Duration rawMaxRange,
        Duration maxRange,
        int maxPoints,
        int maxTopN,
        int jobTopN,
        int sankeyLinks) {

    public ConsoleLimits {
        resolutions = List.copyOf(resolutions);
    }

    public static ConsoleLimits defaults() {
        return new ConsoleLimits(
                "flowhouse",
                List.of(Duration.ofMinutes(1), Duration.ofHours(1)),
                Duration.ofMinutes(10),
                Duration.ofDays(2),
                Duration.ofHours(6),
                Duration.ofDays(30),
                300,
                50,
                20,
                60);
    }
}
