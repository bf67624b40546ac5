// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.pcap;

import io.flowhouse.codec.flow.IpAddress;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes classic pcap files (little-endian, microsecond or nanosecond timestamps), and can wrap UDP
 * payloads in Ethernet/IPv4/IPv6/UDP headers so tools such as tshark and nfcapd-fed replayers read
 * them. Not thread-safe.
 */
public final class PcapWriter implements AutoCloseable {

    private final OutputStream out;
    private final boolean nanos;
    private final int linkType;
    private final ByteBuffer recordHeader = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
    private long packets;

    public PcapWriter(OutputStream out, int linkType, boolean nanos, int snaplen)
            throws IOException {
        this.out = out;
        this.nanos = nanos;
        this.linkType = linkType;
        ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(nanos ? PcapReader.MAGIC_NANO : PcapReader.MAGIC_MICRO);
        h.putShort((short) 2).putShort((short) 4);
        h.putInt(0).putInt(0).putInt(snaplen).putInt(linkType);
        out.write(h.array());
    }

    /** A new Ethernet pcap file. */
    public static PcapWriter create(Path file, boolean nanos) throws IOException {
        return new PcapWriter(
                new BufferedOutputStream(Files.newOutputStream(file), 1 << 16),
                UdpDatagramExtractor.LINKTYPE_ETHERNET,
                nanos,
                PcapReader.MAX_PACKET);
    }

    public int linkType() {
        return linkType;
    }

    /** Writes one frame (from its position to its limit; the position is not moved). */
    public void write(long timestampNanos, ByteBuffer frame, int originalLength)
            throws IOException {
        int len = frame.remaining();
        recordHeader.clear();
        recordHeader.putInt((int) (timestampNanos / 1_000_000_000L));
        long frac = timestampNanos % 1_000_000_000L;
        recordHeader.putInt((int) (nanos ? frac : frac / 1000L));
        recordHeader.putInt(len);
        recordHeader.putInt(Math.max(len, originalLength));
        out.write(recordHeader.array());
        if (frame.hasArray()) {
            out.write(frame.array(), frame.arrayOffset() + frame.position(), len);
        } else {
            byte[] b = new byte[len];
            frame.duplicate().get(b);
            out.write(b);
        }
        packets++;
    }

    /** Writes a UDP datagram as an Ethernet frame (IPv4 or IPv6 by the source address). */
    public void writeUdp(
            long timestampNanos,
            IpAddress src,
            int srcPort,
            IpAddress dst,
            int dstPort,
            ByteBuffer payload)
            throws IOException {
        ByteBuffer f = udpFrame(src, srcPort, dst, dstPort, payload);
        write(timestampNanos, f, f.remaining());
    }

    /** Builds Ethernet + IP + UDP around a payload, with valid IPv4 and UDP checksums. */
    public static ByteBuffer udpFrame(
            IpAddress src, int srcPort, IpAddress dst, int dstPort, ByteBuffer payload) {
        boolean v4 = src.isIpv4() && dst.isIpv4();
        int plen = payload.remaining();
        int ipLen = v4 ? 20 : 40;
        ByteBuffer f = ByteBuffer.allocate(14 + ipLen + 8 + plen);
        f.put(new byte[] {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1});
        f.putShort(
                (short)
                        (v4
                                ? UdpDatagramExtractor.ETHERTYPE_IPV4
                                : UdpDatagramExtractor.ETHERTYPE_IPV6));
        int ip = f.position();
        if (v4) {
            f.put((byte) 0x45).put((byte) 0).putShort((short) (20 + 8 + plen));
            f.putShort((short) 0)
                    .putShort((short) 0x4000)
                    .put((byte) 64)
                    .put((byte) 17)
                    .putShort((short) 0);
            f.putInt(src.ipv4()).putInt(dst.ipv4());
            f.putShort(ip + 10, (short) checksum(f, ip, 20, 0));
        } else {
            f.putInt(0x6000_0000).putShort((short) (8 + plen)).put((byte) 17).put((byte) 64);
            f.putLong(src.hi()).putLong(src.lo()).putLong(dst.hi()).putLong(dst.lo());
        }
        int udp = f.position();
        f.putShort((short) srcPort)
                .putShort((short) dstPort)
                .putShort((short) (8 + plen))
                .putShort((short) 0);
        f.put(payload.duplicate());
        long pseudo = 17 + 8 + plen;
        if (v4) {
            pseudo += sum16(f, ip + 12, 8);
        } else {
            pseudo += sum16(f, ip + 8, 32);
        }
        int c = checksum(f, udp, 8 + plen, pseudo);
        f.putShort(udp + 6, (short) (c == 0 ? 0xffff : c));
        f.flip();
        return f;
    }

    private static long sum16(ByteBuffer b, int off, int len) {
        long s = 0;
        for (int i = 0; i + 1 < len; i += 2) {
            s += b.getShort(off + i) & 0xffff;
        }
        if ((len & 1) != 0) {
            s += (b.get(off + len - 1) & 0xff) << 8;
        }
        return s;
    }

    private static int checksum(ByteBuffer b, int off, int len, long initial) {
        long s = initial + sum16(b, off, len);
        while ((s >>> 16) != 0) {
            s = (s & 0xffff) + (s >>> 16);
        }
        return (int) (~s & 0xffff);
    }

    public long packets() {
        return packets;
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
