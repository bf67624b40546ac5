// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.sinks.clickhouse.rollup.RollupRow;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * Turns a window's counters into a row: adds only the window start and the key; the counting was
 * done incrementally by {@link SumCounters}. A late firing emits the complete new counts.
 */
public final class EmitRollup
        extends ProcessWindowFunction<RollupCounters, RollupRow, RollupKey, TimeWindow> {

    private static final long serialVersionUID = 1L;

    @Override
    public void process(
            RollupKey k, Context ctx, Iterable<RollupCounters> sums, Collector<RollupRow> out) {
        RollupCounters c = sums.iterator().next();
        long b = c.bytes;
        long p = c.packets;
        long f = c.flows;
        out.collect(
                new RollupRow(
                        k.kind(),
                        ctx.window().getStart(),
                        k.exporter(),
                        k.iface(),
                        k.direction(),
                        k.protocol(),
                        k.port(),
                        k.srcAs(),
                        k.dstAs(),
                        0,
                        k.srcAddr(),
                        k.dstAddr(),
                        b,
                        p,
                        f,
                        b + p + f));
    }
}
