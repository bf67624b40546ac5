// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

/**
 * The context rollups' {@link BucketCombiner}: pieces of the same {@link ContextRow.Key} and window
 * are summed before the context windows' {@code keyBy}. A flow makes four pieces per window and
 * resolution while the context buckets are few (interfaces, country pairs, boundary/AS
 * combinations), so most pieces never cross the shuffle, the serializer or the window state.
 */
public final class ContextCombiner extends BucketCombiner<ContextRow> {

    private static final long serialVersionUID = 1L;

    /**
     * A bucket of one window: the fields of the piece's {@link ContextRow.Key} and its window, read
     * from the piece (no key is made per piece). Not the key's own 32-bit hash: it must stay as it
     * is for the windows' key groups, and it is a 31-polynomial of small fields.
     */
    private static final class Bucket implements BucketTable.Identity<ContextRow> {
        private static final long serialVersionUID = 1L;

        @Override
        public long hash(ContextRow r) {
            long h = BucketHash.add(BucketHash.SEED, r.windowStart());
            // kind (1-3), direction (0, 1), boundaries (0-2), protocol (uint8) in one word.
            h =
                    BucketHash.add(
                            h,
                            ((long) r.kind() << 48)
                                    ^ ((long) r.direction() << 40)
                                    ^ ((long) r.inBoundary() << 32)
                                    ^ ((long) r.outBoundary() << 24)
                                    ^ (r.protocol() & 0xff_ffffL));
            // iface and the ASes are uint32.
            h = BucketHash.add(h, r.iface() ^ (r.srcAs() << 32));
            h = BucketHash.add(h, r.dstAs());
            h = BucketHash.add(h, r.exporter().hi());
            h = BucketHash.add(h, r.exporter().lo());
            // The strings' hashes are cached in them; these are the pieces' own strings.
            h =
                    BucketHash.add(
                            h,
                            ((long) r.ifName().hashCode() << 32)
                                    ^ (r.srcCountry().hashCode() & 0xffff_ffffL));
            h = BucketHash.add(h, r.dstCountry().hashCode());
            return BucketHash.finish(h);
        }

        @Override
        public boolean sameBucket(ContextRow a, ContextRow b) {
            return a.windowStart() == b.windowStart()
                    && a.kind() == b.kind()
                    && a.iface() == b.iface()
                    && a.direction() == b.direction()
                    && a.inBoundary() == b.inBoundary()
                    && a.outBoundary() == b.outBoundary()
                    && a.protocol() == b.protocol()
                    && a.srcAs() == b.srcAs()
                    && a.dstAs() == b.dstAs()
                    && a.exporter().equals(b.exporter())
                    && a.ifName().equals(b.ifName())
                    && a.srcCountry().equals(b.srcCountry())
                    && a.dstCountry().equals(b.dstCountry());
        }
    }

    /** A context piece's bucket (also the {@link BucketBudget}'s). */
    static final BucketTable.Identity<ContextRow> BUCKET = new Bucket();

    /**
     * @param resolutionMillis the window length
     * @param allowedLatenessMillis the windows' allowed lateness
     * @param maxBuckets buckets held before the buffer is emptied early
     */
    public ContextCombiner(long resolutionMillis, long allowedLatenessMillis, int maxBuckets) {
        super(resolutionMillis, allowedLatenessMillis, maxBuckets, "rollup_context_combiner");
    }

    @Override
    BucketTable.Identity<ContextRow> bucket() {
        return BUCKET;
    }

    @Override
    protected ContextRow summed(ContextRow f, long bytes, long packets, long flows) {
        return new ContextRow(
                f.kind(),
                f.windowStart(),
                f.exporter(),
                f.iface(),
                f.direction(),
                f.ifName(),
                f.inBoundary(),
                f.outBoundary(),
                f.protocol(),
                f.srcAs(),
                f.dstAs(),
                f.srcCountry(),
                f.dstCountry(),
                bytes,
                packets,
                flows,
                f.version());
    }
}
