// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

/**
 * {@code sampled_ipv6} (flow record 0:4): the IPv6 5-tuple, TCP flags and priority (traffic class)
 * an agent decoded itself. Fills only what no sampled header gave.
 */
final class SampledIpv6 {

    static final int FORMAT = 4;

    /** length, protocol, src_ip (16), dst_ip (16), src_port, dst_port, tcp_flags, priority. */
    static final int SIZE = 56;

    private SampledIpv6() {}

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
        s.ipVersion = 6;
        s.protocol = FlowRecords.u8(b, at + 4);
        s.srcHi = Xdr.u64(b, at + 8);
        s.srcLo = Xdr.u64(b, at + 16);
        s.dstHi = Xdr.u64(b, at + 24);
        s.dstLo = Xdr.u64(b, at + 32);
        s.srcPort = FlowRecords.u16(b, at + 40);
        s.dstPort = FlowRecords.u16(b, at + 44);
        s.tcpFlags = FlowRecords.u16(b, at + 48);
        s.tos = FlowRecords.u8(b, at + 52);
    }
}
