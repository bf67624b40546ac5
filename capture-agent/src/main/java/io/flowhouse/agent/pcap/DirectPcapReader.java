// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.pcap;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import org.pcap4j.core.PcapHandle;

/**
 * The live-capture hot path: {@code pcap_next_ex} called through a JNA <em>direct</em> mapping on
 * the {@code pcap_t} that pcap4j opened, the header read at its offsets and the captured bytes
 * copied into one reused array. pcap4j's own {@code getNextRawPacket} allocates a JNA {@code
 * Structure} (native memory and a cleaner), reads it by reflection, builds a {@code Timestamp} and
 * a fresh {@code byte[]} per packet and takes a lock; here a packet costs one native call and a few
 * memory reads. pcap4j still opens the handle, compiles the filter and reads the statistics.
 *
 * <p>Not thread safe: the capture thread owns it, and the handle must stay open while it is used.
 */
final class DirectPcapReader {

    /** {@code pcap_next_ex}: 1 packet, 0 none (non-blocking or timeout), -1 error, -2 end. */
    static final int PACKET = 1;

    private static final boolean AVAILABLE;

    private static final boolean MAC = Platform.isMac();

    static {
        boolean ok;
        try {
            Native.register(
                    DirectPcapReader.class,
                    NativeLibrary.getInstance(
                            System.getProperty("org.pcap4j.core.pcapLibName", "pcap")));
            ok = true;
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            ok = false;
        }
        AVAILABLE = ok;
    }

    /** Whether libpcap could be bound directly (the reader also needs pcap4j's handle field). */
    static boolean available() {
        return AVAILABLE;
    }

    private static native int pcap_next_ex(Pointer pcap, Pointer header, Pointer data);

    private final Pointer pcap;
    private final Memory slots = new Memory(2L * Native.POINTER_SIZE);
    private final Pointer headerSlot = slots.share(0);
    private final Pointer dataSlot = slots.share(Native.POINTER_SIZE);
    private final boolean nanos;
    private final byte[] bytes;
    private final ByteBuffer frame;
    private long timestampNanos;
    private int originalLength;

    private DirectPcapReader(Pointer pcap, boolean nanos, int snaplen) {
        this.pcap = pcap;
        this.nanos = nanos;
        // libpcap may hand out up to its own maximum whatever snaplen asked for.
        this.bytes = new byte[Math.max(snaplen, 262_144)];
        this.frame = ByteBuffer.wrap(bytes);
    }

    /**
     * A reader on pcap4j's handle, or null when the direct path is not available here (libpcap not
     * loadable by name, or pcap4j's handle field not reachable): the caller then reads through
     * pcap4j.
     */
    static DirectPcapReader on(PcapHandle handle, boolean nanos, int snaplen) {
        if (!AVAILABLE) {
            return null;
        }
        try {
            Field f = PcapHandle.class.getDeclaredField("handle");
            f.setAccessible(true);
            Pointer p = (Pointer) f.get(handle);
            return p == null ? null : new DirectPcapReader(p, nanos, snaplen);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Reads the next packet.
     *
     * @return {@link #PACKET}, 0 if none is waiting, or libpcap's negative error code
     */
    int next() {
        int r = pcap_next_ex(pcap, headerSlot, dataSlot);
        if (r != PACKET) {
            return r;
        }
        Pointer header = slots.getPointer(0);
        // struct pcap_pkthdr { struct timeval ts; bpf_u_int32 caplen; bpf_u_int32 len; }, timeval
        // = {long tv_sec; long tv_usec} (macOS: a 32-bit tv_usec padded to 8 bytes)
        int longSize = Native.LONG_SIZE;
        long sec = longSize == 8 ? header.getLong(0) : header.getInt(0) & 0xffff_ffffL;
        long frac =
                longSize == 8 && !MAC ? header.getLong(8) : header.getInt(longSize) & 0xffff_ffffL;
        int caplen = Math.min(header.getInt(2L * longSize), bytes.length);
        originalLength = header.getInt(2L * longSize + 4);
        timestampNanos = sec * 1_000_000_000L + (nanos ? frac : frac * 1000L);
        slots.getPointer(Native.POINTER_SIZE).read(0, bytes, 0, caplen);
        frame.limit(caplen).position(0);
        return r;
    }

    /** The current packet's captured bytes, big-endian; valid until the next {@link #next()}. */
    ByteBuffer frame() {
        return frame;
    }

    long timestampNanos() {
        return timestampNanos;
    }

    int originalLength() {
        return originalLength;
    }
}
