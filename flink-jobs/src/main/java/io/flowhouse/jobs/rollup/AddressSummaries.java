// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.sinks.clickhouse.rollup.RollupRow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The talker and conversation sums behind the top-N rows, in bounded state: per key (exporter, kind
 * and a shard of the address space, {@link RollupKey.OfShard}) and window, one {@link TopSummary}
 * of at most {@code capacity} addresses, instead of one bucket per distinct address (which grew
 * with the address cardinality: hundreds of MB an hour at 60 K flows/s).
 *
 * <p>One operator serves a resolution computed from the flows (index 0, the pieces' own windows)
 * and every resolution derived from it (each a whole multiple of it): a piece goes into the window
 * of each. Lateness follows the finest resolution exactly as its bucket windows do, so top rows and
 * bucket rows take the same pieces: a piece whose finest window ended more than the allowed
 * lateness before the watermark goes to the late side output (counted there), and into no
 * resolution.
 *
 * <p>Firing: when the watermark passes a window's end, its top {@code n} entries go to that
 * resolution's output tag as TALKER/CONVERSATION rows (with {@code bytesError}) for the ranking
 * across shards. A late piece re-fires the window at the next watermark with the complete new
 * counts (a higher version), once however many late pieces came. The window's state is dropped when
 * the watermark passes its end plus the allowed lateness. Rows carry their window in {@code
 * windowStart} (their timestamp is the firing time), so the ranking windows by that field ({@link
 * RowWindows}).
 */
public final class AddressSummaries extends KeyedProcessFunction<RollupKey, RollupRow, Void> {

    private static final long serialVersionUID = 1L;

    private final long[] resolutions;
    private final long lateness;
    private final int topN;
    private final int capacity;
    private final List<OutputTag<RollupRow>> outputs;
    private final OutputTag<RollupRow> late;

    private transient List<MapState<Long, TopSummary>> windows;

    /**
     * @param resolutions window sizes in ms, the finest first, each a multiple of the first
     * @param lateness allowed lateness, ms
     * @param topN rows per shard and window
     * @param capacity addresses per summary
     * @param outputs per resolution, where its rows go
     * @param late pieces later than the allowed lateness
     */
    public AddressSummaries(
            long[] resolutions,
            long lateness,
            int topN,
            int capacity,
            List<OutputTag<RollupRow>> outputs,
            OutputTag<RollupRow> late) {
        if (resolutions.length == 0 || resolutions.length != outputs.size()) {
            throw new IllegalArgumentException("one output per resolution");
        }
        for (long r : resolutions) {
            if (r <= 0 || r % resolutions[0] != 0) {
                throw new IllegalArgumentException(
                        "resolution "
                                + r
                                + " ms is not a multiple of the finest, "
                                + resolutions[0]
                                + " ms");
            }
        }
        if (capacity < topN) {
            throw new IllegalArgumentException(
                    "top capacity per shard " + capacity + " below top N " + topN);
        }
        this.resolutions = resolutions.clone();
        this.lateness = lateness;
        this.topN = topN;
        this.capacity = capacity;
        this.outputs = List.copyOf(outputs);
        this.late = late;
    }

    @Override
    public void open(OpenContext ctx) {
        windows = new ArrayList<>();
        for (long r : resolutions) {
            windows.add(
                    getRuntimeContext()
                            .getMapState(
                                    new MapStateDescriptor<>(
                                            "top-summaries-" + r + "ms",
                                            LongSerializer.INSTANCE,
                                            TopSummarySerializer.INSTANCE)));
        }
    }

    @Override
    public void processElement(RollupRow piece, Context ctx, Collector<Void> out) throws Exception {
        long watermark = ctx.timerService().currentWatermark();
        long start = piece.windowStart();
        if (start + resolutions[0] - 1 + lateness <= watermark) {
            ctx.output(late, piece);
            return;
        }
        IpAddress s = piece.srcAddr();
        IpAddress d = piece.dstAddr();
        for (int i = 0; i < resolutions.length; i++) {
            long size = resolutions[i];
            long w = Math.floorDiv(start, size) * size;
            long last = w + size - 1;
            MapState<Long, TopSummary> state = windows.get(i);
            TopSummary summary = state.get(w);
            if (summary == null) {
                summary = new TopSummary(capacity);
                ctx.timerService().registerEventTimeTimer(last + lateness);
                if (last > watermark) {
                    ctx.timerService().registerEventTimeTimer(last);
                }
            }
            summary.add(
                    s.hi(), s.lo(), d.hi(), d.lo(), piece.bytes(), piece.packets(), piece.flows());
            state.put(w, summary);
            if (last <= watermark) {
                // A late piece for a window that already fired: fire again at the next watermark.
                ctx.timerService().registerEventTimeTimer(watermark + 1);
            }
        }
    }

    @Override
    public void onTimer(long time, OnTimerContext ctx, Collector<Void> out) throws Exception {
        RollupKey key = ctx.getCurrentKey();
        for (int i = 0; i < resolutions.length; i++) {
            long size = resolutions[i];
            MapState<Long, TopSummary> state = windows.get(i);
            List<Long> done = new ArrayList<>();
            for (Map.Entry<Long, TopSummary> e : state.entries()) {
                long w = e.getKey();
                long last = w + size - 1;
                TopSummary summary = e.getValue();
                if (last <= time && summary.dirty()) {
                    emit(key, w, summary, outputs.get(i), ctx);
                    summary.markEmitted();
                    e.setValue(summary);
                }
                if (last + lateness <= time) {
                    done.add(w);
                }
            }
            for (Long w : done) {
                state.remove(w);
            }
        }
    }

    private void emit(
            RollupKey key,
            long windowStart,
            TopSummary s,
            OutputTag<RollupRow> tag,
            OnTimerContext ctx) {
        IpAddress none = IpAddress.UNSPECIFIED;
        for (int e : s.top(topN)) {
            IpAddress src = address(s.srcHi(e), s.srcLo(e));
            IpAddress dst = address(s.dstHi(e), s.dstLo(e));
            long b = s.bytes(e);
            long p = s.packets(e);
            long f = s.flows(e);
            ctx.output(
                    tag,
                    new RollupRow(
                            key.kind(),
                            windowStart,
                            key.exporter(),
                            0,
                            0,
                            0,
                            0,
                            0,
                            0,
                            0,
                            src == null ? none : src,
                            dst == null ? none : dst,
                            b,
                            p,
                            f,
                            b + p + f,
                            s.error(e)));
        }
    }

    private static IpAddress address(long hi, long lo) {
        return hi == 0 && lo == 0 ? null : new IpAddress(hi, lo);
    }
}
