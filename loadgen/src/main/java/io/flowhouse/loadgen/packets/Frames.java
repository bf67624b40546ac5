// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.packets;

import io.flowhouse.codec.flow.IpAddress;
import java.nio.ByteBuffer;

/**
 * Builds Ethernet II frames with an IPv4 or IPv6 header and a UDP, TCP or ICMP header, cut at a
 * snap length as a capture shows them: the synthetic packet traces for the capture path. (Export
 * datagrams go into pcaps through the codec's {@code PcapWriter.writeUdp}.)
 */
public final class Frames {

    public static final int ETHERNET_HEADER = 14;
    public static final int IPV4_HEADER = 20;
    public static final int IPV6_HEADER = 40;
    public static final int UDP_HEADER = 8;
    public static final int TCP_HEADER = 20;
    public static final int ICMP_HEADER = 8;

    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86dd;

    private Frames() {}

    /** IP header length for an address family. */
    public static int ipHeader(boolean ipv6) {
        return ipv6 ? IPV6_HEADER : IPV4_HEADER;
    }

    /** Transport header length for a protocol (ICMP and anything unknown: 8). */
    public static int transportHeader(int protocol) {
        return protocol == 6 ? TCP_HEADER : protocol == 17 ? UDP_HEADER : ICMP_HEADER;
    }

    /**
     * Writes the first {@code snapLength} bytes of a packet of {@code ipLength} bytes at IP level
     * (headers, then zero payload), as a capture with that snap length shows it.
     *
     * @param icmpTypeCode for ICMP, type*256+code
     * @param ipId IPv4 identification (uint16), to tell packets apart
     * @return the captured length; the original length is {@code ETHERNET_HEADER + ipLength}
     */
    public static int packet(
            ByteBuffer out, long srcMac, long dstMac, PacketSpec p, int ipId, int snapLength) {
        boolean v6 = !p.src().isIpv4();
        int ipHeader = ipHeader(v6);
        int transport = transportHeader(p.protocol());
        if (p.ipLength() < ipHeader + transport) {
            throw new IllegalArgumentException(
                    "packet of "
                            + p.ipLength()
                            + " bytes cannot hold its headers (expected: >= "
                            + (ipHeader + transport)
                            + ")");
        }
        int start = out.position();
        ethernet(out, srcMac, dstMac, v6);
        ip(out, p.src(), p.dst(), p.protocol(), p.tos(), p.ipLength() - ipHeader, ipId);
        switch (p.protocol()) {
            case 6 -> {
                out.putShort((short) p.srcPort()).putShort((short) p.dstPort());
                out.putInt(p.tcpSeq()).putInt((p.tcpFlags() & 0x10) != 0 ? 1 : 0);
                out.putShort((short) ((5 << 12) | (p.tcpFlags() & 0x1ff)));
                out.putShort((short) 65_535).putShort((short) 0).putShort((short) 0);
            }
            case 17 -> {
                out.putShort((short) p.srcPort()).putShort((short) p.dstPort());
                out.putShort((short) (p.ipLength() - ipHeader)).putShort((short) 0);
            }
            default -> {
                out.put((byte) (p.dstPort() >>> 8)).put((byte) p.dstPort());
                out.putShort((short) 0).putInt(p.tcpSeq()); // checksum, identifier+sequence
            }
        }
        int wire = ETHERNET_HEADER + p.ipLength();
        int captured = Math.min(wire, Math.max(snapLength, out.position() - start));
        while (out.position() - start < captured) {
            out.put((byte) 0);
        }
        return captured;
    }

    /**
     * One packet to synthesize.
     *
     * @param ipLength bytes at IP level (IPv4 total length, IPv6 40 + payload length)
     * @param dstPort destination port; for ICMP type*256+code
     * @param tcpSeq TCP sequence number, or ICMP identifier/sequence
     */
    public record PacketSpec(
            IpAddress src,
            IpAddress dst,
            int protocol,
            int srcPort,
            int dstPort,
            int tcpFlags,
            int tos,
            int ipLength,
            int tcpSeq) {}

    private static void ethernet(ByteBuffer out, long srcMac, long dstMac, boolean v6) {
        putMac(out, dstMac);
        putMac(out, srcMac);
        out.putShort((short) (v6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4));
    }

    private static void putMac(ByteBuffer out, long mac) {
        for (int i = 5; i >= 0; i--) {
            out.put((byte) (mac >>> (8 * i)));
        }
    }

    /** Writes an IP header for {@code payloadLength} bytes of {@code protocol}. */
    private static void ip(
            ByteBuffer out,
            IpAddress src,
            IpAddress dst,
            int protocol,
            int tos,
            int payloadLength,
            int ipId) {
        if (src.isIpv4()) {
            int start = out.position();
            out.put((byte) 0x45).put((byte) tos).putShort((short) (IPV4_HEADER + payloadLength));
            out.putShort((short) ipId).putShort((short) 0x4000); // don't fragment
            out.put((byte) 64).put((byte) protocol).putShort((short) 0);
            out.putInt(src.ipv4()).putInt(dst.ipv4());
            out.putShort(start + 10, (short) checksum(0, out, start, IPV4_HEADER));
        } else {
            out.putInt((6 << 28) | ((tos & 0xff) << 20));
            out.putShort((short) payloadLength).put((byte) protocol).put((byte) 64);
            out.putLong(src.hi()).putLong(src.lo()).putLong(dst.hi()).putLong(dst.lo());
        }
    }

    /** Internet checksum (RFC 1071) of {@code length} bytes at {@code from}, plus {@code sum}. */
    static int checksum(long sum, ByteBuffer b, int from, int length) {
        int i = 0;
        for (; i + 1 < length; i += 2) {
            sum += b.getShort(from + i) & 0xffff;
        }
        if (i < length) {
            sum += (b.get(from + i) & 0xff) << 8;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        return (int) (~sum & 0xffff);
    }
}
