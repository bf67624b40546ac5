// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import java.util.List;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/** Writes a window's top N as rows ranked 1..N: TALKER becomes TOP_TALKER, and so on. */
public final class EmitRanking
        extends ProcessWindowFunction<List<RollupRow>, RollupRow, RollupKey, TimeWindow> {

    private static final long serialVersionUID = 1L;

    @Override
    public void process(
            RollupKey k, Context ctx, Iterable<List<RollupRow>> tops, Collector<RollupRow> out) {
        int kind =
                k.kind() == RollupKind.TALKER.code()
                        ? RollupKind.TOP_TALKER.code()
                        : RollupKind.TOP_CONVERSATION.code();
        int rank = 0;
        for (RollupRow r : tops.iterator().next()) {
            rank++;
            out.collect(r.ranked(kind, ctx.window().getStart(), rank));
        }
    }
}
