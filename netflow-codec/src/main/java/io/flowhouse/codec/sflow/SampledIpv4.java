// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

/**
 * {@code sampled_ipv4} (flow record 0:3): the IPv4 5-tuple, TCP flags and ToS an agent decoded
 * itself. Fills only what no sampled header gave.
 */
final class SampledIpv4 {

    static final int FORMAT = 3;

    /** length, protocol, src_ip, dst_ip, src_port, dst_port, tcp_flags, tos. */
    static final int SIZE = 32;

    private static final long V4_MAPPED = 0x0000_ffff_0000_0000L;

    private SampledIpv4() {}

    static void read(byte[] b, int at, int len, FlowSampleState s, ProblemTally t) {
        if (len < SIZE) {
            FlowRecords.tooShort(t, FORMAT, len, SIZE);
            return;
        }
        if (!s.hasHeader && s.frameLength == 0) {
            s.frameLength = Xdr.u32(b, at);
        }
        if (s.ipVersion != 0) {
            return;
        }
        s.ipVersion = 4;
        s.protocol = FlowRecords.u8(b, at + 4);
        s.srcHi = 0;
        s.srcLo = V4_MAPPED | Xdr.u32(b, at + 8);
        s.dstHi = 0;
        s.dstLo = V4_MAPPED | Xdr.u32(b, at + 12);
        s.srcPort = FlowRecords.u16(b, at + 16);
        s.dstPort = FlowRecords.u16(b, at + 20);
        s.tcpFlags = FlowRecords.u16(b, at + 24);
        s.tos = FlowRecords.u8(b, at + 28);
    }
}
