// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;

/** The plain rollups' {@link BucketCombiner}: pieces of the same {@link RollupRow} bucket. */
public final class PieceCombiner extends BucketCombiner<RollupRow> {

    private static final long serialVersionUID = 1L;

    /** Default bound of the buffer per subtask and resolution. */
    public static final int DEFAULT_MAX_BUCKETS = BucketCombiner.DEFAULT_MAX_BUCKETS;

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
            IpAddress dstAddr) {}

    /**
     * @param resolutionMillis the window length
     * @param allowedLatenessMillis the windows' allowed lateness
     * @param maxBuckets buckets held before the buffer is emptied early
     */
    public PieceCombiner(long resolutionMillis, long allowedLatenessMillis, int maxBuckets) {
        super(resolutionMillis, allowedLatenessMillis, maxBuckets, "rollup_combiner");
    }

    @Override
    protected Object bucket(RollupRow r) {
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

    @Override
    protected RollupRow summed(RollupRow f, long bytes, long packets, long flows) {
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
