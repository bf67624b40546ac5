// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;
import java.io.Serializable;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Function;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Bounds the buckets an exporter opens in one window: the interface, proto-port and AS-pair keys
 * (and, with enrichment, the context rollups' interface-name, country-pair and boundary/AS keys)
 * come from the exporter's own fields, so an exporter sending random ports, interfaces or AS
 * numbers would grow the windows' state (and their checkpoints) without bound. The first {@code
 * maxBuckets} distinct buckets of each exporter, kind and window (per subtask and rollup input,
 * {@link RollupInput}: one budget runs in each input's chain) pass as they are; a piece of any
 * further bucket goes to the kind's bucket of zeros (unknown interface, protocol 0 port 0, AS 0 to
 * AS 0, no country) and is counted in the row type's metric ({@code rollup_buckets_folded_total},
 * {@code rollup_context_buckets_folded_total}). Totals per exporter stay exact. Talker and
 * conversation pieces pass untouched: their summaries are bounded already.
 *
 * <p>What was admitted is kept per open window only, dropped when the watermark passes the window's
 * lateness, and not checkpointed: after a restart an exporter may open up to {@code maxBuckets}
 * more in a window that was open then.
 *
 * @param <T> the piece type: {@link RollupRow} ({@link #ofRows}) or {@link ContextRow} ({@link
 *     #ofContext})
 */
public final class BucketBudget<T extends Bucketed> extends AbstractStreamOperator<T>
        implements OneInputStreamOperator<T, T> {

    private static final long serialVersionUID = 1L;

    /** Default bound of distinct buckets per exporter, kind and window. */
    public static final int DEFAULT_MAX_BUCKETS = 10_000;

    /** A function the operator keeps: serializable with it. */
    interface Rule<A, B> extends Function<A, B>, Serializable {}

    /**
     * What a bucket of a piece type is.
     *
     * @param exempt whether a piece passes untouched (bounded elsewhere)
     * @param bucket what makes a piece's bucket: its window, kind and exporter (its scope) and the
     *     key fields within them
     * @param fold the piece moved to its kind's bucket of zeros
     * @param metric the name of the counter of folded pieces
     */
    record Buckets<T>(
            Rule<T, Boolean> exempt, BucketTable.Identity<T> bucket, Rule<T, T> fold, String metric)
            implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /** One exporter's buckets of one kind in one window. */
    private record Scope(long windowStart, int kind, IpAddress exporter) {}

    /**
     * A plain rollup's bucket: window, kind, exporter, interface and direction, protocol and port,
     * AS pair (not the addresses: talker pieces are exempt).
     */
    private static final class RowBucket implements BucketTable.Identity<RollupRow> {
        private static final long serialVersionUID = 1L;

        @Override
        public long hash(RollupRow r) {
            return BucketHash.finish(PieceCombiner.fieldsHash(r));
        }

        @Override
        public boolean sameBucket(RollupRow a, RollupRow b) {
            return PieceCombiner.sameFields(a, b);
        }
    }

    /** The plain rollups: interface, proto-port and AS-pair buckets; talkers pass. */
    private static final Buckets<RollupRow> ROWS =
            new Buckets<>(
                    RollupTopology::isAddressSum,
                    new RowBucket(),
                    BucketBudget::fold,
                    "rollup_buckets_folded_total");

    /**
     * The context rollups: every bucket counts (a bucket as the context sums see it). The bucket of
     * zeros keeps the direction and the boundaries (three values each), so external/internal totals
     * stay exact too.
     */
    private static final Buckets<ContextRow> CONTEXT =
            new Buckets<>(
                    r -> false,
                    ContextCombiner.BUCKET,
                    BucketBudget::fold,
                    "rollup_context_buckets_folded_total");

    /** The plain rollups' pieces. */
    public static BucketBudget<RollupRow> ofRows(
            long resolutionMillis, long allowedLatenessMillis, int maxBuckets) {
        return new BucketBudget<>(resolutionMillis, allowedLatenessMillis, maxBuckets, ROWS);
    }

    /** The context rollups' pieces. */
    public static BucketBudget<ContextRow> ofContext(
            long resolutionMillis, long allowedLatenessMillis, int maxBuckets) {
        return new BucketBudget<>(resolutionMillis, allowedLatenessMillis, maxBuckets, CONTEXT);
    }

    private final long resolutionMillis;
    private final long allowedLatenessMillis;
    private final int maxBuckets;
    private final Buckets<T> buckets;

    /** The buckets admitted in each scope, counted. */
    private transient Map<Scope, int[]> scopes;

    /** The buckets admitted, of every scope. */
    private transient BucketSet<T> admitted;

    private transient long watermark;
    private transient Counter folded;

    /**
     * @param resolutionMillis the window length
     * @param allowedLatenessMillis the windows' allowed lateness
     * @param maxBuckets distinct buckets per exporter, kind and window
     * @param buckets what a bucket of the piece type is
     */
    BucketBudget(
            long resolutionMillis, long allowedLatenessMillis, int maxBuckets, Buckets<T> buckets) {
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
        this.buckets = buckets;
    }

    @Override
    public void open() throws Exception {
        super.open();
        scopes = new HashMap<>();
        admitted = new BucketSet<>(buckets.bucket());
        watermark = Long.MIN_VALUE;
        folded = getMetricGroup().addGroup("flowhouse").counter(buckets.metric());
    }

    @Override
    public void processElement(StreamRecord<T> element) {
        T r = element.getValue();
        if (buckets.exempt().apply(r)) {
            output.collect(element);
            return;
        }
        if (admitted.contains(r)) {
            output.collect(element);
            return;
        }
        int[] seen =
                scopes.computeIfAbsent(
                        new Scope(r.windowStart(), r.kind(), r.exporter()), k -> new int[1]);
        if (seen[0] < maxBuckets) {
            seen[0]++;
            admitted.add(r);
            output.collect(element);
            return;
        }
        folded.inc();
        output.collect(element.replace(buckets.fold().apply(r)));
    }

    /** A context piece moved to its kind's bucket of zeros (direction and boundaries kept). */
    static ContextRow fold(ContextRow r) {
        return new ContextRow(
                r.kind(),
                r.windowStart(),
                r.exporter(),
                0,
                r.direction(),
                "",
                r.inBoundary(),
                r.outBoundary(),
                0,
                0,
                0,
                "",
                "",
                r.bytes(),
                r.packets(),
                r.flows(),
                r.version());
    }

    /** The piece moved to its kind's bucket of zeros (the direction of an interface kept). */
    static RollupRow fold(RollupRow r) {
        return new RollupRow(
                r.kind(),
                r.windowStart(),
                r.exporter(),
                0,
                r.direction(),
                0,
                0,
                0,
                0,
                r.rank(),
                r.srcAddr(),
                r.dstAddr(),
                r.bytes(),
                r.packets(),
                r.flows(),
                r.version());
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        watermark = Math.max(watermark, mark.getTimestamp());
        boolean closed = false;
        for (Iterator<Scope> it = scopes.keySet().iterator(); it.hasNext(); ) {
            if (closed(it.next().windowStart())) {
                it.remove();
                closed = true;
            }
        }
        if (closed) {
            admitted.removeIf(r -> closed(r.windowStart()));
        }
        super.processWatermark(mark);
    }

    /** Whether a window is past its lateness by the watermark: its budget can go. */
    private boolean closed(long windowStart) {
        long maxTimestamp = windowStart + resolutionMillis - 1;
        long cleanup = maxTimestamp + allowedLatenessMillis;
        return cleanup >= maxTimestamp && cleanup <= watermark;
    }

    /** Scopes (exporter, kind, window) held now. */
    int scopes() {
        return scopes.size();
    }

    /** Buckets admitted in the scopes held now. */
    int buckets() {
        return admitted.size();
    }
}
