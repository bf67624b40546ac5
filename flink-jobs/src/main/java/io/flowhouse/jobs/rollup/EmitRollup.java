// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import java.io.IOException;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Turns a window's counters into a row: adds only the window start and the key; the counting was
 * done incrementally by {@link SumCounters}. A late firing emits the complete new counts.
 *
 * <p>With a delta tag, every firing also sends what changed since this bucket's previous firing to
 * that side output, for a coarser resolution to add up ({@link RollupTopology}): the first firing
 * sends the full counts, a late re-firing only the difference. The counts already sent are kept in
 * per-window state (three longs per bucket), cleared with the window. A re-firing that changed
 * nothing sends no delta.
 */
public final class EmitRollup
        extends ProcessWindowFunction<RollupCounters, RollupRow, RollupKey, TimeWindow> {

    private static final long serialVersionUID = 1L;

    static final ValueStateDescriptor<RollupCounters> EMITTED =
            new ValueStateDescriptor<>("rollup-emitted", RollupCountersTypeInfo.INSTANCE);

    private final OutputTag<RollupRow> deltas;

    /** Full rows only. */
    public EmitRollup() {
        this(null);
    }

    /**
     * @param deltas where the per-firing differences go, or null for none
     */
    public EmitRollup(OutputTag<RollupRow> deltas) {
        this.deltas = deltas;
    }

    @Override
    public void process(
            RollupKey k, Context ctx, Iterable<RollupCounters> sums, Collector<RollupRow> out)
            throws Exception {
        RollupCounters c = sums.iterator().next();
        long b = c.bytes;
        long p = c.packets;
        long f = c.flows;
        long start = ctx.window().getStart();
        out.collect(row(k, start, b, p, f, b + p + f));
        if (deltas == null) {
            return;
        }
        RollupCounters d = delta(ctx.windowState().getState(EMITTED), b, p, f);
        if (d != null) {
            ctx.output(deltas, row(k, start, d.bytes, d.packets, d.flows, 0));
        }
    }

    /**
     * What a firing adds to a coarser resolution: the counts minus those sent at the bucket's
     * previous firing (all of them at the first), or null if it changed nothing; records the counts
     * as sent. Shared by the plain and the context windows.
     *
     * @param emitted the window's counts already sent
     */
    static RollupCounters delta(ValueState<RollupCounters> emitted, long b, long p, long f)
            throws IOException {
        RollupCounters sent = emitted.value();
        if (sent == null) {
            sent = new RollupCounters();
        } else if (sent.bytes == b && sent.packets == p && sent.flows == f) {
            return null;
        }
        RollupCounters d = new RollupCounters();
        d.bytes = b - sent.bytes;
        d.packets = p - sent.packets;
        d.flows = f - sent.flows;
        // A copy: the accumulator object keeps changing in the heap backend.
        sent.bytes = b;
        sent.packets = p;
        sent.flows = f;
        emitted.update(sent);
        return d;
    }

    @Override
    public void clear(Context ctx) {
        if (deltas != null) {
            ctx.windowState().getState(EMITTED).clear();
        }
    }

    private static RollupRow row(RollupKey k, long start, long b, long p, long f, long version) {
        return new RollupRow(
                k.kind(),
                start,
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
                version);
    }
}
