// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
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
 * counts (a higher version), once however many late pieces came. The window's summary is dropped
 * when the watermark passes its end plus the allowed lateness. Rows carry their window in {@code
 * windowStart} (their timestamp is the firing time), so the ranking windows by that field ({@link
 * RowWindows}).
 *
 * <p>State: the summaries of the open windows are worked on in memory (bounded: capacity x open
 * windows x keys of this subtask) and written to keyed state (one map entry per window) at every
 * checkpoint, only those that changed, as copies; they are read back lazily per key after a
 * restore. So a piece costs a hash lookup and a summary update on every state backend, where a
 * state access per piece would (de)serialize a whole summary on RocksDB.
 */
public final class AddressSummaries extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<RollupRow, Void>, Triggerable<RollupKey, VoidNamespace> {

    private static final long serialVersionUID = 1L;

    private final long[] resolutions;
    private final long lateness;
    private final int topN;
    private final int capacity;
    private final List<OutputTag<RollupRow>> outputs;
    private final OutputTag<RollupRow> late;

    private transient List<MapState<Long, TopSummary>> windows;
    private transient InternalTimerService<VoidNamespace> timers;

    /** The open windows of one key, and whether they changed since the last checkpoint. */
    private static final class KeyWindows {
        /** Per resolution: window start -> summary. */
        final List<Map<Long, TopSummary>> windows;

        boolean changed;

        KeyWindows(List<Map<Long, TopSummary>> windows) {
            this.windows = windows;
        }
    }

    /** The working copy of the open windows, per key. */
    private transient Map<RollupKey, KeyWindows> open;

    /** Keys whose summaries changed since the last checkpoint (each once). */
    private transient List<RollupKey> changed;

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
    public void open() throws Exception {
        super.open();
        windows = new ArrayList<>();
        for (long r : resolutions) {
            windows.add(
                    getKeyedStateStore()
                            .getMapState(
                                    new MapStateDescriptor<>(
                                            "top-summaries-" + r + "ms",
                                            LongSerializer.INSTANCE,
                                            TopSummarySerializer.INSTANCE)));
        }
        timers =
                getInternalTimerService("talker-summaries", VoidNamespaceSerializer.INSTANCE, this);
        open = new HashMap<>();
        changed = new ArrayList<>();
    }

    /**
     * The open windows of the current key, read from state on first use after a restore, marked as
     * changed since the last checkpoint.
     */
    private KeyWindows current() throws Exception {
        RollupKey key = (RollupKey) getCurrentKey();
        KeyWindows k = open.get(key);
        if (k == null) {
            List<Map<Long, TopSummary>> w = new ArrayList<>(resolutions.length);
            for (MapState<Long, TopSummary> state : windows) {
                Map<Long, TopSummary> m = new HashMap<>();
                for (Map.Entry<Long, TopSummary> e : state.entries()) {
                    m.put(e.getKey(), e.getValue().copy());
                }
                w.add(m);
            }
            k = new KeyWindows(w);
            open.put(key, k);
        }
        if (!k.changed) {
            k.changed = true;
            changed.add(key);
        }
        return k;
    }

    @Override
    public void processElement(StreamRecord<RollupRow> record) throws Exception {
        RollupRow piece = record.getValue();
        long watermark = timers.currentWatermark();
        long start = piece.windowStart();
        if (start + resolutions[0] - 1 + lateness <= watermark) {
            output.collect(late, record);
            return;
        }
        List<Map<Long, TopSummary>> mine = current().windows;
        IpAddress s = piece.srcAddr();
        IpAddress d = piece.dstAddr();
        for (int i = 0; i < resolutions.length; i++) {
            long size = resolutions[i];
            long w = Math.floorDiv(start, size) * size;
            long last = w + size - 1;
            Map<Long, TopSummary> m = mine.get(i);
            TopSummary summary = m.get(w);
            if (summary == null) {
                summary = new TopSummary(capacity);
                m.put(w, summary);
                timers.registerEventTimeTimer(VoidNamespace.INSTANCE, last + lateness);
                if (last > watermark) {
                    timers.registerEventTimeTimer(VoidNamespace.INSTANCE, last);
                }
            }
            summary.add(
                    s.hi(), s.lo(), d.hi(), d.lo(), piece.bytes(), piece.packets(), piece.flows());
            if (last <= watermark) {
                // A late piece for a window that already fired: fire again at the next watermark.
                timers.registerEventTimeTimer(VoidNamespace.INSTANCE, watermark + 1);
            }
        }
    }

    @Override
    public void onEventTime(InternalTimer<RollupKey, VoidNamespace> timer) throws Exception {
        long time = timer.getTimestamp();
        RollupKey key = timer.getKey();
        List<Map<Long, TopSummary>> mine = current().windows;
        boolean empty = true;
        for (int i = 0; i < resolutions.length; i++) {
            long size = resolutions[i];
            Iterator<Map.Entry<Long, TopSummary>> it = mine.get(i).entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Long, TopSummary> e = it.next();
                long w = e.getKey();
                long last = w + size - 1;
                TopSummary summary = e.getValue();
                if (last <= time && summary.dirty()) {
                    emit(key, w, summary, outputs.get(i), time);
                    summary.markEmitted();
                }
                if (last + lateness <= time) {
                    it.remove();
                    windows.get(i).remove(w);
                }
            }
            empty &= mine.get(i).isEmpty();
        }
        if (empty) {
            open.remove(key);
        }
    }

    @Override
    public void onProcessingTime(InternalTimer<RollupKey, VoidNamespace> timer) {
        // No processing-time timers.
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        for (RollupKey key : changed) {
            KeyWindows k = open.get(key);
            if (k == null || !k.changed) {
                // Every window of the key closed (removed from state already), or listed twice.
                continue;
            }
            k.changed = false;
            setCurrentKey(key);
            for (int i = 0; i < resolutions.length; i++) {
                MapState<Long, TopSummary> state = windows.get(i);
                for (Map.Entry<Long, TopSummary> e : k.windows.get(i).entrySet()) {
                    // A copy: the working copy changes on while the snapshot is written.
                    state.put(e.getKey(), e.getValue().copy());
                }
            }
        }
        changed.clear();
        super.snapshotState(context);
    }

    /** Summaries held in memory (open windows of the keys seen since the start or restore). */
    int openSummaries() {
        int n = 0;
        for (KeyWindows k : open.values()) {
            for (Map<Long, TopSummary> m : k.windows) {
                n += m.size();
            }
        }
        return n;
    }

    private void emit(
            RollupKey key, long windowStart, TopSummary s, OutputTag<RollupRow> tag, long time) {
        IpAddress none = IpAddress.UNSPECIFIED;
        for (int e : s.top(topN)) {
            IpAddress src = address(s.srcHi(e), s.srcLo(e));
            IpAddress dst = address(s.dstHi(e), s.dstLo(e));
            long b = s.bytes(e);
            long p = s.packets(e);
            long f = s.flows(e);
            output.collect(
                    tag,
                    new StreamRecord<>(
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
                                    s.error(e)),
                            time));
        }
    }

    private static IpAddress address(long hi, long lo) {
        return hi == 0 && lo == 0 ? null : new IpAddress(hi, lo);
    }
}
