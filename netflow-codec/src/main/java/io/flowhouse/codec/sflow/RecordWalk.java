// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.DecodeProblem;

/**
 * Walks XDR {@code (data_format, opaque<>)} elements: the samples of a datagram and the records of
 * a sample. Each element's length is checked against what remains of its enclosing structure before
 * its body is handed out, and the walk advances by the padded length, so it ends with the enclosing
 * structure whatever the declared count. A cursor, not a callback, so each caller's loop stays
 * monomorphic; one instance per nesting level, reused. It keeps no reference (the bytes come with
 * each call), so reusing it costs no G1 barrier.
 *
 * <pre>{@code
 * walk.start(p, end, count);
 * while (walk.next(b, t, "record")) { ... walk.format(), walk.at(), walk.length() ... }
 * }</pre>
 */
final class RecordWalk {

    private int p;
    private int end;
    private long count;
    private long n;
    private int format;
    private int at;
    private int length;

    void start(int p, int end, long count) {
        this.p = p;
        this.end = end;
        this.count = count;
        this.n = 0;
    }

    /** The data format of the current element: enterprise (20 bits) and format (12 bits). */
    int format() {
        return format;
    }

    /** Where the current element's body starts. */
    int at() {
        return at;
    }

    /** The current element's body length, within the enclosing structure. */
    int length() {
        return length;
    }

    /**
     * Moves to the next element; false at the end of the walk, after noting in {@code t} what was
     * wrong with its end (fewer elements than declared, a length past the end, trailing bytes).
     *
     * @param what "sample" or "flow record", for problem texts
     */
    boolean next(byte[] b, ProblemTally t, String what) {
        if (n == count) {
            if (p < end) {
                DecodeProblem.Kind k = DecodeProblem.Kind.TRAILING_BYTES;
                t.add(
                        k,
                        t.seen(k)
                                ? null
                                : (end - p)
                                        + " bytes after the last of "
                                        + count
                                        + " "
                                        + what
                                        + "s");
            }
            return false;
        }
        if (end - p < 8) {
            DecodeProblem.Kind k = DecodeProblem.Kind.BAD_RECORD_COUNT;
            t.add(
                    k,
                    t.seen(k)
                            ? null
                            : count
                                    + " "
                                    + what
                                    + "s declared, "
                                    + n
                                    + " found before the end ("
                                    + (end - p)
                                    + " bytes left)");
            return false;
        }
        int f = Xdr.s32(b, p);
        long len = Xdr.u32(b, p + 4);
        int body = p + 8;
        if (len > end - body) {
            DecodeProblem.Kind k = DecodeProblem.Kind.SET_LENGTH_PAST_END;
            t.add(
                    k,
                    t.seen(k)
                            ? null
                            : what
                                    + " "
                                    + FlowRecords.format(f)
                                    + " declares "
                                    + len
                                    + " bytes, "
                                    + (end - body)
                                    + " remain");
            return false;
        }
        n++;
        format = f;
        at = body;
        length = (int) len;
        p = body + (int) Math.min(Xdr.padded(len), end - body);
        return true;
    }
}
