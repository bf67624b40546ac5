// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.packet;

import io.flowhouse.codec.flow.IpAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The value of a record on topic {@code packets.raw}: many {@link PacketSummary summaries} in one
 * compact, versioned binary batch. All integers are big-endian; varints are unsigned LEB128 (as
 * protobuf), signed ones zig-zag encoded.
 *
 * <pre>
 * batch header, 16 bytes:
 *   4   magic "FHPB" (0x46 0x48 0x50 0x42)
 *   1   format version, 1
 *   1   link type of the source (pcap LINKTYPE), informational
 *   2   reserved, 0
 *   4   summary count (uint32)
 *   4   reserved, 0
 * then per summary:
 *   1   flags: 0x01 IPv6 (16-byte addresses, else 4-byte IPv4), 0x02 outer VLAN, 0x04 inner
 *       VLAN, 0x08 MACs, 0x10 non-first fragment
 *   var zig-zag(timestampNanos - previous summary's timestampNanos; the first: minus 0)
 *   var interface index
 *   [2 outer VLAN id] [2 inner VLAN id] [6 destination MAC, 6 source MAC]
 *   4|16 source address, 4|16 destination address
 *   2   source port, 2 destination port (ICMP: type*256+code in the destination port)
 *   1   protocol, 1 ToS/traffic class, 1 TTL/hop limit
 *   2   TCP flags
 *   var IP length
 *   var wire length
 * </pre>
 *
 * A reader must reject an unknown format version. Summaries are about 40 bytes for IPv4 with MACs;
 * Kafka's batch compression (lz4) takes most of the rest.
 */
public final class PacketBatchCodec {

    /** Format version written by this code. */
    public static final int FORMAT_VERSION = 1;

    /** Size of the batch header. */
    public static final int HEADER_SIZE = 16;

    /** Largest encoded summary: flags, two 10-byte varints, VLANs, MACs, IPv6, fixed fields. */
    public static final int MAX_SUMMARY_SIZE = 1 + 10 + 5 + 4 + 12 + 32 + 4 + 3 + 2 + 5 + 5;

    private static final byte[] MAGIC = {'F', 'H', 'P', 'B'};

    private static final int F_IPV6 = 0x01;
    private static final int F_OUTER_VLAN = 0x02;
    private static final int F_INNER_VLAN = 0x04;
    private static final int F_MACS = 0x08;
    private static final int F_FRAGMENT = 0x10;

    private PacketBatchCodec() {}

    /** A new encoder with room for about {@code capacityBytes} before it grows. */
    public static Encoder encoder(int linkType, int capacityBytes) {
        return new Encoder(linkType, capacityBytes);
    }

    /**
     * Builds one batch. Reusable: {@link #finish()} returns the bytes and resets it. Not thread
     * safe.
     */
    public static final class Encoder {
        private final int linkType;
        private byte[] buf;
        private int pos;
        private int count;
        private long previousTimestamp;

        Encoder(int linkType, int capacityBytes) {
            this.linkType = linkType;
            this.buf = new byte[Math.max(HEADER_SIZE + MAX_SUMMARY_SIZE, capacityBytes)];
            reset();
        }

        private void reset() {
            pos = HEADER_SIZE;
            count = 0;
            previousTimestamp = 0;
        }

        public int count() {
            return count;
        }

        /** Bytes the batch would have if finished now. */
        public int size() {
            return pos;
        }

        public void add(PacketSummary s) {
            add(new PacketSummary.Builder().from(s));
        }

        /** Appends the summary held by the builder. */
        public void add(PacketSummary.Builder s) {
            if (buf.length - pos < MAX_SUMMARY_SIZE) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + MAX_SUMMARY_SIZE));
            }
            byte[] b = buf;
            int p = pos;
            boolean v6 = s.ipVersion == 6;
            int flags =
                    (v6 ? F_IPV6 : 0)
                            | (s.outerVlan != 0 ? F_OUTER_VLAN : 0)
                            | (s.innerVlan != 0 ? F_INNER_VLAN : 0)
                            | ((s.srcMac | s.dstMac) != 0 ? F_MACS : 0)
                            | (s.fragment ? F_FRAGMENT : 0);
            b[p++] = (byte) flags;
            long delta = s.timestampNanos - previousTimestamp;
            previousTimestamp = s.timestampNanos;
            p = varint(b, p, (delta << 1) ^ (delta >> 63));
            p = varint(b, p, s.interfaceIndex & 0xffff_ffffL);
            if (s.outerVlan != 0) {
                p = u16(b, p, s.outerVlan);
            }
            if (s.innerVlan != 0) {
                p = u16(b, p, s.innerVlan);
            }
            if ((flags & F_MACS) != 0) {
                p = u48(b, p, s.dstMac);
                p = u48(b, p, s.srcMac);
            }
            if (v6) {
                p = i64(b, p, s.srcHi);
                p = i64(b, p, s.srcLo);
                p = i64(b, p, s.dstHi);
                p = i64(b, p, s.dstLo);
            } else {
                p = i32(b, p, (int) s.srcLo);
                p = i32(b, p, (int) s.dstLo);
            }
            p = u16(b, p, s.srcPort);
            p = u16(b, p, s.dstPort);
            b[p++] = (byte) s.protocol;
            b[p++] = (byte) s.tos;
            b[p++] = (byte) s.ttl;
            p = u16(b, p, s.tcpFlags);
            p = varint(b, p, s.ipLength & 0xffff_ffffL);
            p = varint(b, p, s.wireLength & 0xffff_ffffL);
            pos = p;
            count++;
        }

        /** The finished batch; the encoder is empty afterwards. */
        public byte[] finish() {
            byte[] b = buf;
            System.arraycopy(MAGIC, 0, b, 0, 4);
            b[4] = FORMAT_VERSION;
            b[5] = (byte) linkType;
            b[6] = 0;
            b[7] = 0;
            i32(b, 8, count);
            i32(b, 12, 0);
            byte[] out = Arrays.copyOf(b, pos);
            reset();
            return out;
        }
    }

    /**
     * Decodes a batch.
     *
     * @throws IllegalArgumentException if the bytes are not a version-1 batch
     */
    public static List<PacketSummary> decode(byte[] batch) {
        ByteBuffer in = ByteBuffer.wrap(batch);
        if (batch.length < HEADER_SIZE
                || batch[0] != MAGIC[0]
                || batch[1] != MAGIC[1]
                || batch[2] != MAGIC[2]
                || batch[3] != MAGIC[3]) {
            throw new IllegalArgumentException("not a packet batch (magic \"FHPB\" missing)");
        }
        if (batch[4] != FORMAT_VERSION) {
            throw new IllegalArgumentException(
                    "packet batch format " + batch[4] + " (expected: " + FORMAT_VERSION + ")");
        }
        long count = in.getInt(8) & 0xffff_ffffL;
        if (count * 20 > batch.length) {
            throw new IllegalArgumentException(
                    "packet batch declares " + count + " summaries in " + batch.length + " bytes");
        }
        in.position(HEADER_SIZE);
        List<PacketSummary> out = new ArrayList<>((int) count);
        long ts = 0;
        try {
            for (long i = 0; i < count; i++) {
                int flags = in.get() & 0xff;
                long z = varint(in);
                ts += (z >>> 1) ^ -(z & 1);
                int ifIndex = (int) varint(in);
                int outer = (flags & F_OUTER_VLAN) != 0 ? in.getShort() & 0xffff : 0;
                int inner = (flags & F_INNER_VLAN) != 0 ? in.getShort() & 0xffff : 0;
                long dstMac = 0;
                long srcMac = 0;
                if ((flags & F_MACS) != 0) {
                    dstMac = u48(in);
                    srcMac = u48(in);
                }
                boolean v6 = (flags & F_IPV6) != 0;
                IpAddress src;
                IpAddress dst;
                if (v6) {
                    src = new IpAddress(in.getLong(), in.getLong());
                    dst = new IpAddress(in.getLong(), in.getLong());
                } else {
                    src = IpAddress.ofIpv4(in.getInt());
                    dst = IpAddress.ofIpv4(in.getInt());
                }
                int srcPort = in.getShort() & 0xffff;
                int dstPort = in.getShort() & 0xffff;
                int protocol = in.get() & 0xff;
                int tos = in.get() & 0xff;
                int ttl = in.get() & 0xff;
                int tcpFlags = in.getShort() & 0xffff;
                int ipLength = (int) varint(in);
                int wireLength = (int) varint(in);
                out.add(
                        new PacketSummary(
                                ts,
                                ifIndex,
                                outer,
                                inner,
                                srcMac,
                                dstMac,
                                v6 ? 6 : 4,
                                src,
                                dst,
                                srcPort,
                                dstPort,
                                protocol,
                                tos,
                                ttl,
                                tcpFlags,
                                ipLength,
                                wireLength,
                                (flags & F_FRAGMENT) != 0));
            }
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException(
                    "packet batch truncated after " + out.size() + " of " + count + " summaries",
                    e);
        }
        return out;
    }

    private static long varint(ByteBuffer in) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = in.get();
            v |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                return v;
            }
        }
        throw new IllegalArgumentException("varint longer than 10 bytes");
    }

    private static long u48(ByteBuffer in) {
        return ((long) (in.getShort() & 0xffff) << 32) | (in.getInt() & 0xffff_ffffL);
    }

    private static int varint(byte[] b, int p, long v) {
        while ((v & ~0x7fL) != 0) {
            b[p++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    private static int u16(byte[] b, int p, int v) {
        b[p] = (byte) (v >>> 8);
        b[p + 1] = (byte) v;
        return p + 2;
    }

    private static int u48(byte[] b, int p, long v) {
        for (int i = 0; i < 6; i++) {
            b[p + i] = (byte) (v >>> (40 - 8 * i));
        }
        return p + 6;
    }

    private static int i32(byte[] b, int p, int v) {
        b[p] = (byte) (v >>> 24);
        b[p + 1] = (byte) (v >>> 16);
        b[p + 2] = (byte) (v >>> 8);
        b[p + 3] = (byte) v;
        return p + 4;
    }

    private static int i64(byte[] b, int p, long v) {
        for (int i = 0; i < 8; i++) {
            b[p + i] = (byte) (v >>> (56 - 8 * i));
        }
        return p + 8;
    }
}
