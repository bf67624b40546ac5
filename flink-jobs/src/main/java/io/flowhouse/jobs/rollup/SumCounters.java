// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import org.apache.flink.api.common.functions.AggregateFunction;

/**
 * Adds contributions into a bucket's counters: the whole window state is three longs per key. For
 * the plain ({@link RollupRow}) and the context ({@link ContextRow}) rollups.
 */
public final class SumCounters<T extends Counted>
        implements AggregateFunction<T, RollupCounters, RollupCounters> {

    private static final long serialVersionUID = 1L;

    @Override
    public RollupCounters createAccumulator() {
        return new RollupCounters();
    }

    @Override
    public RollupCounters add(T r, RollupCounters acc) {
        acc.bytes += r.bytes();
        acc.packets += r.packets();
        acc.flows += r.flows();
        return acc;
    }

    @Override
    public RollupCounters getResult(RollupCounters acc) {
        return acc;
    }

    @Override
    public RollupCounters merge(RollupCounters a, RollupCounters b) {
        a.bytes += b.bytes;
        a.packets += b.packets;
        a.flows += b.flows;
        return a;
    }
}
