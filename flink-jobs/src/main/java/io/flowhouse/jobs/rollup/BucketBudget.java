// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;
import java.io.Serializable;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
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
 * maxBuckets} distinct buckets of each exporter, kind and window (per subtask) pass as they are; a
 * piece of any further bucket goes to the kind's bucket of zeros (unknown interface, protocol 0
 * port 0, AS 0 to AS 0, no country) and is counted in the row type's metric ({@code
 * rollup_buckets_folded_total}, {@code rollup_context_buckets_folded_total}). Totals per exporter
 * stay exact. Talker and conversation pieces pass untouched: their summaries are bounded already.
 *
 * <p>What was admitted is kept per open window only, dropped when the watermark passes the window's
 * lateness, and not checkpointed: after a restart an exporter may open up to {@code maxBuckets}
 * more in a window that was open then.
 *
 * @param <T> the piece type: {@link RollupRow} ({@link #ofRows}) or {@link ContextRow} ({@link
 *     #ofContext})
 */
public final class BucketBudget<T> extends AbstractStreamOperator<T>
        implements OneInputStreamOperator<T, T> {

    private static final long serialVersionUID = 1L;

    /** Default bound of distinct buckets per exporter, kind and window. */
    public static final int DEFAULT_MAX_BUCKETS = 10_000;

    /** What the budget needs to know of a piece type. */
    interface Buckets<T> extends Serializable {
        /** Whether the piece passes untouched (bounded elsewhere). */
        boolean exempt(T piece);

        long windowStart(T piece);

        int kind(T piece);

        IpAddress exporter(T piece);

        /** The key fields of the piece's bucket within its (window, kind, exporter). */
        Object bucket(T piece);

        /** The piece moved to its kind's bucket of zeros. */
        T fold(T piece);

        /** The name of the counter of folded pieces. */
        String metric();
    }

    /** One exporter's buckets of one kind in one window. */
    private record Scope(long windowStart, int kind, IpAddress exporter) {}

    /** The plain rollups' pieces. */
    public static BucketBudget<RollupRow> ofRows(
            long resolutionMillis, long allowedLatenessMillis, int maxBuckets) {
        return new BucketBudget<>(
                resolutionMillis, allowedLatenessMillis, maxBuckets, new RowBuckets());
    }

    /** The context rollups' pieces. */
    public static BucketBudget<ContextRow> ofContext(
            long resolutionMillis, long allowedLatenessMillis, int maxBuckets) {
        return new BucketBudget<>(
                resolutionMillis, allowedLatenessMillis, maxBuckets, new ContextBuckets());
    }

    private final long resolutionMillis;
    private final long allowedLatenessMillis;
    private final int maxBuckets;
    private final Buckets<T> buckets;

    private transient Map<Scope, Set<Object>> admitted;
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
        admitted = new HashMap<>();
        watermark = Long.MIN_VALUE;
        folded = getMetricGroup().addGroup("flowhouse").counter(buckets.metric());
    }

    @Override
    public void processElement(StreamRecord<T> element) {
        T r = element.getValue();
        if (buckets.exempt(r)) {
            output.collect(element);
            return;
        }
        Set<Object> seen =
                admitted.computeIfAbsent(
                        new Scope(buckets.windowStart(r), buckets.kind(r), buckets.exporter(r)),
                        k -> new HashSet<>());
        Object b = buckets.bucket(r);
        if (seen.contains(b) || (seen.size() < maxBuckets && seen.add(b))) {
            output.collect(element);
            return;
        }
        folded.inc();
        output.collect(element.replace(buckets.fold(r)));
    }

    /** The plain rollups: interface, proto-port and AS-pair buckets; talkers pass. */
    private static final class RowBuckets implements Buckets<RollupRow> {
        private static final long serialVersionUID = 1L;

        /** The key fields of a bucket within its scope. */
        private record Bucket(
                long iface, int direction, int protocol, int port, long srcAs, long dstAs) {}

        @Override
        public boolean exempt(RollupRow r) {
            return RollupTopology.isAddressSum(r);
        }

        @Override
        public long windowStart(RollupRow r) {
            return r.windowStart();
        }

        @Override
        public int kind(RollupRow r) {
            return r.kind();
        }

        @Override
        public IpAddress exporter(RollupRow r) {
            return r.exporter();
        }

        @Override
        public Object bucket(RollupRow r) {
            return new Bucket(
                    r.iface(), r.direction(), r.protocol(), r.port(), r.srcAs(), r.dstAs());
        }

        @Override
        public RollupRow fold(RollupRow r) {
            return BucketBudget.fold(r);
        }

        @Override
        public String metric() {
            return "rollup_buckets_folded_total";
        }
    }

    /**
     * The context rollups: every bucket counts. The bucket of zeros keeps the direction and the
     * boundaries (three values each), so external/internal totals stay exact too.
     */
    private static final class ContextBuckets implements Buckets<ContextRow> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean exempt(ContextRow r) {
            return false;
        }

        @Override
        public long windowStart(ContextRow r) {
            return r.windowStart();
        }

        @Override
        public int kind(ContextRow r) {
            return r.kind();
        }

        @Override
        public IpAddress exporter(ContextRow r) {
            return r.exporter();
        }

        @Override
        public Object bucket(ContextRow r) {
            return r.key();
        }

        @Override
        public ContextRow fold(ContextRow r) {
            return BucketBudget.fold(r);
        }

        @Override
        public String metric() {
            return "rollup_context_buckets_folded_total";
        }
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
        for (Iterator<Scope> it = admitted.keySet().iterator(); it.hasNext(); ) {
            long start = it.next().windowStart();
            long maxTimestamp = start + resolutionMillis - 1;
            long cleanup = maxTimestamp + allowedLatenessMillis;
            if (cleanup >= maxTimestamp && cleanup <= watermark) {
                it.remove();
            }
        }
        super.processWatermark(mark);
    }

    /** Scopes (exporter, kind, window) held now. */
    int scopes() {
        return admitted.size();
    }
}
