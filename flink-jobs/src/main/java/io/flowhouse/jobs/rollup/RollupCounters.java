// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

/** The accumulator of a rollup bucket: three sums, updated in place. */
public final class RollupCounters {

    public long bytes;
    public long packets;
    public long flows;

    public RollupCounters() {}
}
