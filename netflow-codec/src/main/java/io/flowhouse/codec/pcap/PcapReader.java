// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.pcap;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Reads pcap files without a native library: classic pcap in both byte orders with microsecond or
 * nanosecond timestamps, and pcapng (section header, interface description, enhanced and simple
 * packet blocks, any byte order, {@code if_tsresol}). The file is memory-mapped in windows, so
 * files larger than 2 GB work; a cursor API ({@link #next()} then the accessors) allocates nothing
 * per packet. Not thread-safe.
 */
public final class PcapReader implements AutoCloseable {

    /** Largest captured packet accepted (libpcap's MAXIMUM_SNAPLEN). */
    public static final int MAX_PACKET = 262_144;

    static final int MAGIC_MICRO = 0xa1b2c3d4;
    static final int MAGIC_NANO = 0xa1b23c4d;
    static final int PCAPNG_SHB = 0x0a0d0d0a;
    static final int PCAPNG_BYTE_ORDER_MAGIC = 0x1a2b3c4d;
    static final int PCAPNG_IDB = 1;
    static final int PCAPNG_SPB = 3;
    static final int PCAPNG_EPB = 6;
    static final long WINDOW = 1L << 28;

    private final FileChannel channel;
    private final long size;
    private final boolean pcapng;
    private MappedByteBuffer window;
    private long windowStart;
    private long pos;
    private ByteOrder order;
    private boolean nanos;
    private int classicLinkType;
    private final List<long[]> interfaces =
            new ArrayList<>(); // {linkType, ticksPerSecond, snaplen}

    private long tsNanos;
    private int linkType;
    private int capLen;
    private int origLen;
    private ByteBuffer packet;
    private long packets;

    private PcapReader(FileChannel channel) throws IOException {
        this.channel = channel;
        this.size = channel.size();
        if (size < 24) {
            throw new PcapFormatException(
                    "file of " + size + " bytes is too short for a pcap header");
        }
        map(0);
        int magicBe = window.order(ByteOrder.BIG_ENDIAN).getInt(0);
        int magicLe = Integer.reverseBytes(magicBe);
        if (magicBe == PCAPNG_SHB) {
            pcapng = true;
            pos = 0;
            order = ByteOrder.BIG_ENDIAN;
        } else {
            pcapng = false;
            if (magicBe == MAGIC_MICRO || magicBe == MAGIC_NANO) {
                order = ByteOrder.BIG_ENDIAN;
                nanos = magicBe == MAGIC_NANO;
            } else if (magicLe == MAGIC_MICRO || magicLe == MAGIC_NANO) {
                order = ByteOrder.LITTLE_ENDIAN;
                nanos = magicLe == MAGIC_NANO;
            } else {
                throw new PcapFormatException(
                        String.format("unknown magic 0x%08x (expected: pcap or pcapng)", magicBe));
            }
            classicLinkType = window.order(order).getInt(20) & 0x0fff_ffff;
            pos = 24;
        }
    }

    /** Opens and maps a file; close it to unmap. */
    public static PcapReader open(Path file) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        try {
            return new PcapReader(ch);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    private void map(long at) throws IOException {
        windowStart = at;
        window = channel.map(FileChannel.MapMode.READ_ONLY, at, Math.min(WINDOW, size - at));
    }

    /** Makes bytes [at, at+len) addressable; returns their offset in the window. */
    private int ensure(long at, int len) throws IOException {
        if (at < windowStart || at + len > windowStart + window.capacity()) {
            map(at);
        }
        return (int) (at - windowStart);
    }

    /** Link type of a classic pcap file, or of the first pcapng interface (-1 if none yet). */
    public int linkType() {
        if (!pcapng) {
            return classicLinkType;
        }
        return interfaces.isEmpty() ? -1 : (int) interfaces.get(0)[0];
    }

    public boolean isPcapng() {
        return pcapng;
    }

    /** True for classic nanosecond pcap. */
    public boolean isNanosecond() {
        return nanos;
    }

    /**
     * Advances to the next packet.
     *
     * @return false at the end of the file (a truncated last record also ends it)
     * @throws PcapFormatException if a record header is impossible
     */
    public boolean next() throws IOException {
        return pcapng ? nextBlock() : nextClassic();
    }

    private boolean nextClassic() throws IOException {
        if (size - pos < 16) {
            return false;
        }
        int o = ensure(pos, 16);
        ByteBuffer w = window.order(order);
        long sec = w.getInt(o) & 0xffff_ffffL;
        long frac = w.getInt(o + 4) & 0xffff_ffffL;
        int incl = w.getInt(o + 8);
        int orig = w.getInt(o + 12);
        if (incl < 0 || incl > MAX_PACKET) {
            throw new PcapFormatException(
                    "record at offset "
                            + pos
                            + " claims "
                            + (incl & 0xffff_ffffL)
                            + " captured bytes (expected: <= "
                            + MAX_PACKET
                            + ")");
        }
        if (size - pos - 16 < incl) {
            return false;
        }
        int d = ensure(pos + 16, incl);
        tsNanos = sec * 1_000_000_000L + (nanos ? frac : frac * 1000L);
        linkType = classicLinkType;
        capLen = incl;
        origLen = orig;
        packet = slice(d, incl);
        pos += 16 + incl;
        packets++;
        return true;
    }

    private ByteBuffer slice(int offset, int len) {
        return window.slice(offset, len).order(ByteOrder.BIG_ENDIAN).asReadOnlyBuffer();
    }

    private boolean nextBlock() throws IOException {
        while (size - pos >= 12) {
            int o = ensure(pos, 12);
            int type = window.order(order).getInt(o);
            if (type == PCAPNG_SHB) {
                int bom = window.order(ByteOrder.BIG_ENDIAN).getInt(o + 8);
                if (bom == PCAPNG_BYTE_ORDER_MAGIC) {
                    order = ByteOrder.BIG_ENDIAN;
                } else if (Integer.reverseBytes(bom) == PCAPNG_BYTE_ORDER_MAGIC) {
                    order = ByteOrder.LITTLE_ENDIAN;
                } else {
                    throw new PcapFormatException("bad pcapng byte-order magic at offset " + pos);
                }
                interfaces.clear();
            }
            long len = window.order(order).getInt(o + 4) & 0xffff_ffffL;
            if (len < 12 || len % 4 != 0 || len > MAX_PACKET + 64L) {
                throw new PcapFormatException(
                        "pcapng block at offset " + pos + " of length " + len);
            }
            if (size - pos < len) {
                return false;
            }
            int b = ensure(pos, (int) len);
            ByteBuffer w = window.order(order);
            long blockStart = pos;
            pos += len;
            if (type == PCAPNG_IDB) {
                interfaces.add(interfaceDescription(w, b, (int) len));
            } else if (type == PCAPNG_EPB && len >= 32) {
                int ifc = w.getInt(b + 8);
                long ts =
                        ((w.getInt(b + 12) & 0xffff_ffffL) << 32)
                                | (w.getInt(b + 16) & 0xffff_ffffL);
                int incl = w.getInt(b + 20);
                if (incl < 0 || incl > len - 32 || ifc < 0 || ifc >= interfaces.size()) {
                    throw new PcapFormatException(
                            "bad enhanced packet block at offset " + blockStart);
                }
                long[] idb = interfaces.get(ifc);
                return packet(idb, ts, incl, w.getInt(b + 24), b + 28);
            } else if (type == PCAPNG_SPB && len >= 16 && !interfaces.isEmpty()) {
                long[] idb = interfaces.get(0);
                int orig = w.getInt(b + 8);
                int incl =
                        (int)
                                Math.min(
                                        len - 16,
                                        Math.min(
                                                orig & 0xffff_ffffL,
                                                idb[2] == 0 ? MAX_PACKET : idb[2]));
                return packet(idb, -1, incl, orig, b + 12);
            }
        }
        return false;
    }

    private boolean packet(long[] idb, long ticks, int incl, int orig, int dataOffset) {
        long perSecond = idb[1];
        if (ticks < 0) {
            tsNanos = 0;
        } else if (perSecond == 1_000_000_000L) {
            tsNanos = ticks;
        } else {
            long sec = Long.divideUnsigned(ticks, perSecond);
            long rem = Long.remainderUnsigned(ticks, perSecond);
            tsNanos = sec * 1_000_000_000L + rem * 1_000_000_000L / perSecond;
        }
        linkType = (int) idb[0];
        capLen = incl;
        origLen = orig;
        packet = slice(dataOffset, incl);
        packets++;
        return true;
    }

    private static long[] interfaceDescription(ByteBuffer w, int b, int len) {
        long link = w.getShort(b + 8) & 0xffff;
        long snap = w.getInt(b + 12) & 0xffff_ffffL;
        long perSecond = 1_000_000L;
        int p = b + 16;
        int end = b + len - 4;
        while (end - p >= 4) {
            int code = w.getShort(p) & 0xffff;
            int olen = w.getShort(p + 2) & 0xffff;
            if (code == 0) {
                break;
            }
            if (code == 9 && olen >= 1 && p + 4 < end) {
                int r = w.get(p + 4) & 0xff;
                int exp = r & 0x7f;
                if ((r & 0x80) == 0 && exp <= 18) {
                    perSecond = 1;
                    for (int i = 0; i < exp; i++) {
                        perSecond *= 10;
                    }
                } else if ((r & 0x80) != 0 && exp <= 62) {
                    perSecond = 1L << exp;
                }
            }
            p += 4 + ((olen + 3) & ~3);
        }
        return new long[] {link, perSecond, snap};
    }

    public long timestampNanos() {
        return tsNanos;
    }

    public int packetLinkType() {
        return linkType;
    }

    public int capturedLength() {
        return capLen;
    }

    public int originalLength() {
        return origLen;
    }

    /** The current packet's bytes (big-endian, read-only view into the mapping). */
    public ByteBuffer packet() {
        return packet;
    }

    /** Packets read so far. */
    public long packetCount() {
        return packets;
    }

    /** The current packet as a value. */
    public PcapPacket current() {
        return new PcapPacket(tsNanos, linkType, origLen, packet);
    }

    /** Calls {@code action} for each remaining packet. */
    public void forEach(Consumer<PcapPacket> action) throws IOException {
        while (next()) {
            action.accept(current());
        }
    }

    @Override
    public void close() throws IOException {
        window = null;
        packet = null;
        channel.close();
    }
}
