// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.packet;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Parses a captured frame into a {@link PacketSummary.Builder}: Ethernet II with up to two
 * 802.1Q/802.1ad tags (more are skipped), Linux cooked capture v1/v2, raw IP and BSD/OpenBSD
 * loopback link layers; IPv4 (fragments: only the first carries ports) and IPv6 with its extension
 * header chain (hop-by-hop, routing, fragment, destination options, AH, mobility); TCP, UDP,
 * UDP-Lite and SCTP ports, TCP flags, ICMP/ICMPv6 type and code. GRE, ESP and other protocols are
 * recorded by number without following their payload.
 *
 * <p>Pure and allocation free: absolute reads from the buffer (its position is not changed), every
 * read bounds-checked first; a bad frame returns a {@link ParseResult} and never throws.
 */
public final class PacketParser {

    /** pcap LINKTYPE_NULL: BSD loopback, 4-byte address family in host order. */
    public static final int LINKTYPE_NULL = 0;

    /** pcap LINKTYPE_LOOP: OpenBSD loopback, 4-byte address family in network order. */
    public static final int LINKTYPE_LOOP = 108;

    /** pcap LINKTYPE_ETHERNET. */
    public static final int LINKTYPE_ETHERNET = 1;

    /** pcap LINKTYPE_RAW (DLT 12 on some systems is mapped to this by libpcap). */
    public static final int LINKTYPE_RAW = 101;

    /** pcap LINKTYPE_LINUX_SLL. */
    public static final int LINKTYPE_LINUX_SLL = 113;

    /** pcap LINKTYPE_IPV4. */
    public static final int LINKTYPE_IPV4 = 228;

    /** pcap LINKTYPE_IPV6. */
    public static final int LINKTYPE_IPV6 = 229;

    /** pcap LINKTYPE_LINUX_SLL2. */
    public static final int LINKTYPE_LINUX_SLL2 = 276;

    /** Most IPv6 extension headers followed before giving up (RFC 8200 allows few in practice). */
    public static final int MAX_IPV6_EXTENSION_HEADERS = 8;

    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86dd;
    private static final int ETHERTYPE_VLAN = 0x8100;
    private static final int ETHERTYPE_QINQ = 0x88a8;
    private static final int ETHERTYPE_QINQ_OLD = 0x9100;

    private PacketParser() {}

    /**
     * Parses one frame.
     *
     * @param frame the captured bytes, from position to limit
     * @param linkType pcap LINKTYPE of the capture
     * @param timestampNanos capture time, epoch ns
     * @param wireLength original frame length (pcap orig_len)
     * @param interfaceIndex capture interface index
     * @param out receives the summary; cleared first; meaningful only when {@code OK} is returned
     */
    public static ParseResult parse(
            ByteBuffer frame,
            int linkType,
            long timestampNanos,
            int wireLength,
            int interfaceIndex,
            PacketSummary.Builder out) {
        if (frame.order() != ByteOrder.BIG_ENDIAN) {
            frame = frame.duplicate().order(ByteOrder.BIG_ENDIAN);
        }
        out.clear();
        out.timestampNanos = timestampNanos;
        out.wireLength = wireLength;
        out.interfaceIndex = interfaceIndex;
        int off = frame.position();
        int end = frame.limit();
        switch (linkType) {
            case LINKTYPE_ETHERNET:
                return ethernet(frame, off, end, out);
            case LINKTYPE_RAW:
                return rawIp(frame, off, end, out);
            case LINKTYPE_IPV4:
                return ipv4(frame, off, end, out);
            case LINKTYPE_IPV6:
                return ipv6(frame, off, end, out);
            case LINKTYPE_LINUX_SLL:
                if (end - off < 16) {
                    return ParseResult.TRUNCATED_LINK_HEADER;
                }
                return etherType(frame, off + 16, end, u16(frame, off + 14), out);
            case LINKTYPE_LINUX_SLL2:
                if (end - off < 20) {
                    return ParseResult.TRUNCATED_LINK_HEADER;
                }
                return etherType(frame, off + 20, end, u16(frame, off), out);
            case LINKTYPE_NULL:
            case LINKTYPE_LOOP:
                if (end - off < 4) {
                    return ParseResult.TRUNCATED_LINK_HEADER;
                }
                return rawIp(frame, off + 4, end, out);
            default:
                return ParseResult.UNSUPPORTED_LINK_TYPE;
        }
    }

    private static ParseResult ethernet(ByteBuffer f, int off, int end, PacketSummary.Builder out) {
        if (end - off < 14) {
            return ParseResult.TRUNCATED_LINK_HEADER;
        }
        out.dstMac = u48(f, off);
        out.srcMac = u48(f, off + 6);
        int type = u16(f, off + 12);
        off += 14;
        int tags = 0;
        while (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ || type == ETHERTYPE_QINQ_OLD) {
            if (end - off < 4) {
                return ParseResult.TRUNCATED_VLAN_TAG;
            }
            int vid = u16(f, off) & 0x0fff;
            if (tags == 0) {
                out.outerVlan = vid;
            } else if (tags == 1) {
                out.innerVlan = vid;
            }
            tags++;
            type = u16(f, off + 2);
            off += 4;
        }
        return etherType(f, off, end, type, out);
    }

    private static ParseResult etherType(
            ByteBuffer f, int off, int end, int type, PacketSummary.Builder out) {
        if (type == ETHERTYPE_IPV4) {
            return ipv4(f, off, end, out);
        }
        if (type == ETHERTYPE_IPV6) {
            return ipv6(f, off, end, out);
        }
        return ParseResult.NOT_IP;
    }

    private static ParseResult rawIp(ByteBuffer f, int off, int end, PacketSummary.Builder out) {
        if (end - off < 1) {
            return ParseResult.TRUNCATED_IP_HEADER;
        }
        int version = (f.get(off) & 0xff) >>> 4;
        if (version == 4) {
            return ipv4(f, off, end, out);
        }
        if (version == 6) {
            return ipv6(f, off, end, out);
        }
        return ParseResult.BAD_IP_VERSION;
    }

    private static ParseResult ipv4(ByteBuffer f, int off, int end, PacketSummary.Builder out) {
        if (end - off < 20) {
            return ParseResult.TRUNCATED_IP_HEADER;
        }
        int b0 = f.get(off) & 0xff;
        if ((b0 >>> 4) != 4) {
            return ParseResult.BAD_IP_VERSION;
        }
        int ihl = (b0 & 0x0f) * 4;
        int totalLength = u16(f, off + 2);
        if (ihl < 20 || totalLength < ihl) {
            return ParseResult.BAD_IP_HEADER_LENGTH;
        }
        out.ipVersion = 4;
        out.tos = f.get(off + 1) & 0xff;
        out.ipLength = totalLength;
        int fragment = u16(f, off + 6);
        out.ttl = f.get(off + 8) & 0xff;
        out.protocol = f.get(off + 9) & 0xff;
        out.srcHi = 0;
        out.srcLo = 0x0000_ffff_0000_0000L | (f.getInt(off + 12) & 0xffff_ffffL);
        out.dstHi = 0;
        out.dstLo = 0x0000_ffff_0000_0000L | (f.getInt(off + 16) & 0xffff_ffffL);
        if ((fragment & 0x1fff) != 0) {
            out.fragment = true;
            return ParseResult.OK;
        }
        if (end - off < ihl) {
            return ParseResult.TRUNCATED_IP_HEADER;
        }
        return transport(f, off + ihl, end, out.protocol, out);
    }

    private static ParseResult ipv6(ByteBuffer f, int off, int end, PacketSummary.Builder out) {
        if (end - off < 40) {
            return ParseResult.TRUNCATED_IP_HEADER;
        }
        int first = f.getInt(off);
        if ((first >>> 28) != 6) {
            return ParseResult.BAD_IP_VERSION;
        }
        out.ipVersion = 6;
        out.tos = (first >>> 20) & 0xff;
        out.ipLength = u16(f, off + 4) + 40;
        int next = f.get(off + 6) & 0xff;
        out.ttl = f.get(off + 7) & 0xff;
        out.srcHi = f.getLong(off + 8);
        out.srcLo = f.getLong(off + 16);
        out.dstHi = f.getLong(off + 24);
        out.dstLo = f.getLong(off + 32);
        off += 40;
        for (int i = 0; ; i++) {
            switch (next) {
                case 0, 43, 60, 135 -> {
                    // Hop-by-hop, routing, destination options, mobility: length in 8-octet units,
                    // not counting the first 8.
                    if (i >= MAX_IPV6_EXTENSION_HEADERS || end - off < 8) {
                        return ParseResult.BAD_IPV6_EXTENSION_HEADER;
                    }
                    next = f.get(off) & 0xff;
                    off += 8 + (f.get(off + 1) & 0xff) * 8;
                }
                case 51 -> {
                    // AH: length in 4-octet units, minus 2.
                    if (i >= MAX_IPV6_EXTENSION_HEADERS || end - off < 8) {
                        return ParseResult.BAD_IPV6_EXTENSION_HEADER;
                    }
                    next = f.get(off) & 0xff;
                    off += ((f.get(off + 1) & 0xff) + 2) * 4;
                }
                case 44 -> {
                    if (i >= MAX_IPV6_EXTENSION_HEADERS || end - off < 8) {
                        return ParseResult.BAD_IPV6_EXTENSION_HEADER;
                    }
                    next = f.get(off) & 0xff;
                    int fragmentOffset = u16(f, off + 2) >>> 3;
                    off += 8;
                    if (fragmentOffset != 0) {
                        out.protocol = next;
                        out.fragment = true;
                        return ParseResult.OK;
                    }
                }
                default -> {
                    out.protocol = next;
                    if (off > end) {
                        return ParseResult.BAD_IPV6_EXTENSION_HEADER;
                    }
                    return transport(f, off, end, next, out);
                }
            }
        }
    }

    private static ParseResult transport(
            ByteBuffer f, int off, int end, int protocol, PacketSummary.Builder out) {
        switch (protocol) {
            case 6 -> {
                if (end - off < 14) {
                    return ParseResult.TRUNCATED_TRANSPORT_HEADER;
                }
                out.srcPort = u16(f, off);
                out.dstPort = u16(f, off + 2);
                out.tcpFlags = u16(f, off + 12) & 0x01ff;
            }
            case 17, 132, 136 -> {
                if (end - off < 4) {
                    return ParseResult.TRUNCATED_TRANSPORT_HEADER;
                }
                out.srcPort = u16(f, off);
                out.dstPort = u16(f, off + 2);
            }
            case 1, 58 -> {
                if (end - off < 2) {
                    return ParseResult.TRUNCATED_TRANSPORT_HEADER;
                }
                out.dstPort = u16(f, off);
            }
            default -> {
                // GRE, ESP and the rest: recorded by protocol number only.
            }
        }
        return ParseResult.OK;
    }

    private static int u16(ByteBuffer f, int at) {
        return f.getShort(at) & 0xffff;
    }

    private static long u48(ByteBuffer f, int at) {
        return ((long) u16(f, at) << 32) | (f.getInt(at + 2) & 0xffff_ffffL);
    }
}
