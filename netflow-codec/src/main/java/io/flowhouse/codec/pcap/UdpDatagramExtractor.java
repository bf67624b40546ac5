// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.pcap;

import io.flowhouse.codec.flow.IpAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Finds the UDP datagram in a captured frame: Ethernet (with 802.1Q/802.1ad/QinQ tags), Linux
 * cooked (SLL, SLL2), raw IP, BSD loopback; IPv4 (options) and IPv6 (extension headers); UDP.
 * Fragments are not reassembled (counted and skipped); frames cut by the snap length are skipped.
 * Counts what it skips, so it is not thread-safe.
 */
public final class UdpDatagramExtractor {

    public static final int LINKTYPE_NULL = 0;
    public static final int LINKTYPE_ETHERNET = 1;
    public static final int LINKTYPE_RAW = 101;
    public static final int LINKTYPE_LOOP = 108;
    public static final int LINKTYPE_LINUX_SLL = 113;
    public static final int LINKTYPE_IPV4 = 228;
    public static final int LINKTYPE_IPV6 = 229;
    public static final int LINKTYPE_LINUX_SLL2 = 276;

    static final int ETHERTYPE_IPV4 = 0x0800;
    static final int ETHERTYPE_IPV6 = 0x86dd;
    static final int PROTO_UDP = 17;

    /** Most VLAN tags walked in one frame. */
    static final int MAX_VLAN_TAGS = 4;

    /** Most IPv6 extension headers walked. */
    static final int MAX_EXTENSION_HEADERS = 8;

    private long notUdp;
    private long fragments;
    private long truncated;
    private long unsupportedLink;

    /** The UDP datagram in a frame, or null if there is none (counted by reason). */
    public UdpDatagram extract(int linkType, ByteBuffer frame, long timestampNanos) {
        ByteBuffer f = frame.duplicate().order(ByteOrder.BIG_ENDIAN);
        int p = f.position();
        int end = f.limit();
        int etherType;
        switch (linkType) {
            case LINKTYPE_ETHERNET:
                if (end - p < 14) {
                    truncated++;
                    return null;
                }
                etherType = f.getShort(p + 12) & 0xffff;
                p += 14;
                int tags = 0;
                while ((etherType == 0x8100 || etherType == 0x88a8 || etherType == 0x9100)
                        && tags < MAX_VLAN_TAGS) {
                    if (end - p < 4) {
                        truncated++;
                        return null;
                    }
                    etherType = f.getShort(p + 2) & 0xffff;
                    p += 4;
                    tags++;
                }
                break;
            case LINKTYPE_LINUX_SLL:
                if (end - p < 16) {
                    truncated++;
                    return null;
                }
                etherType = f.getShort(p + 14) & 0xffff;
                p += 16;
                break;
            case LINKTYPE_LINUX_SLL2:
                if (end - p < 20) {
                    truncated++;
                    return null;
                }
                etherType = f.getShort(p) & 0xffff;
                p += 20;
                break;
            case LINKTYPE_NULL:
            case LINKTYPE_LOOP:
                if (end - p < 4) {
                    truncated++;
                    return null;
                }
                int af = f.getInt(p);
                if (linkType == LINKTYPE_NULL && (af & 0xffff) == 0) {
                    af = Integer.reverseBytes(af); // host byte order of the capturing machine
                }
                etherType =
                        af == 2
                                ? ETHERTYPE_IPV4
                                : af == 24 || af == 28 || af == 30 ? ETHERTYPE_IPV6 : -1;
                p += 4;
                break;
            case LINKTYPE_RAW:
            case LINKTYPE_IPV4:
            case LINKTYPE_IPV6:
                if (end - p < 1) {
                    truncated++;
                    return null;
                }
                etherType = (f.get(p) & 0xf0) == 0x60 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4;
                break;
            default:
                unsupportedLink++;
                return null;
        }
        if (etherType == ETHERTYPE_IPV4) {
            return ipv4(f, p, end, timestampNanos);
        }
        if (etherType == ETHERTYPE_IPV6) {
            return ipv6(f, p, end, timestampNanos);
        }
        notUdp++;
        return null;
    }

    private UdpDatagram ipv4(ByteBuffer f, int p, int end, long ts) {
        if (end - p < 20) {
            truncated++;
            return null;
        }
        int vihl = f.get(p) & 0xff;
        int ihl = (vihl & 0x0f) * 4;
        if ((vihl >>> 4) != 4 || ihl < 20) {
            notUdp++;
            return null;
        }
        int total = f.getShort(p + 2) & 0xffff;
        int flagsFrag = f.getShort(p + 6) & 0xffff;
        int proto = f.get(p + 9) & 0xff;
        if (proto != PROTO_UDP) {
            notUdp++;
            return null;
        }
        if ((flagsFrag & 0x3fff) != 0) {
            fragments++;
            return null;
        }
        if (total < ihl || end - p < total) {
            truncated++;
            return null;
        }
        IpAddress src = IpAddress.ofIpv4(f.getInt(p + 12));
        IpAddress dst = IpAddress.ofIpv4(f.getInt(p + 16));
        return udp(f, p + ihl, p + total, src, dst, ts);
    }

    private UdpDatagram ipv6(ByteBuffer f, int p, int end, long ts) {
        if (end - p < 40) {
            truncated++;
            return null;
        }
        if ((f.get(p) & 0xf0) != 0x60) {
            notUdp++;
            return null;
        }
        int payloadLen = f.getShort(p + 4) & 0xffff;
        int next = f.get(p + 6) & 0xff;
        IpAddress src = new IpAddress(f.getLong(p + 8), f.getLong(p + 16));
        IpAddress dst = new IpAddress(f.getLong(p + 24), f.getLong(p + 32));
        int limit = p + 40 + payloadLen;
        if (limit > end) {
            truncated++;
            return null;
        }
        p += 40;
        for (int i = 0; i < MAX_EXTENSION_HEADERS && next != PROTO_UDP; i++) {
            if (limit - p < 8) {
                truncated++;
                return null;
            }
            if (next == 0 || next == 43 || next == 60) {
                int hdrLen = ((f.get(p + 1) & 0xff) + 1) * 8;
                next = f.get(p) & 0xff;
                p += hdrLen;
            } else if (next == 44) {
                int off = f.getShort(p + 2) & 0xffff;
                if ((off & 0xfff9) != 0) {
                    fragments++;
                    return null;
                }
                next = f.get(p) & 0xff;
                p += 8;
            } else if (next == 51) {
                int hdrLen = ((f.get(p + 1) & 0xff) + 2) * 4;
                next = f.get(p) & 0xff;
                p += hdrLen;
            } else {
                break;
            }
        }
        if (next != PROTO_UDP) {
            notUdp++;
            return null;
        }
        return udp(f, p, limit, src, dst, ts);
    }

    private UdpDatagram udp(ByteBuffer f, int p, int limit, IpAddress src, IpAddress dst, long ts) {
        if (limit - p < 8) {
            truncated++;
            return null;
        }
        int srcPort = f.getShort(p) & 0xffff;
        int dstPort = f.getShort(p + 2) & 0xffff;
        int len = f.getShort(p + 4) & 0xffff;
        if (len < 8 || len > limit - p) {
            truncated++;
            return null;
        }
        ByteBuffer payload = f.slice(p + 8, len - 8).order(ByteOrder.BIG_ENDIAN);
        return new UdpDatagram(ts, src, srcPort, dst, dstPort, payload);
    }

    public long notUdp() {
        return notUdp;
    }

    public long fragments() {
        return fragments;
    }

    public long truncated() {
        return truncated;
    }

    public long unsupportedLink() {
        return unsupportedLink;
    }
}
