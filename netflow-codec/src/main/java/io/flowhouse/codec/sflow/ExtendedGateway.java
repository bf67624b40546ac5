// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.DecodeProblem;

/**
 * {@code extended_gateway} (flow record 0:1003): BGP next hop, the router's AS, source AS, source
 * peer AS, the destination AS path (segments of AS sets or sequences), communities and local
 * preference. The destination AS is the last AS of the path. Nothing is kept unless the whole
 * record is well formed; the path is walked, not stored, so a long path costs no memory.
 */
final class ExtendedGateway {

    static final int FORMAT = 1003;

    /**
     * The smallest body: an "unknown" address, as, src_as, src_peer_as, an empty path, no
     * communities and localpref.
     */
    static final int MIN_SIZE = 4 + 12 + 4 + 4 + 4;

    private ExtendedGateway() {}

    static void read(byte[] b, int at, int len, FlowSampleState s, ProblemTally t) {
        if (len < MIN_SIZE) {
            FlowRecords.tooShort(t, FORMAT, len, MIN_SIZE);
            return;
        }
        int end = at + len;
        int type = Xdr.s32(b, at);
        int addressLength = Xdr.addressLength(type);
        if (addressLength < 0) {
            FlowRecords.badAddressType(t, FORMAT, type);
            return;
        }
        int p = at + 4 + addressLength;
        if (end - p < 16) {
            FlowRecords.tooShort(t, FORMAT, len, MIN_SIZE + addressLength);
            return;
        }
        long as = Xdr.u32(b, p);
        long srcAs = Xdr.u32(b, p + 4);
        long srcPeerAs = Xdr.u32(b, p + 8);
        long segments = Xdr.u32(b, p + 12);
        p += 16;
        long last = 0;
        boolean hasPath = false;
        // Each segment takes at least 8 bytes, so the walk ends with the record whatever the count.
        for (long i = 0; i < segments; i++) {
            if (end - p < 8) {
                truncated(t, "AS path of " + segments + " segments", len);
                return;
            }
            long n = Xdr.u32(b, p + 4);
            if (n > (end - p - 8) / 4) {
                truncated(t, "AS path segment of " + n + " AS numbers", len);
                return;
            }
            if (n > 0) {
                last = Xdr.u32(b, p + 8 + (int) (n - 1) * 4);
                hasPath = true;
            }
            p += 8 + (int) n * 4;
        }
        if (end - p < 4) {
            truncated(t, "communities", len);
            return;
        }
        long communities = Xdr.u32(b, p);
        if (communities > (end - p - 4) / 4 || (end - p - 4) - communities * 4 < 4) {
            truncated(t, communities + " communities and localpref", len);
            return;
        }
        s.hasGateway = true;
        s.hasBgpNextHop = type != Xdr.ADDRESS_UNKNOWN;
        s.bgpNextHopHi = Xdr.addressHi(b, at + 4, type);
        s.bgpNextHopLo = Xdr.addressLo(b, at + 4, type);
        s.gatewayAs = as;
        s.srcAs = srcAs;
        s.srcPeerAs = srcPeerAs;
        s.hasPath = hasPath;
        s.lastPathAs = last;
    }

    private static void truncated(ProblemTally t, String what, int len) {
        DecodeProblem.Kind k = DecodeProblem.Kind.RECORD_TRUNCATED;
        t.add(
                k,
                t.seen(k)
                        ? null
                        : "extended gateway record of " + len + " bytes ends inside its " + what);
    }
}
