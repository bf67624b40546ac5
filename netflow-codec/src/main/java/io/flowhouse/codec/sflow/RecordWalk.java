// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.DecodeProblem;
import java.nio.ByteBuffer;

/**
 * Walks XDR {@code (data_format, opaque<>)} elements: the samples of a datagram and the records of
 * a sample. Each element's length is checked against what remains of its enclosing structure before
 * its body is handed on, and the walk advances by the padded length, so it ends with the enclosing
 * structure whatever the declared count.
 */
final class RecordWalk {

    /** Receives each element's format and body. */
    interface Visitor {
        void element(int dataFormat, int at, int len);
    }

    private RecordWalk() {}

    /**
     * Walks up to {@code count} elements between {@code p} and {@code end}.
     *
     * @param what "sample" or "record", for problem texts
     * @return the elements visited
     */
    static long walk(
            ByteBuffer b, int p, int end, long count, Visitor v, ProblemTally t, String what) {
        long n = 0;
        while (n < count) {
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
                return n;
            }
            int format = b.getInt(p);
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
                                        + FlowRecords.format(format)
                                        + " declares "
                                        + len
                                        + " bytes, "
                                        + (end - body)
                                        + " remain");
                return n;
            }
            n++;
            v.element(format, body, (int) len);
            p = body + (int) Math.min(Xdr.padded(len), end - body);
        }
        if (p < end) {
            DecodeProblem.Kind k = DecodeProblem.Kind.TRAILING_BYTES;
            t.add(
                    k,
                    t.seen(k)
                            ? null
                            : (end - p) + " bytes after the last of " + count + " " + what + "s");
        }
        return n;
    }
}
