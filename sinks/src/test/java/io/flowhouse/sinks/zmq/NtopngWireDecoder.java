// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An independent reader of the ntopng ZMQ wire format, written from {@code
 * shared/reference/ntopng-zmq.md} (sections 4.2 and 4.3) for the tests. It shares no code with the
 * publisher: its own header parser and its own nDPI TLV deserializer that accepts every scalar
 * type, not only the ones the publisher writes.
 */
final class NtopngWireDecoder {

    /** zmq_msg_hdr_v3 as ntopng reads it. */
    record Header(
            String url,
            int version,
            int flags,
            long uncompressedSize,
            long compressedSize,
            long msgId,
            long sourceId) {}

    /** One decoded TLV record: key (a field id, or a string key) to Long / Double / String. */
    record TlvRecord(Map<Object, Object> items) {
        Long uint(int key) {
            Object v = items.get(key);
            return v == null ? null : (Long) v;
        }

        String string(int key) {
            Object v = items.get(key);
            return v == null ? null : (String) v;
        }
    }

    private NtopngWireDecoder() {}

    static Header header(byte[] frame) {
        if (frame.length != 36) {
            throw new IllegalArgumentException("v3 header frame is " + frame.length + " bytes");
        }
        int end = 0;
        while (end < 16 && frame[end] != 0) {
            end++;
        }
        String url = new String(frame, 0, end, StandardCharsets.US_ASCII);
        return new Header(
                url,
                frame[16] & 0xff,
                frame[17] & 0xff,
                le32(frame, 20),
                le32(frame, 24),
                be32(frame, 28),
                le32(frame, 32));
    }

    private static long le32(byte[] b, int at) {
        return (b[at] & 0xffL)
                | (b[at + 1] & 0xffL) << 8
                | (b[at + 2] & 0xffL) << 16
                | (b[at + 3] & 0xffL) << 24;
    }

    private static long be32(byte[] b, int at) {
        return (b[at] & 0xffL) << 24
                | (b[at + 1] & 0xffL) << 16
                | (b[at + 2] & 0xffL) << 8
                | (b[at + 3] & 0xffL);
    }

    /** Reads a whole TLV buffer: the 2-byte header and the records after it. */
    static List<TlvRecord> tlv(byte[] payload) {
        if (payload.length < 2 || payload[0] != 1 || payload[1] != 1) {
            throw new IllegalArgumentException("not an nDPI TLV v1 buffer");
        }
        Cursor c = new Cursor(payload, 2);
        List<TlvRecord> out = new ArrayList<>();
        Map<Object, Object> current = new LinkedHashMap<>();
        while (c.pos < payload.length) {
            int type = (int) c.u8();
            int keyType = type >>> 4;
            int valueType = type & 0x0f;
            if (type == 1) {
                out.add(new TlvRecord(current));
                current = new LinkedHashMap<>();
                continue;
            }
            Object key =
                    switch (keyType) {
                        case 2 -> (int) c.u8();
                        case 3 -> (int) c.u16();
                        case 4 -> (int) c.u32();
                        case 11 -> c.string();
                        default ->
                                throw new IllegalArgumentException(
                                        "unsupported key type " + keyType + " at " + (c.pos - 1));
                    };
            Object value =
                    switch (valueType) {
                        case 2 -> c.u8();
                        case 3 -> c.u16();
                        case 4 -> c.u32();
                        case 5 -> c.u64();
                        case 6 -> (long) (byte) c.u8();
                        case 7 -> (long) (short) c.u16();
                        case 8 -> (long) (int) c.u32();
                        case 9 -> c.u64();
                        case 10 -> (double) Float.intBitsToFloat((int) c.u32le());
                        case 11 -> c.string();
                        default ->
                                throw new IllegalArgumentException(
                                        "unsupported value type " + valueType);
                    };
            if (current.put(key, value) != null) {
                throw new IllegalArgumentException("key " + key + " twice in one record");
            }
        }
        if (!current.isEmpty()) {
            throw new IllegalArgumentException("buffer ends inside a record");
        }
        return out;
    }

    private static final class Cursor {
        private final byte[] b;
        private int pos;

        Cursor(byte[] b, int pos) {
            this.b = b;
            this.pos = pos;
        }

        private void need(int n) {
            if (pos + n > b.length) {
                throw new IllegalArgumentException("truncated TLV at " + pos);
            }
        }

        long u8() {
            need(1);
            return b[pos++] & 0xffL;
        }

        long u16() {
            need(2);
            long v = (b[pos] & 0xffL) << 8 | (b[pos + 1] & 0xffL);
            pos += 2;
            return v;
        }

        long u32() {
            need(4);
            long v = be32(b, pos);
            pos += 4;
            return v;
        }

        long u32le() {
            need(4);
            long v = le32(b, pos);
            pos += 4;
            return v;
        }

        long u64() {
            return u32() << 32 | u32();
        }

        String string() {
            int n = (int) u16();
            need(n);
            String s = new String(b, pos, n, StandardCharsets.UTF_8);
            pos += n;
            return s;
        }
    }
}
