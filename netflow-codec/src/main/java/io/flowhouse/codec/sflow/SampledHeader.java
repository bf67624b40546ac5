// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.packet.PacketParser;

/**
 * {@code sampled_header} (flow record 0:1): the first bytes of the sampled frame, parsed as the
 * codec's {@link PacketParser} parses a frame (Ethernet with 802.1Q tags, IPv4/IPv6, TCP/UDP/ICMP),
 * but straight from the decoder's array into the sample's state. A header cut short keeps what was
 * parsed before the cut; an unknown header protocol keeps only the lengths.
 */
final class SampledHeader {

    static final int FORMAT = 1;

    /** header_protocol, frame_length, stripped and the header's length word. */
    static final int FIXED_SIZE = 16;

    /** header_protocol ETHERNET-ISO88023. */
    static final int PROTOCOL_ETHERNET = 1;

    /** header_protocol IPv4: the header starts at the IP header. */
    static final int PROTOCOL_IPV4 = 11;

    /** header_protocol IPv6. */
    static final int PROTOCOL_IPV6 = 12;

    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86dd;
    private static final int ETHERTYPE_VLAN = 0x8100;
    private static final int ETHERTYPE_QINQ = 0x88a8;
    private static final int ETHERTYPE_QINQ_OLD = 0x9100;

    private static final long V4_MAPPED = 0x0000_ffff_0000_0000L;

    private SampledHeader() {}

    /** Reads the record body at {@code at} ({@code len} bytes) of {@code b}. */
    static void read(byte[] b, int at, int len, FlowSampleState s, ProblemTally t) {
        if (len < FIXED_SIZE) {
            FlowRecords.tooShort(t, FORMAT, len, FIXED_SIZE);
            return;
        }
        int protocol = Xdr.s32(b, at);
        s.hasHeader = true;
        s.frameLength = Xdr.u32(b, at + 4);
        s.stripped = Xdr.u32(b, at + 8);
        long headerLength = Xdr.u32(b, at + 12);
        long room = len - FIXED_SIZE;
        if (headerLength > room) {
            DecodeProblem.Kind k = DecodeProblem.Kind.RECORD_TRUNCATED;
            t.add(
                    k,
                    t.seen(k)
                            ? null
                            : "sampled header of "
                                    + headerLength
                                    + " bytes in a record of "
                                    + len
                                    + " (expected: <= "
                                    + room
                                    + ")");
            headerLength = room;
        }
        if (headerLength == 0
                || (protocol != PROTOCOL_ETHERNET
                        && protocol != PROTOCOL_IPV4
                        && protocol != PROTOCOL_IPV6)) {
            return;
        }
        int from = at + FIXED_SIZE;
        int end = from + (int) headerLength;
        // Whatever the outcome, the fields the parse reached are filled and the rest cleared (a
        // truncated transport header still leaves addresses and protocol).
        s.clearHeaderFields();
        if (protocol == PROTOCOL_ETHERNET) {
            ethernet(b, from, end, s);
        } else if (protocol == PROTOCOL_IPV4) {
            ipv4(b, from, end, s);
        } else {
            ipv6(b, from, end, s);
        }
    }

    /*
     * The parse below is PacketParser's (Ethernet, 802.1Q, IPv4, IPv6 with its extension headers,
     * transport ports and TCP flags), read from the decoder's array between from and end instead of
     * a ByteBuffer, and keeping only what a flow record takes (no TTL, IP length, inner VLAN or
     * fragment flag). Every read is checked against end first, as there. SampledHeaderParseTest
     * holds the two to the same fields on real and mutated headers.
     */

    private static void ethernet(byte[] b, int off, int end, FlowSampleState s) {
        if (end - off < 14) {
            return;
        }
        s.dstMac = u48(b, off);
        s.srcMac = u48(b, off + 6);
        int type = Xdr.u16(b, off + 12);
        off += 14;
        boolean tagged = false;
        while (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ || type == ETHERTYPE_QINQ_OLD) {
            if (end - off < 4) {
                return;
            }
            if (!tagged) {
                s.headerVlan = Xdr.u16(b, off) & 0x0fff;
                tagged = true;
            }
            type = Xdr.u16(b, off + 2);
            off += 4;
        }
        if (type == ETHERTYPE_IPV4) {
            ipv4(b, off, end, s);
        } else if (type == ETHERTYPE_IPV6) {
            ipv6(b, off, end, s);
        }
    }

    private static void ipv4(byte[] b, int off, int end, FlowSampleState s) {
        if (end - off < 20) {
            return;
        }
        int b0 = b[off] & 0xff;
        if ((b0 >>> 4) != 4) {
            return;
        }
        int ihl = (b0 & 0x0f) * 4;
        if (ihl < 20 || Xdr.u16(b, off + 2) < ihl) {
            return;
        }
        s.ipVersion = 4;
        s.tos = b[off + 1] & 0xff;
        int protocol = b[off + 9] & 0xff;
        s.protocol = protocol;
        s.srcLo = V4_MAPPED | (Xdr.s32(b, off + 12) & 0xffff_ffffL);
        s.dstLo = V4_MAPPED | (Xdr.s32(b, off + 16) & 0xffff_ffffL);
        if ((Xdr.u16(b, off + 6) & 0x1fff) != 0 || end - off < ihl) {
            return; // a later fragment carries no ports; or the options are cut
        }
        transport(b, off + ihl, end, protocol, s);
    }

    private static void ipv6(byte[] b, int off, int end, FlowSampleState s) {
        if (end - off < 40) {
            return;
        }
        int first = Xdr.s32(b, off);
        if ((first >>> 28) != 6) {
            return;
        }
        s.ipVersion = 6;
        s.tos = (first >>> 20) & 0xff;
        int next = b[off + 6] & 0xff;
        s.srcHi = Xdr.u64(b, off + 8);
        s.srcLo = Xdr.u64(b, off + 16);
        s.dstHi = Xdr.u64(b, off + 24);
        s.dstLo = Xdr.u64(b, off + 32);
        off += 40;
        for (int i = 0; ; i++) {
            switch (next) {
                case 0, 43, 60, 135 -> {
                    // Hop-by-hop, routing, destination options, mobility: 8-octet units after 8.
                    if (i >= PacketParser.MAX_IPV6_EXTENSION_HEADERS || end - off < 8) {
                        return;
                    }
                    next = b[off] & 0xff;
                    off += 8 + (b[off + 1] & 0xff) * 8;
                }
                case 51 -> {
                    // AH: 4-octet units, minus 2.
                    if (i >= PacketParser.MAX_IPV6_EXTENSION_HEADERS || end - off < 8) {
                        return;
                    }
                    next = b[off] & 0xff;
                    off += ((b[off + 1] & 0xff) + 2) * 4;
                }
                case 44 -> {
                    if (i >= PacketParser.MAX_IPV6_EXTENSION_HEADERS || end - off < 8) {
                        return;
                    }
                    next = b[off] & 0xff;
                    int fragmentOffset = Xdr.u16(b, off + 2) >>> 3;
                    off += 8;
                    if (fragmentOffset != 0) {
                        s.protocol = next;
                        return;
                    }
                }
                default -> {
                    s.protocol = next;
                    if (off <= end) {
                        transport(b, off, end, next, s);
                    }
                    return;
                }
            }
        }
    }

    private static void transport(byte[] b, int off, int end, int protocol, FlowSampleState s) {
        switch (protocol) {
            case 6 -> {
                if (end - off >= 14) {
                    s.srcPort = Xdr.u16(b, off);
                    s.dstPort = Xdr.u16(b, off + 2);
                    s.tcpFlags = Xdr.u16(b, off + 12) & 0x01ff;
                }
            }
            case 17, 132, 136 -> {
                if (end - off >= 4) {
                    s.srcPort = Xdr.u16(b, off);
                    s.dstPort = Xdr.u16(b, off + 2);
                }
            }
            case 1, 58 -> {
                if (end - off >= 2) {
                    s.dstPort = Xdr.u16(b, off);
                }
            }
            default -> {
                // GRE, ESP and the rest: recorded by protocol number only.
            }
        }
    }

    private static long u48(byte[] b, int at) {
        return ((long) Xdr.u16(b, at) << 32) | (Xdr.s32(b, at + 2) & 0xffff_ffffL);
    }
}
