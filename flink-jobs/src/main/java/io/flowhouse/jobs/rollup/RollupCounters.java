// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import org.apache.flink.api.common.typeinfo.TypeInfo;

/** The accumulator of a rollup bucket: three sums, updated in place. */
@TypeInfo(RollupCountersTypeInfo.Factory.class)
public final class RollupCounters {

    public long bytes;
    public long packets;
    public long flows;

    public RollupCounters() {}
}
