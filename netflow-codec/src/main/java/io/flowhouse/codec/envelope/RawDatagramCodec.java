// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.envelope;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.flow.IpAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Protobuf wire format of {@code flowhouse.v1.RawDatagram} and {@code
 * flowhouse.v1.RejectedDatagram} ({@code src/main/proto/flowhouse/v1/raw.proto}), written by hand
 * so that the codec module depends on nothing. Encoding writes the fields in field-number order and
 * leaves out empty strings and bytes (their proto3 default); decoding accepts fields in any order,
 * skips unknown fields of every wire type, and takes the last value of a repeated scalar, as
 * protobuf parsers do.
 *
 * <p>A batch record ({@code flowhouse.v1.RawDatagramBatch}, schema version {@link
 * RawDatagram#SCHEMA_VERSION_BATCH}) holds several stamped datagrams of one partition key, each a
 * whole {@code RawDatagram} message with its own stamp: {@link #decodeAll} reads a batch and the
 * single-datagram versions alike.
 */
public final class RawDatagramCodec {

    static final int F_SCHEMA_VERSION = 1;
    static final int F_EXPORTER_ADDRESS = 2;
    static final int F_EXPORTER_PORT = 3;
    static final int F_RECEIVED_MILLIS = 4;
    static final int F_AGENT_ID = 5;
    static final int F_PAYLOAD = 6;
    static final int F_STAMP_EPOCH = 7;
    static final int F_STAMP_STREAM = 8;
    static final int F_STAMP_SEQUENCE = 9;
    static final int F_BATCH_DATAGRAM = 10;
    static final int F_REJECT_REASON = 14;
    static final int F_REJECT_DETAIL = 15;

    private static final int WT_VARINT = 0;
    private static final int WT_I64 = 1;
    private static final int WT_LEN = 2;
    private static final int WT_I32 = 5;

    private RawDatagramCodec() {}

    /** Encodes a datagram as a {@code RawDatagram} message. */
    public static byte[] encode(RawDatagram d) {
        ByteBuffer payload = ByteBuffer.wrap(d.payload());
        DatagramStamp s = d.stamp();
        return encode(
                d.schemaVersion(),
                d.exporterAddress(),
                d.exporterPort(),
                d.receivedMillis(),
                utf8(d.agentId()),
                payload,
                s,
                null);
    }

    /**
     * Encodes a stamped datagram straight from a receive buffer, without building a {@link
     * RawDatagram} first: the agent's hot path. Copies the payload's remaining bytes; the buffer's
     * position is not changed.
     */
    public static byte[] encode(
            IpAddress exporterAddress,
            int exporterPort,
            long receivedMillis,
            byte[] agentIdUtf8,
            ByteBuffer payload,
            DatagramStamp stamp) {
        return encode(
                RawDatagram.SCHEMA_VERSION_STAMPED,
                exporterAddress,
                exporterPort,
                receivedMillis,
                agentIdUtf8,
                payload,
                stamp,
                null);
    }

    /** Encodes a datagram without a stamp straight from a receive buffer (schema version 1). */
    public static byte[] encode(
            IpAddress exporterAddress,
            int exporterPort,
            long receivedMillis,
            byte[] agentIdUtf8,
            ByteBuffer payload) {
        return encode(
                RawDatagram.SCHEMA_VERSION,
                exporterAddress,
                exporterPort,
                receivedMillis,
                agentIdUtf8,
                payload,
                null,
                null);
    }

    /** Encodes a rejected datagram as a {@code RejectedDatagram} message. */
    public static byte[] encodeRejected(RejectedDatagram r) {
        RawDatagram d = r.datagram();
        return encode(
                d.schemaVersion(),
                d.exporterAddress(),
                d.exporterPort(),
                d.receivedMillis(),
                utf8(d.agentId()),
                ByteBuffer.wrap(d.payload()),
                d.stamp(),
                new Rejection(utf8(r.reason()), utf8(r.detail())));
    }

    /** Encodes a rejected datagram straight from a receive buffer (see the hot-path encode). */
    public static byte[] encodeRejected(
            IpAddress exporterAddress,
            int exporterPort,
            long receivedMillis,
            byte[] agentIdUtf8,
            ByteBuffer payload,
            String reason,
            String detail) {
        return encode(
                RawDatagram.SCHEMA_VERSION,
                exporterAddress,
                exporterPort,
                receivedMillis,
                agentIdUtf8,
                payload,
                null,
                new Rejection(utf8(reason), utf8(detail)));
    }

    /** The reject reason and detail of a {@code RejectedDatagram}, UTF-8. */
    private record Rejection(byte[] reason, byte[] detail) {}

    private static byte[] encode(
            int schemaVersion,
            IpAddress address,
            int port,
            long millis,
            byte[] agentId,
            ByteBuffer payload,
            DatagramStamp stamp,
            Rejection rejection) {
        int size =
                encodedSize(
                        schemaVersion,
                        port,
                        millis,
                        agentId,
                        payload.remaining(),
                        stamp,
                        rejection);
        byte[] out = new byte[size];
        int p = writeHead(out, 0, schemaVersion, address, port, millis, agentId, payload);
        p = writeTail(out, p, stamp, rejection);
        if (p != size) {
            throw new IllegalStateException("wrote " + p + " bytes, sized " + size);
        }
        return out;
    }

    /**
     * The size of {@link #encode(IpAddress, int, long, byte[], ByteBuffer, DatagramStamp)}'s
     * output, for writing it into a larger buffer with {@link #encodeInto}.
     */
    public static int encodedSize(
            int exporterPort,
            long receivedMillis,
            byte[] agentIdUtf8,
            int payloadLength,
            DatagramStamp stamp) {
        return encodedSize(
                RawDatagram.SCHEMA_VERSION_STAMPED,
                exporterPort,
                receivedMillis,
                agentIdUtf8,
                payloadLength,
                stamp,
                null);
    }

    /**
     * Writes what {@link #encode(IpAddress, int, long, byte[], ByteBuffer, DatagramStamp)} returns
     * into {@code out} at {@code offset}, without an array of its own: the agent's batch records
     * are built this way, the payload copied once from the receive buffer.
     *
     * @return the offset after the written bytes ({@code offset} plus {@link #encodedSize})
     */
    public static int encodeInto(
            byte[] out,
            int offset,
            IpAddress exporterAddress,
            int exporterPort,
            long receivedMillis,
            byte[] agentIdUtf8,
            ByteBuffer payload,
            DatagramStamp stamp) {
        int p =
                writeHead(
                        out,
                        offset,
                        RawDatagram.SCHEMA_VERSION_STAMPED,
                        exporterAddress,
                        exporterPort,
                        receivedMillis,
                        agentIdUtf8,
                        payload);
        return writeTail(out, p, stamp, null);
    }

    private static int encodedSize(
            int schemaVersion,
            int port,
            long millis,
            byte[] agentId,
            int payloadLen,
            DatagramStamp stamp,
            Rejection rejection) {
        int size =
                1
                        + varintSize(schemaVersion & 0xffff_ffffL)
                        + 1
                        + 1
                        + 16
                        + 1
                        + varintSize(port)
                        + 1
                        + varintSize(millis)
                        + lenFieldSize(agentId.length)
                        + lenFieldSize(payloadLen);
        if (stamp != null) {
            // Zeros left out, as proto3 writers do: schema version 2 says a stamp is there.
            size +=
                    varintFieldSize(stamp.epoch())
                            + varintFieldSize(stamp.stream())
                            + varintFieldSize(stamp.sequence());
        }
        if (rejection != null) {
            size +=
                    lenFieldSize(rejection.reason().length)
                            + lenFieldSize(rejection.detail().length);
        }
        return size;
    }

    /** Writes the fields up to the payload; the stamp and the rejection follow it. */
    private static int writeHead(
            byte[] out,
            int p,
            int schemaVersion,
            IpAddress address,
            int port,
            long millis,
            byte[] agentId,
            ByteBuffer payload) {
        int payloadLen = payload.remaining();
        p = writeTag(out, p, F_SCHEMA_VERSION, WT_VARINT);
        p = writeVarint(out, p, schemaVersion & 0xffff_ffffL);
        p = writeTag(out, p, F_EXPORTER_ADDRESS, WT_LEN);
        out[p++] = 16;
        p = writeLong(out, p, address.hi());
        p = writeLong(out, p, address.lo());
        p = writeTag(out, p, F_EXPORTER_PORT, WT_VARINT);
        p = writeVarint(out, p, port);
        p = writeTag(out, p, F_RECEIVED_MILLIS, WT_VARINT);
        p = writeVarint(out, p, millis);
        p = writeBytesField(out, p, F_AGENT_ID, agentId);
        if (payloadLen > 0) {
            p = writeTag(out, p, F_PAYLOAD, WT_LEN);
            p = writeVarint(out, p, payloadLen);
            payload.get(payload.position(), out, p, payloadLen);
            p += payloadLen;
        }
        return p;
    }

    private static int writeTail(byte[] out, int p, DatagramStamp stamp, Rejection rejection) {
        if (stamp != null) {
            p = writeVarintField(out, p, F_STAMP_EPOCH, stamp.epoch());
            p = writeVarintField(out, p, F_STAMP_STREAM, stamp.stream());
            p = writeVarintField(out, p, F_STAMP_SEQUENCE, stamp.sequence());
        }
        if (rejection != null) {
            p = writeBytesField(out, p, F_REJECT_REASON, rejection.reason());
            p = writeBytesField(out, p, F_REJECT_DETAIL, rejection.detail());
        }
        return p;
    }

    /**
     * Encodes a batch record from whole encoded {@code RawDatagram} messages (the output of {@link
     * #encode}), in their order. The caller keeps them of one partition key and within its bounds.
     *
     * @param datagrams encoded datagrams; the first {@code count} are taken
     */
    public static byte[] encodeBatch(byte[][] datagrams, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a batch of " + count + " datagrams");
        }
        int size = batchSize(datagrams, count);
        byte[] out = new byte[size];
        int p = writeTag(out, 0, F_SCHEMA_VERSION, WT_VARINT);
        p = writeVarint(out, p, RawDatagram.SCHEMA_VERSION_BATCH);
        for (int i = 0; i < count; i++) {
            byte[] d = datagrams[i];
            p = writeTag(out, p, F_BATCH_DATAGRAM, WT_LEN);
            p = writeVarint(out, p, d.length);
            System.arraycopy(d, 0, out, p, d.length);
            p += d.length;
        }
        if (p != size) {
            throw new IllegalStateException("wrote " + p + " bytes, sized " + size);
        }
        return out;
    }

    /** Encodes a batch record of stamped datagrams (see {@link #encodeBatch(byte[][], int)}). */
    public static byte[] encodeBatch(List<RawDatagram> datagrams) {
        byte[][] encoded = new byte[datagrams.size()][];
        for (int i = 0; i < encoded.length; i++) {
            encoded[i] = encode(datagrams.get(i));
        }
        return encodeBatch(encoded, encoded.length);
    }

    /** The size of a batch record holding these encoded datagrams. */
    public static int batchSize(byte[][] datagrams, int count) {
        int size = 1 + varintSize(RawDatagram.SCHEMA_VERSION_BATCH);
        for (int i = 0; i < count; i++) {
            size += 1 + varintSize(datagrams[i].length) + datagrams[i].length;
        }
        return size;
    }

    /** What one more datagram of {@code encodedLength} bytes adds to a batch record. */
    public static int batchEntrySize(int encodedLength) {
        return 1 + varintSize(encodedLength) + encodedLength;
    }

    /** The bytes of a batch record before its first datagram (the schema version field). */
    public static int batchHeaderSize() {
        return 1 + varintSize(RawDatagram.SCHEMA_VERSION_BATCH);
    }

    /** Writes a batch record's schema version field at {@code offset}; returns the offset after. */
    public static int writeBatchHeader(byte[] out, int offset) {
        int p = writeTag(out, offset, F_SCHEMA_VERSION, WT_VARINT);
        return writeVarint(out, p, RawDatagram.SCHEMA_VERSION_BATCH);
    }

    /**
     * Writes the field header of a batch entry of {@code encodedLength} bytes at {@code offset};
     * the encoded datagram follows at the returned offset.
     */
    public static int writeBatchEntryHeader(byte[] out, int offset, int encodedLength) {
        int p = writeTag(out, offset, F_BATCH_DATAGRAM, WT_LEN);
        return writeVarint(out, p, encodedLength);
    }

    /**
     * Decodes a record of {@code flows.raw} into its datagrams: one for a single-datagram envelope
     * (schema versions 1 and 2), each datagram in order for a batch record. A batch holds only
     * single-datagram envelopes, and at least one.
     *
     * @throws MalformedEnvelopeException if the bytes, or any datagram of the batch, are not valid
     */
    public static List<RawDatagram> decodeAll(byte[] value) {
        ByteBuffer in = ByteBuffer.wrap(value);
        if (schemaVersion(in.duplicate()) != RawDatagram.SCHEMA_VERSION_BATCH) {
            return List.of(read(in).datagram());
        }
        List<RawDatagram> out = new ArrayList<>();
        while (in.hasRemaining()) {
            long tag = readVarint(in);
            int field = (int) (tag >>> 3);
            int wireType = (int) (tag & 7);
            if (field == 0) {
                throw new MalformedEnvelopeException("field number 0 at offset " + in.position());
            }
            if (field != F_BATCH_DATAGRAM) {
                skip(in, field, wireType);
                continue;
            }
            ByteBuffer inner = readSlice(in, field, wireType);
            RawDatagram d = readOne(inner).datagram();
            if (d.schemaVersion() >= RawDatagram.SCHEMA_VERSION_BATCH) {
                throw new MalformedEnvelopeException(
                        "datagram "
                                + out.size()
                                + " of a batch has schema version "
                                + d.schemaVersion()
                                + " (a batch holds single datagrams)");
            }
            out.add(d);
        }
        if (out.isEmpty()) {
            throw new MalformedEnvelopeException("batch record without datagrams");
        }
        return out;
    }

    /**
     * Whether a record value is a batch record (schema version {@link
     * RawDatagram#SCHEMA_VERSION_BATCH}).
     */
    public static boolean isBatch(byte[] value) {
        return schemaVersion(ByteBuffer.wrap(value)) == RawDatagram.SCHEMA_VERSION_BATCH;
    }

    /** The last schema version field of a message, 0 if none; reads to the end of the buffer. */
    private static int schemaVersion(ByteBuffer in) {
        int version = 0;
        while (in.hasRemaining()) {
            long tag = readVarint(in);
            int field = (int) (tag >>> 3);
            int wireType = (int) (tag & 7);
            if (field == 0) {
                throw new MalformedEnvelopeException("field number 0 at offset " + in.position());
            }
            if (field == F_SCHEMA_VERSION) {
                version = (int) expectVarint(in, field, wireType);
            } else {
                skip(in, field, wireType);
            }
        }
        return version;
    }

    private static ByteBuffer readSlice(ByteBuffer in, int field, int wireType) {
        if (wireType != WT_LEN) {
            throw new MalformedEnvelopeException(
                    "field "
                            + field
                            + " has wire type "
                            + wireType
                            + " (expected: 2, length-delimited)");
        }
        long len = readVarint(in);
        if (len < 0 || len > in.remaining()) {
            throw new MalformedEnvelopeException(
                    "field "
                            + field
                            + " declares "
                            + len
                            + " bytes, "
                            + in.remaining()
                            + " remain");
        }
        ByteBuffer slice = in.slice(in.position(), (int) len);
        in.position(in.position() + (int) len);
        return slice;
    }

    /**
     * Decodes a {@code RawDatagram} (or the datagram part of a {@code RejectedDatagram}).
     *
     * @throws MalformedEnvelopeException if the bytes are not a valid message
     */
    public static RawDatagram decode(byte[] value) {
        return read(ByteBuffer.wrap(value)).datagram();
    }

    /** Decodes a {@code RawDatagram} from the buffer's remaining bytes. */
    public static RawDatagram decode(ByteBuffer value) {
        return read(value.duplicate()).datagram();
    }

    /**
     * Decodes a {@code RejectedDatagram}; a message without a reason gets reason {@code ""}.
     *
     * @throws MalformedEnvelopeException if the bytes are not a valid message
     */
    public static RejectedDatagram decodeRejected(byte[] value) {
        return read(ByteBuffer.wrap(value));
    }

    private static RejectedDatagram read(ByteBuffer in) {
        RejectedDatagram r = readOne(in);
        if (r.datagram().schemaVersion() == RawDatagram.SCHEMA_VERSION_BATCH) {
            throw new MalformedEnvelopeException(
                    "a batch record (schema version "
                            + RawDatagram.SCHEMA_VERSION_BATCH
                            + ") holds several datagrams: read it with decodeAll");
        }
        return r;
    }

    private static RejectedDatagram readOne(ByteBuffer in) {
        int schemaVersion = 0;
        IpAddress address = IpAddress.UNSPECIFIED;
        int port = 0;
        long millis = 0;
        String agentId = "";
        byte[] payload = new byte[0];
        String reason = "";
        String detail = "";
        long epoch = 0;
        long stream = 0;
        long sequence = 0;
        while (in.hasRemaining()) {
            long tag = readVarint(in);
            int field = (int) (tag >>> 3);
            int wireType = (int) (tag & 7);
            if (field == 0) {
                throw new MalformedEnvelopeException("field number 0 at offset " + in.position());
            }
            switch (field) {
                case F_SCHEMA_VERSION -> schemaVersion = (int) expectVarint(in, field, wireType);
                case F_EXPORTER_ADDRESS -> address = readAddress(readBytes(in, field, wireType));
                case F_EXPORTER_PORT -> {
                    long v = expectVarint(in, field, wireType);
                    if (v < 0 || v > 0xffff) {
                        throw new MalformedEnvelopeException(
                                "exporter port " + v + " (expected: 0..65535)");
                    }
                    port = (int) v;
                }
                case F_RECEIVED_MILLIS -> millis = expectVarint(in, field, wireType);
                case F_AGENT_ID -> agentId = string(readBytes(in, field, wireType));
                case F_PAYLOAD -> payload = readBytes(in, field, wireType);
                case F_STAMP_EPOCH -> epoch = expectVarint(in, field, wireType);
                case F_STAMP_STREAM -> stream = expectVarint(in, field, wireType);
                case F_STAMP_SEQUENCE -> sequence = expectVarint(in, field, wireType);
                case F_REJECT_REASON -> reason = string(readBytes(in, field, wireType));
                case F_REJECT_DETAIL -> detail = string(readBytes(in, field, wireType));
                default -> skip(in, field, wireType);
            }
        }
        // The stamp is read from schema version 2 on (a reader never guesses one from defaults).
        DatagramStamp stamp =
                schemaVersion >= RawDatagram.SCHEMA_VERSION_STAMPED
                        ? new DatagramStamp(epoch, stream, sequence)
                        : null;
        RawDatagram d =
                new RawDatagram(
                        schemaVersion,
                        new ExporterKey(address, port),
                        millis,
                        agentId,
                        payload,
                        stamp);
        return new RejectedDatagram(d, reason, detail);
    }

    private static IpAddress readAddress(byte[] b) {
        if (b.length != 4 && b.length != 16) {
            throw new MalformedEnvelopeException(
                    "exporter address of " + b.length + " bytes (expected: 4 or 16)");
        }
        return IpAddress.ofBytes(b);
    }

    private static long expectVarint(ByteBuffer in, int field, int wireType) {
        if (wireType != WT_VARINT) {
            throw new MalformedEnvelopeException(
                    "field " + field + " has wire type " + wireType + " (expected: 0, varint)");
        }
        return readVarint(in);
    }

    private static byte[] readBytes(ByteBuffer in, int field, int wireType) {
        ByteBuffer slice = readSlice(in, field, wireType);
        byte[] b = new byte[slice.remaining()];
        slice.get(b);
        return b;
    }

    private static void skip(ByteBuffer in, int field, int wireType) {
        switch (wireType) {
            case WT_VARINT -> readVarint(in);
            case WT_I64 -> advance(in, field, 8);
            case WT_I32 -> advance(in, field, 4);
            case WT_LEN -> {
                long len = readVarint(in);
                if (len < 0 || len > in.remaining()) {
                    throw new MalformedEnvelopeException(
                            "unknown field "
                                    + field
                                    + " declares "
                                    + len
                                    + " bytes, "
                                    + in.remaining()
                                    + " remain");
                }
                in.position(in.position() + (int) len);
            }
            default ->
                    throw new MalformedEnvelopeException(
                            "field " + field + " has unsupported wire type " + wireType);
        }
    }

    private static void advance(ByteBuffer in, int field, int n) {
        if (in.remaining() < n) {
            throw new MalformedEnvelopeException(
                    "field " + field + " needs " + n + " bytes, " + in.remaining() + " remain");
        }
        in.position(in.position() + n);
    }

    static long readVarint(ByteBuffer in) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (!in.hasRemaining()) {
                throw new MalformedEnvelopeException("truncated varint at offset " + in.position());
            }
            byte b = in.get();
            v |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                return v;
            }
        }
        throw new MalformedEnvelopeException("varint longer than 10 bytes");
    }

    static int varintSize(long v) {
        int n = 1;
        while ((v & ~0x7fL) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    private static int varintFieldSize(long v) {
        return v == 0 ? 0 : 1 + varintSize(v);
    }

    private static int writeVarintField(byte[] out, int p, int field, long v) {
        if (v == 0) {
            return p;
        }
        p = writeTag(out, p, field, WT_VARINT);
        return writeVarint(out, p, v);
    }

    private static int lenFieldSize(int len) {
        return len == 0 ? 0 : 1 + varintSize(len) + len;
    }

    private static int writeBytesField(byte[] out, int p, int field, byte[] value) {
        if (value.length == 0) {
            return p;
        }
        p = writeTag(out, p, field, WT_LEN);
        p = writeVarint(out, p, value.length);
        System.arraycopy(value, 0, out, p, value.length);
        return p + value.length;
    }

    private static int writeTag(byte[] out, int p, int field, int wireType) {
        return writeVarint(out, p, ((long) field << 3) | wireType);
    }

    static int writeVarint(byte[] out, int p, long v) {
        while ((v & ~0x7fL) != 0) {
            out[p++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out[p++] = (byte) v;
        return p;
    }

    private static int writeLong(byte[] out, int p, long v) {
        for (int i = 0; i < 8; i++) {
            out[p + i] = (byte) (v >>> (56 - 8 * i));
        }
        return p + 8;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
