// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

/**
 * {@code extended_router} (flow record 0:1002): IP next hop and source/destination mask lengths.
 */
final class ExtendedRouter {

    static final int FORMAT = 1002;

    /** The smallest body: an address of type "unknown" and the two mask lengths. */
    static final int MIN_SIZE = 12;

    private ExtendedRouter() {}

    static void read(byte[] b, int at, int len, FlowSampleState s, ProblemTally t) {
        if (len < MIN_SIZE) {
            FlowRecords.tooShort(t, FORMAT, len, MIN_SIZE);
            return;
        }
        int type = Xdr.s32(b, at);
        int addressLength = Xdr.addressLength(type);
        if (addressLength < 0) {
            FlowRecords.badAddressType(t, FORMAT, type);
            return;
        }
        int size = 4 + addressLength + 8;
        if (len < size) {
            FlowRecords.tooShort(t, FORMAT, len, size);
            return;
        }
        s.hasRouter = true;
        s.hasNextHop = type != Xdr.ADDRESS_UNKNOWN;
        s.nextHopHi = Xdr.addressHi(b, at + 4, type);
        s.nextHopLo = Xdr.addressLo(b, at + 4, type);
        int p = at + 4 + addressLength;
        s.srcMaskLen = FlowRecords.u8(b, p);
        s.dstMaskLen = FlowRecords.u8(b, p + 4);
    }
}
