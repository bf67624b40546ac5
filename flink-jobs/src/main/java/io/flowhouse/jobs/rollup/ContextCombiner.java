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

    /** A bucket of one window. */
    private record Bucket(long windowStart, ContextRow.Key key) {}

    /**
     * @param resolutionMillis the window length
     * @param allowedLatenessMillis the windows' allowed lateness
     * @param maxBuckets buckets held before the buffer is emptied early
     */
    public ContextCombiner(long resolutionMillis, long allowedLatenessMillis, int maxBuckets) {
        super(resolutionMillis, allowedLatenessMillis, maxBuckets, "rollup_context_combiner");
    }

    @Override
    protected Object bucket(ContextRow r) {
        return new Bucket(r.windowStart(), r.key());
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
