// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * Local pre-aggregation of rollup pieces in the upstream subtask, before the {@code keyBy} to the
 * rollup windows (the mini-batch idea of Flink's Table runtime): pieces of the same bucket and
 * window are summed in a {@link BucketTable} and go downstream as one row, so the shuffle, the
 * serializer and the window state see one row per bucket per flush instead of one per flow.
 *
 * <p>The buffer is emptied before every watermark is passed on, before every checkpoint barrier
 * ({@link #prepareSnapshotPreBarrier}, so the operator has no state and checkpoints stay exact),
 * when the input goes idle, at the end of a bounded input, and when it holds {@code maxBuckets}
 * buckets. So every piece still reaches the window after the same watermarks as without the
 * combiner, and since the window's watermark is never ahead of this subtask's, a piece that was not
 * late here is not late there. Pieces already behind the lateness bound by this subtask's watermark
 * pass through one by one, so the window counts late pieces exactly as before.
 */
public abstract class BucketCombiner<T extends Counted & Bucketed> extends AbstractStreamOperator<T>
        implements OneInputStreamOperator<T, T>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    /** Default bound of the buffer per subtask and resolution. */
    public static final int DEFAULT_MAX_BUCKETS = 50_000;

    private final long resolutionMillis;
    private final long allowedLatenessMillis;
    private final int maxBuckets;
    private final String metricPrefix;

    private transient BucketTable<T> buffer;
    private transient StreamRecord<T> reuse;
    private transient long watermark;
    private transient Counter piecesIn;
    private transient Counter rowsOut;

    /**
     * @param resolutionMillis the window length
     * @param allowedLatenessMillis the windows' allowed lateness
     * @param maxBuckets buckets held before the buffer is emptied early
     * @param metricPrefix the counters' names: prefix + {@code _pieces_in_total}, {@code
     *     _rows_out_total}
     */
    protected BucketCombiner(
            long resolutionMillis,
            long allowedLatenessMillis,
            int maxBuckets,
            String metricPrefix) {
        if (resolutionMillis <= 0
                || allowedLatenessMillis < 0
                || maxBuckets < 1
                || maxBuckets > BucketTable.MAX_BUCKETS) {
            throw new IllegalArgumentException(
                    "resolution "
                            + resolutionMillis
                            + " ms, lateness "
                            + allowedLatenessMillis
                            + " ms, buckets "
                            + maxBuckets
                            + " (expected: > 0, >= 0, 1 to "
                            + BucketTable.MAX_BUCKETS
                            + ")");
        }
        this.resolutionMillis = resolutionMillis;
        this.allowedLatenessMillis = allowedLatenessMillis;
        this.maxBuckets = maxBuckets;
        this.metricPrefix = metricPrefix;
    }

    /** What makes a piece's bucket: its key fields and its window (equal for pieces summed). */
    abstract BucketTable.Identity<T> bucket();

    /** The first piece of a bucket with the bucket's sums as its counters. */
    protected abstract T summed(T first, long bytes, long packets, long flows);

    @Override
    public void open() throws Exception {
        super.open();
        buffer = new BucketTable<>(bucket(), maxBuckets);
        reuse = new StreamRecord<>(null);
        watermark = Long.MIN_VALUE;
        var g = getMetricGroup().addGroup("flowhouse");
        piecesIn = g.counter(metricPrefix + "_pieces_in_total");
        rowsOut = g.counter(metricPrefix + "_rows_out_total");
    }

    @Override
    public void processElement(StreamRecord<T> element) {
        T r = element.getValue();
        piecesIn.inc();
        if (lateHere(r.windowStart())) {
            rowsOut.inc();
            output.collect(element);
            return;
        }
        if (buffer.add(r) && buffer.full()) {
            flush();
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
        rowsOut.inc(buffer.size());
        buffer.drain(this::emit);
    }

    private void emit(T first, int pieces, long bytes, long packets, long flows) {
        T row = pieces == 1 ? first : summed(first, bytes, packets, flows);
        output.collect(reuse.replace(row, row.windowStart()));
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
