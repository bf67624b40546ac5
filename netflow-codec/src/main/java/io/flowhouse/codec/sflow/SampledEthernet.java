// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

/**
 * {@code sampled_ethernet} (flow record 0:2): frame length and MAC addresses, each MAC an XDR
 * {@code opaque[6]} padded to 8 bytes. Fills only what no sampled header gave.
 */
final class SampledEthernet {

    static final int FORMAT = 2;

    /** length, src_mac (6 + 2 padding), dst_mac (6 + 2), type. */
    static final int SIZE = 24;

    private SampledEthernet() {}

    static void read(byte[] b, int at, int len, FlowSampleState s, ProblemTally t) {
        if (len < SIZE) {
            FlowRecords.tooShort(t, FORMAT, len, SIZE);
            return;
        }
        if (!s.hasHeader) {
            s.frameLength = Xdr.u32(b, at);
        }
        if (s.srcMac == 0 && s.dstMac == 0) {
            s.srcMac = mac(b, at + 4);
            s.dstMac = mac(b, at + 12);
        }
    }

    private static long mac(byte[] b, int at) {
        return ((long) Xdr.u16(b, at) << 32) | Xdr.u32(b, at + 2);
    }
}
