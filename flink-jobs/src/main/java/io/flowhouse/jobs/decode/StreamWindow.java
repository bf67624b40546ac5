// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import java.util.Arrays;

/**
 * Which sequence numbers of one agent stream the job has seen, in a few longs: the highest seen,
 * and the gaps below it (runs not seen yet) as sorted inclusive ranges. A stream's sequences start
 * at 0 and arrive mostly in order, so the common step is one comparison and one increment; a
 * re-sent datagram falls on a number that is neither above the highest nor in a gap.
 *
 * <p>At most {@code maxGaps} gaps are kept: beyond, the lowest is forgotten and everything below
 * the next one becomes <em>unverifiable</em> (accepted, and counted as such), since it can no
 * longer be told apart from a datagram that never came.
 *
 * <p>Layout of the {@code long[]} (the keyed state value): {@code [highest, lastReceivedMillis,
 * floor, gap0.lo, gap0.hi, gap1.lo, ...]}; {@code floor} is the lowest sequence still tracked. The
 * methods change the array in place when its size stays and return a new one when it does not.
 */
final class StreamWindow {

    /** What a sequence number turned out to be. */
    enum Verdict {
        /** Not seen before: decode it. */
        NEW,
        /** Seen before: a re-send or a replay; drop it. */
        DUPLICATE,
        /** Below what the window still tracks: accepted, and counted. */
        UNVERIFIED
    }

    static final int HIGHEST = 0;
    static final int LAST_RECEIVED = 1;
    static final int FLOOR = 2;
    static final int GAPS = 3;

    private StreamWindow() {}

    /**
     * The window of a stream first seen with {@code sequence}: everything below it, from 0, is one
     * gap (a stream starts at 0; a replay from its middle starts with one gap).
     */
    static long[] first(long sequence, long receivedMillis) {
        if (sequence == 0) {
            return new long[] {0, receivedMillis, 0};
        }
        return new long[] {sequence, receivedMillis, 0, 0, sequence - 1};
    }

    static int gaps(long[] w) {
        return (w.length - GAPS) / 2;
    }

    /**
     * Records {@code sequence} as seen.
     *
     * @param out {@code out[0]} receives the window to store (the same array or a new one)
     * @return what the sequence was
     */
    static Verdict see(long[] w, long sequence, long receivedMillis, int maxGaps, long[][] out) {
        out[0] = w;
        w[LAST_RECEIVED] = Math.max(w[LAST_RECEIVED], receivedMillis);
        long highest = w[HIGHEST];
        if (Long.compareUnsigned(sequence, highest) > 0) {
            w[HIGHEST] = sequence;
            if (sequence != highest + 1) {
                out[0] = addGap(w, highest + 1, sequence - 1, maxGaps);
            }
            return Verdict.NEW;
        }
        if (Long.compareUnsigned(sequence, w[FLOOR]) < 0) {
            return Verdict.UNVERIFIED;
        }
        int g = findGap(w, sequence);
        if (g < 0) {
            return Verdict.DUPLICATE;
        }
        out[0] = fill(w, g, sequence, maxGaps);
        return Verdict.NEW;
    }

    /** Index (0-based) of the gap holding {@code sequence}, or -1. */
    private static int findGap(long[] w, long sequence) {
        int lo = 0;
        int hi = gaps(w) - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long gapLo = w[GAPS + 2 * mid];
            long gapHi = w[GAPS + 2 * mid + 1];
            if (Long.compareUnsigned(sequence, gapLo) < 0) {
                hi = mid - 1;
            } else if (Long.compareUnsigned(sequence, gapHi) > 0) {
                lo = mid + 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    /** Appends a gap above every other; drops the lowest when there would be too many. */
    private static long[] addGap(long[] w, long lo, long hi, int maxGaps) {
        long[] n = Arrays.copyOf(w, w.length + 2);
        n[n.length - 2] = lo;
        n[n.length - 1] = hi;
        return trim(n, maxGaps);
    }

    /**
     * Forgets the lowest gaps beyond {@code maxGaps}: below the end of a forgotten gap nothing can
     * be checked any more, so the floor moves past it.
     */
    private static long[] trim(long[] w, int maxGaps) {
        int drop = gaps(w) - maxGaps;
        if (drop <= 0) {
            return w;
        }
        long[] n = new long[w.length - 2 * drop];
        System.arraycopy(w, 0, n, 0, GAPS);
        System.arraycopy(w, GAPS + 2 * drop, n, GAPS, n.length - GAPS);
        n[FLOOR] = w[GAPS + 2 * drop - 1] + 1;
        return n;
    }

    /** Takes {@code sequence} out of gap {@code g}: shrinks, splits or removes it. */
    private static long[] fill(long[] w, int g, long sequence, int maxGaps) {
        int at = GAPS + 2 * g;
        long lo = w[at];
        long hi = w[at + 1];
        if (lo == hi) {
            long[] n = new long[w.length - 2];
            System.arraycopy(w, 0, n, 0, at);
            System.arraycopy(w, at + 2, n, at, w.length - at - 2);
            return n;
        }
        if (sequence == lo) {
            w[at] = lo + 1;
            return w;
        }
        if (sequence == hi) {
            w[at + 1] = hi - 1;
            return w;
        }
        long[] n = new long[w.length + 2];
        System.arraycopy(w, 0, n, 0, at);
        n[at] = lo;
        n[at + 1] = sequence - 1;
        n[at + 2] = sequence + 1;
        n[at + 3] = hi;
        System.arraycopy(w, at + 2, n, at + 4, w.length - at - 2);
        return trim(n, maxGaps);
    }
}
