// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.FlowRecord;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rollup splitter ({@link FlowSplitter}) as an operator that knows the watermark: a flow's
 * pieces for windows that are already closed for good go to a side output instead of down the
 * pipeline, and are counted here ({@code flowhouse_rollup_late_pieces_total}, {@code
 * flowhouse_rollup_late_bytes_total}, as the windows count theirs). A flow with random times (a
 * broken or hostile exporter) thus costs no shuffle, bucket budget or window lookup for its late
 * pieces; only nobody reads the side output in the job, the tests do.
 *
 * <p>Exact: "closed" is the windows' own rule (window end - 1 + allowed lateness at or before their
 * watermark), on the watermark the windows get from this subtask: its input's, held back by the
 * out-of-orderness as {@link PieceEventTime} does. Pieces are emitted in the same order against the
 * same watermarks, the combiner flushes before each watermark, and a window's watermark (the least
 * of its input channels) is never ahead of this subtask's, so a piece the windows would have taken
 * is never dropped here. With one subtask (and wherever this subtask's watermark is the least) the
 * pieces dropped here are exactly those the windows would have dropped; with several, a piece
 * closed by this subtask's watermark may still have found its window open while another subtask's
 * watermark (from the same sources, after decode's shuffle) was in flight.
 *
 * <p>The same holds across the rollups' inputs ({@link RollupInput}): each input has its own split,
 * in its producer's chain, which judges by that input's watermark, while the windows take the least
 * of all inputs'. With one input (and one subtask) the pieces dropped here are exactly the
 * windows'; with the packet flows or the aged sFlow samples beside the decoded flows, a decoded
 * flow's piece closed by decode's watermark is dropped (and counted) even if a packet flow's
 * lagging watermark still held its window open: a flow's lateness depends on its own input, not on
 * another's pace.
 */
final class SplitOpenWindows extends AbstractStreamOperator<RollupRow>
        implements OneInputStreamOperator<FlowRecord, RollupRow> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(SplitOpenWindows.class);

    private final FlowSplitter splitter;
    private final long delayMillis;
    private final long allowedLatenessMillis;
    private final OutputTag<RollupRow> lateTag;
    private final boolean dropLate;

    private transient long watermark;
    private transient Counter latePieces;
    private transient Counter lateBytes;
    private transient long lastLog;
    private transient StreamRecord<RollupRow> reuse;
    private transient Collector<RollupRow> open;
    private transient Collector<RollupRow> late;

    /**
     * @param resolutionMillis the window length
     * @param delayMillis the rollups' max out-of-orderness
     * @param allowedLatenessMillis the windows' allowed lateness
     * @param lateTag where closed windows' pieces go
     * @param dropLate false: every piece goes down the pipeline, as a plain splitter (to compare)
     */
    SplitOpenWindows(
            long resolutionMillis,
            long delayMillis,
            long allowedLatenessMillis,
            OutputTag<RollupRow> lateTag,
            boolean dropLate) {
        if (delayMillis < 0 || allowedLatenessMillis < 0) {
            throw new IllegalArgumentException(
                    "delay "
                            + delayMillis
                            + " ms, lateness "
                            + allowedLatenessMillis
                            + " ms (expected: >= 0)");
        }
        this.splitter = new FlowSplitter(resolutionMillis);
        this.delayMillis = delayMillis;
        this.allowedLatenessMillis = allowedLatenessMillis;
        this.lateTag = lateTag;
        this.dropLate = dropLate;
    }

    @Override
    public void open() throws Exception {
        super.open();
        watermark = Long.MIN_VALUE;
        var g = getMetricGroup().addGroup("flowhouse");
        latePieces = g.counter("rollup_late_pieces_total");
        lateBytes = g.counter("rollup_late_bytes_total");
        reuse = new StreamRecord<>(null);
        open =
                new Collector<>() {
                    @Override
                    public void collect(RollupRow r) {
                        output.collect(reuse.replace(r));
                    }

                    @Override
                    public void close() {}
                };
        late =
                new Collector<>() {
                    @Override
                    public void collect(RollupRow r) {
                        latePieces.inc();
                        lateBytes.inc(r.bytes());
                        output.collect(lateTag, reuse.replace(r));
                    }

                    @Override
                    public void close() {}
                };
    }

    @Override
    public void processElement(StreamRecord<FlowRecord> element) {
        if (element.hasTimestamp()) {
            reuse.setTimestamp(element.getTimestamp());
        } else {
            reuse.eraseTimestamp();
        }
        long before = latePieces.getCount();
        long closedAt = dropLate ? PieceEventTime.held(watermark, delayMillis) : Long.MIN_VALUE;
        splitter.split(element.getValue(), closedAt, allowedLatenessMillis, open, late);
        if (latePieces.getCount() != before) {
            long now = System.currentTimeMillis();
            if (now - lastLog >= 60_000L) {
                lastLog = now;
                LOG.warn(
                        "flow pieces for windows closed at watermark {} dropped at the split; {}"
                                + " so far",
                        closedAt,
                        latePieces.getCount());
            }
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        watermark = Math.max(watermark, mark.getTimestamp());
        super.processWatermark(mark);
    }

    /** Pieces dropped so far (this subtask). */
    long latePieces() {
        return latePieces.getCount();
    }
}
