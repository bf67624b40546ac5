// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.packet;

import io.flowhouse.codec.flow.IpAddress;
import java.nio.ByteBuffer;

/**
 * A record on {@code packets.raw} that carries no packet but tells the job how far a capture's
 * packet time has gone: a {@link Kind#TICK tick} while a live capture is quiet, or the {@link
 * Kind#END_OF_CAPTURE end} of a packet file. It is a {@link PacketBatchCodec} batch of zero
 * summaries (so a reader that does not know marks skips it) whose reserved header bytes 6-7 hold
 * the kind, followed by:
 *
 * <pre>
 *   8   packet time, UNIX epoch nanoseconds (int64)
 *   4   capture interface index (uint32)
 * </pre>
 *
 * In the job a mark travels as a {@link PacketSummary} with IP version 0 ({@link #summary}), which
 * no captured packet has: it moves the watermark and is dropped before the flow table.
 *
 * @param kind tick or end of capture
 * @param timestampNanos the capture's packet time when the mark was sent
 * @param interfaceIndex the capture's interface index
 */
public record PacketClockMark(Kind kind, long timestampNanos, int interfaceIndex) {

    /** What a mark says. */
    public enum Kind {
        /** No packet since; packet time is now at least this. */
        TICK(1),
        /** The capture ended (end of a packet file): no packet of it will follow. */
        END_OF_CAPTURE(2);

        private final int code;

        Kind(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        static Kind of(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            return null;
        }
    }

    /** Encoded size. */
    public static final int SIZE = PacketBatchCodec.HEADER_SIZE + 12;

    /** The record value. */
    public byte[] encode(int linkType) {
        ByteBuffer b = ByteBuffer.allocate(SIZE);
        b.put(new byte[] {'F', 'H', 'P', 'B'});
        b.put((byte) PacketBatchCodec.FORMAT_VERSION);
        b.put((byte) linkType);
        b.putShort((short) kind.code);
        b.putInt(0);
        b.putInt(0);
        b.putLong(timestampNanos);
        b.putInt(interfaceIndex);
        return b.array();
    }

    /** The mark a record value holds, or null if it is a batch of packets (or not a batch). */
    public static PacketClockMark decode(byte[] value) {
        if (value == null
                || value.length < SIZE
                || value[0] != 'F'
                || value[1] != 'H'
                || value[2] != 'P'
                || value[3] != 'B'
                || value[4] != PacketBatchCodec.FORMAT_VERSION) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(value);
        Kind kind = Kind.of(b.getShort(6) & 0xffff);
        if (kind == null || b.getInt(8) != 0) {
            return null;
        }
        return new PacketClockMark(
                kind,
                b.getLong(PacketBatchCodec.HEADER_SIZE),
                b.getInt(PacketBatchCodec.HEADER_SIZE + 8));
    }

    /** The mark as a stream element: IP version 0, the kind's code as protocol. */
    public PacketSummary summary() {
        IpAddress none = IpAddress.ofIpv4(0);
        return new PacketSummary(
                timestampNanos,
                interfaceIndex,
                0,
                0,
                0,
                0,
                0,
                none,
                none,
                0,
                0,
                kind.code,
                0,
                0,
                0,
                0,
                0,
                false);
    }

    /** True for a mark's stream element ({@link #summary}). */
    public static boolean isMark(PacketSummary s) {
        return s.ipVersion() == 0;
    }

    /** The mark a stream element stands for, or null for a packet. */
    public static PacketClockMark of(PacketSummary s) {
        return isMark(s)
                ? new PacketClockMark(Kind.of(s.protocol()), s.timestampNanos(), s.interfaceIndex())
                : null;
    }
}
