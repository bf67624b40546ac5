// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;
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
 * come from the exporter's own fields, so an exporter sending random ports, interfaces or AS
 * numbers would grow the windows' state (and their checkpoints) without bound. The first {@code
 * maxBuckets} distinct buckets of each exporter, kind and window (per subtask) pass as they are; a
 * piece of any further bucket goes to the kind's bucket of zeros (unknown interface, protocol 0
 * port 0, AS 0 to AS 0) and is counted in {@code rollup_buckets_folded_total}. Totals per exporter
 * stay exact. Talker and conversation pieces pass untouched: their summaries are bounded already.
 *
 * <p>What was admitted is kept per open window only, dropped when the watermark passes the window's
 * lateness, and not checkpointed: after a restart an exporter may open up to {@code maxBuckets}
 * more in a window that was open then.
 */
public final class BucketBudget extends AbstractStreamOperator<RollupRow>
        implements OneInputStreamOperator<RollupRow, RollupRow> {

    private static final long serialVersionUID = 1L;

    /** Default bound of distinct buckets per exporter, kind and window. */
    public static final int DEFAULT_MAX_BUCKETS = 10_000;

    /** One exporter's buckets of one kind in one window. */
    private record Scope(long windowStart, int kind, IpAddress exporter) {}

    /** The key fields of a bucket within its scope. */
    private record Bucket(
            long iface, int direction, int protocol, int port, long srcAs, long dstAs) {
        static Bucket of(RollupRow r) {
            return new Bucket(
                    r.iface(), r.direction(), r.protocol(), r.port(), r.srcAs(), r.dstAs());
        }
    }

    private final long resolutionMillis;
    private final long allowedLatenessMillis;
    private final int maxBuckets;

    private transient Map<Scope, Set<Bucket>> admitted;
    private transient long watermark;
    private transient Counter folded;

    /**
     * @param resolutionMillis the window length
     * @param allowedLatenessMillis the windows' allowed lateness
     * @param maxBuckets distinct buckets per exporter, kind and window
     */
    public BucketBudget(long resolutionMillis, long allowedLatenessMillis, int maxBuckets) {
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
        admitted = new HashMap<>();
        watermark = Long.MIN_VALUE;
        folded = getMetricGroup().addGroup("flowhouse").counter("rollup_buckets_folded_total");
    }

    @Override
    public void processElement(StreamRecord<RollupRow> element) {
        RollupRow r = element.getValue();
        if (RollupTopology.isAddressSum(r)) {
            output.collect(element);
            return;
        }
        Set<Bucket> seen =
                admitted.computeIfAbsent(
                        new Scope(r.windowStart(), r.kind(), r.exporter()), k -> new HashSet<>());
        Bucket b = Bucket.of(r);
        if (seen.contains(b) || (seen.size() < maxBuckets && seen.add(b))) {
            output.collect(element);
            return;
        }
        folded.inc();
        output.collect(element.replace(fold(r)));
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
