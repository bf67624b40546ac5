// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * Local pre-aggregation of flow pieces in the upstream subtask, before the {@code keyBy} to the
 * rollup windows (the mini-batch idea of Flink's Table runtime): pieces of the same bucket and
 * window are summed in a hash map and go downstream as one row, so the shuffle, the serializer and
 * the window state see one row per bucket per flush instead of one per flow.
 *
 * <p>The buffer is emptied before every watermark is passed on, before every checkpoint barrier
 * ({@link #prepareSnapshotPreBarrier}, so the operator has no state and checkpoints stay exact),
 * when the input goes idle, at the end of a bounded input, and when it holds {@code maxBuckets}
 * buckets. So every piece still reaches the window after the same watermarks as without the
 * combiner, and since the window's watermark is never ahead of this subtask's, a piece that was not
 * late here is not late there. Pieces already behind the lateness bound by this subtask's watermark
 * pass through one by one, so the window counts late pieces exactly as before.
 */
public final class PieceCombiner extends AbstractStreamOperator<RollupRow>
        implements OneInputStreamOperator<RollupRow, RollupRow>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    /** Default bound of the buffer per subtask and resolution. */
    public static final int DEFAULT_MAX_BUCKETS = 50_000;

    /** A bucket of one window: every key field of a piece and its window. */
    private record Bucket(
            long windowStart,
            int kind,
            IpAddress exporter,
            long iface,
            int direction,
            int protocol,
            int port,
            long srcAs,
            long dstAs,
            IpAddress srcAddr,
            IpAddress dstAddr) {

        static Bucket of(RollupRow r) {
            return new Bucket(
                    r.windowStart(),
                    r.kind(),
                    r.exporter(),
                    r.iface(),
                    r.direction(),
                    r.protocol(),
                    r.port(),
                    r.srcAs(),
                    r.dstAs(),
                    r.srcAddr(),
                    r.dstAddr());
        }
    }

    /** The first piece of a bucket (its key fields) and the running sums. */
    private static final class Sums {
        final RollupRow first;
        long bytes;
        long packets;
        long flows;
        int pieces = 1;

        Sums(RollupRow first) {
            this.first = first;
            this.bytes = first.bytes();
            this.packets = first.packets();
            this.flows = first.flows();
        }

        RollupRow row() {
            if (pieces == 1) {
                return first;
            }
            RollupRow f = first;
            return new RollupRow(
                    f.kind(),
                    f.windowStart(),
                    f.exporter(),
                    f.iface(),
                    f.direction(),
                    f.protocol(),
                    f.port(),
                    f.srcAs(),
                    f.dstAs(),
                    f.rank(),
                    f.srcAddr(),
                    f.dstAddr(),
                    bytes,
                    packets,
                    flows,
                    f.version());
        }
    }

    private final long resolutionMillis;
    private final long allowedLatenessMillis;
    private final int maxBuckets;

    private transient Map<Bucket, Sums> buffer;
    private transient StreamRecord<RollupRow> reuse;
    private transient long watermark;
    private transient Counter piecesIn;
    private transient Counter rowsOut;

    /**
     * @param resolutionMillis the window length
     * @param allowedLatenessMillis the windows' allowed lateness
     * @param maxBuckets buckets held before the buffer is emptied early
     */
    public PieceCombiner(long resolutionMillis, long allowedLatenessMillis, int maxBuckets) {
        if (resolutionMillis <= 0 || allowedLatenessMillis < 0 || maxBuckets < 1) {
            throw new IllegalArgumentException(
                    "resolution "
                            + resolutionMillis
                            + " ms, lateness "
                            + allowedLatenessMillis
                            + " ms, buckets "
                            + maxBuckets
                            + " (expected: > 0, >= 0, >= 1)");
        }
        this.resolutionMillis = resolutionMillis;
        this.allowedLatenessMillis = allowedLatenessMillis;
        this.maxBuckets = maxBuckets;
    }

    @Override
    public void open() throws Exception {
        super.open();
        buffer = new HashMap<>(Math.min(maxBuckets, 1 << 16) * 2);
        reuse = new StreamRecord<>(null);
        watermark = Long.MIN_VALUE;
        var g = getMetricGroup().addGroup("flowhouse");
        piecesIn = g.counter("rollup_combiner_pieces_in_total");
        rowsOut = g.counter("rollup_combiner_rows_out_total");
    }

    @Override
    public void processElement(StreamRecord<RollupRow> element) {
        RollupRow r = element.getValue();
        piecesIn.inc();
        if (lateHere(r.windowStart())) {
            rowsOut.inc();
            output.collect(element);
            return;
        }
        Sums s = buffer.get(Bucket.of(r));
        if (s == null) {
            buffer.put(Bucket.of(r), new Sums(r));
            if (buffer.size() >= maxBuckets) {
                flush();
            }
        } else {
            s.bytes += r.bytes();
            s.packets += r.packets();
            s.flows += r.flows();
            s.pieces++;
        }
    }

    /** Whether the window of a piece is past its lateness by this subtask's watermark. */
    private boolean lateHere(long windowStart) {
        long maxTimestamp = windowStart + resolutionMillis - 1;
        long cleanup = maxTimestamp + allowedLatenessMillis;
        if (cleanup < maxTimestamp) {
            cleanup = Long.MAX_VALUE;
        }
        return cleanup <= watermark;
    }

    /** Sends every buffered bucket downstream, stamped with its window start. */
    private void flush() {
        if (buffer.isEmpty()) {
            return;
        }
        for (Sums s : buffer.values()) {
            RollupRow row = s.row();
            output.collect(reuse.replace(row, row.windowStart()));
        }
        rowsOut.inc(buffer.size());
        buffer.clear();
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flush();
        watermark = Math.max(watermark, mark.getTimestamp());
        super.processWatermark(mark);
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus status) throws Exception {
        if (status.isIdle()) {
            flush();
        }
        super.processWatermarkStatus(status);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        flush();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void endInput() {
        flush();
    }

    @Override
    public void finish() throws Exception {
        flush();
        super.finish();
    }
}
