// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.DecodeProblem;

/** What the flow and counter record readers share: narrow reads and problem texts. */
final class FlowRecords {

    private FlowRecords() {}

    /** An XDR unsigned int that carries an 8-bit value; larger values saturate at 255. */
    static int u8(byte[] b, int at) {
        return (int) Math.min(Xdr.u32(b, at), 0xff);
    }

    /** An XDR unsigned int that carries a 16-bit value; larger values saturate at 65535. */
    static int u16(byte[] b, int at) {
        return (int) Math.min(Xdr.u32(b, at), 0xffff);
    }

    /** An XDR unsigned int kept in an int; larger values saturate at Integer.MAX_VALUE. */
    static int u31(byte[] b, int at) {
        return (int) Math.min(Xdr.u32(b, at), Integer.MAX_VALUE);
    }

    /** The text of a data format: {@code enterprise:format}. */
    static String format(int dataFormat) {
        return (dataFormat >>> 12) + ":" + (dataFormat & 0xfff);
    }

    static void tooShort(ProblemTally t, int format, int len, int need) {
        DecodeProblem.Kind k = DecodeProblem.Kind.RECORD_TRUNCATED;
        t.add(
                k,
                t.seen(k)
                        ? null
                        : "record 0:"
                                + format
                                + " of "
                                + len
                                + " bytes (expected: >= "
                                + need
                                + ")");
    }

    static void badAddressType(ProblemTally t, int format, int type) {
        DecodeProblem.Kind k = DecodeProblem.Kind.BAD_ADDRESS_TYPE;
        t.add(
                k,
                t.seen(k)
                        ? null
                        : "record 0:"
                                + format
                                + " has address type "
                                + Integer.toUnsignedString(type)
                                + " (expected: 0, 1 or 2)");
    }
}
