// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.spool;

import io.flowhouse.agent.kafka.Outbound;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** The body of a spool frame: one {@link Outbound} record, as {@link DiskSpool} writes it. */
final class SpoolRecordCodec {

    private SpoolRecordCodec() {}

    // Body: u8 topic length, topic, i32 partition, i64 timestamp, i32 key length (-1 null), key,
    // i32 value length, value, u16 reason length (0xffff null), reason; then, for a record of more
    // than one datagram only, i32 datagrams (a body without it, as earlier agents wrote, is 1).
    static byte[] encode(Outbound r) {
        byte[] topic = r.topic().getBytes(StandardCharsets.UTF_8);
        byte[] reason = r.reason() == null ? null : r.reason().getBytes(StandardCharsets.UTF_8);
        int keyLen = r.key() == null ? 0 : r.key().length;
        ByteBuffer b =
                ByteBuffer.allocate(
                        1
                                + topic.length
                                + 4
                                + 8
                                + 4
                                + keyLen
                                + 4
                                + r.value().length
                                + 2
                                + (reason == null ? 0 : reason.length)
                                + (r.datagrams() == 1 ? 0 : 4));
        b.put((byte) topic.length).put(topic).putInt(r.partition()).putLong(r.timestampMillis());
        if (r.key() == null) {
            b.putInt(-1);
        } else {
            b.putInt(keyLen).put(r.key());
        }
        b.putInt(r.value().length).put(r.value());
        if (reason == null) {
            b.putShort((short) 0xffff);
        } else {
            b.putShort((short) reason.length).put(reason);
        }
        if (r.datagrams() != 1) {
            b.putInt(r.datagrams());
        }
        return b.array();
    }

    /** The record of a frame body, or null when the body does not parse (a corrupt frame). */
    static Outbound decodeOrNull(byte[] body) {
        try {
            return decode(body);
        } catch (RuntimeException e) {
            return null;
        }
    }

    static Outbound decode(byte[] body) {
        ByteBuffer b = ByteBuffer.wrap(body);
        byte[] topic = new byte[b.get() & 0xff];
        b.get(topic);
        int partition = b.getInt();
        long ts = b.getLong();
        int keyLen = b.getInt();
        byte[] key = null;
        if (keyLen >= 0) {
            key = new byte[keyLen];
            b.get(key);
        }
        byte[] value = new byte[b.getInt()];
        b.get(value);
        int reasonLen = b.getShort() & 0xffff;
        String reason = null;
        if (reasonLen != 0xffff) {
            byte[] r = new byte[reasonLen];
            b.get(r);
            reason = new String(r, StandardCharsets.UTF_8);
        }
        int datagrams = b.remaining() >= 4 ? b.getInt() : 1;
        return new Outbound(
                new String(topic, StandardCharsets.UTF_8),
                partition,
                ts,
                key,
                value,
                reason,
                datagrams);
    }
}
