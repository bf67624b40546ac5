// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

/** The plain rollups' {@link BucketCombiner}: pieces of the same {@link RollupRow} bucket. */
public final class PieceCombiner extends BucketCombiner<RollupRow> {

    private static final long serialVersionUID = 1L;

    /** Default bound of the buffer per subtask and resolution. */
    public static final int DEFAULT_MAX_BUCKETS = BucketCombiner.DEFAULT_MAX_BUCKETS;

    /** A bucket of one window: every key field of a piece and its window. */
    private static final class Bucket implements BucketTable.Identity<RollupRow> {
        private static final long serialVersionUID = 1L;

        @Override
        public long hash(RollupRow r) {
            long h = fieldsHash(r);
            h = BucketHash.add(h, r.srcAddr().hi());
            h = BucketHash.add(h, r.srcAddr().lo());
            h = BucketHash.add(h, r.dstAddr().hi());
            h = BucketHash.add(h, r.dstAddr().lo());
            return BucketHash.finish(h);
        }

        @Override
        public boolean sameBucket(RollupRow a, RollupRow b) {
            return sameFields(a, b)
                    && a.srcAddr().equals(b.srcAddr())
                    && a.dstAddr().equals(b.dstAddr());
        }
    }

    /**
     * The running (unfinished) {@link BucketHash} of a piece's window, kind, exporter, interface
     * and direction, protocol and port, and AS pair: every key field but the addresses. The bucket
     * budget's bucket is these fields alone.
     */
    static long fieldsHash(RollupRow r) {
        long h = BucketHash.add(BucketHash.SEED, r.windowStart());
        // kind (a code < 16), direction (0, 1), protocol (uint8), port (uint16) in one word.
        h =
                BucketHash.add(
                        h,
                        ((long) r.kind() << 56)
                                ^ ((long) r.direction() << 48)
                                ^ ((long) r.protocol() << 32)
                                ^ (r.port() & 0xffff_ffffL));
        // iface and the ASes are uint32.
        h = BucketHash.add(h, r.iface() ^ (r.srcAs() << 32));
        h = BucketHash.add(h, r.dstAs());
        h = BucketHash.add(h, r.exporter().hi());
        return BucketHash.add(h, r.exporter().lo());
    }

    /** Whether two pieces agree on every field {@link #fieldsHash} reads. */
    static boolean sameFields(RollupRow a, RollupRow b) {
        return a.windowStart() == b.windowStart()
                && a.kind() == b.kind()
                && a.iface() == b.iface()
                && a.direction() == b.direction()
                && a.protocol() == b.protocol()
                && a.port() == b.port()
                && a.srcAs() == b.srcAs()
                && a.dstAs() == b.dstAs()
                && a.exporter().equals(b.exporter());
    }

    private static final Bucket BUCKET = new Bucket();

    /**
     * @param resolutionMillis the window length
     * @param allowedLatenessMillis the windows' allowed lateness
     * @param maxBuckets buckets held before the buffer is emptied early
     */
    public PieceCombiner(long resolutionMillis, long allowedLatenessMillis, int maxBuckets) {
        super(resolutionMillis, allowedLatenessMillis, maxBuckets, "rollup_combiner");
    }

    @Override
    BucketTable.Identity<RollupRow> bucket() {
        return BUCKET;
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
