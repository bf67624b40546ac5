// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/**
 * Hand-built v9 and IPFIX messages for tests: a message is a header plus sets, each set an id and a
 * body. Lengths are computed; nothing is checked, so broken input is as easy to write as good.
 */
final class Wire {

    private Wire() {}

    /** An IPFIX message of {@code sets} (each from {@link #set}). */
    static byte[] ipfix(long domain, long sequence, byte[]... sets) {
        int len = 16;
        for (byte[] s : sets) {
            len += s.length;
        }
        ByteBuffer b = ByteBuffer.allocate(len);
        b.putShort((short) 10).putShort((short) len).putInt(1_700_000_000).putInt((int) sequence);
        b.putInt((int) domain);
        for (byte[] s : sets) {
            b.put(s);
        }
        return b.array();
    }

    /** A NetFlow v9 packet of {@code flowSets} (each from {@link #set}). */
    static byte[] v9(long sourceId, long sequence, int count, byte[]... flowSets) {
        int len = 20;
        for (byte[] s : flowSets) {
            len += s.length;
        }
        ByteBuffer b = ByteBuffer.allocate(len);
        b.putShort((short) 9).putShort((short) count).putInt(100_000).putInt(1_700_000_000);
        b.putInt((int) sequence).putInt((int) sourceId);
        for (byte[] s : flowSets) {
            b.put(s);
        }
        return b.array();
    }

    /** A set (FlowSet): id, length, then the body. */
    static byte[] set(int id, byte[] body) {
        return ByteBuffer.allocate(4 + body.length)
                .putShort((short) id)
                .putShort((short) (4 + body.length))
                .put(body)
                .array();
    }

    /** A template record: id, field count, then (element id, length) pairs. */
    static byte[] template(int id, int... idLengthPairs) {
        ByteBuffer b = ByteBuffer.allocate(4 + 2 * idLengthPairs.length);
        b.putShort((short) id).putShort((short) (idLengthPairs.length / 2));
        for (int v : idLengthPairs) {
            b.putShort((short) v);
        }
        return b.array();
    }

    /** An IPFIX options template record: id, field count, scope field count, fields. */
    static byte[] ipfixOptionsTemplate(int id, int scopeFields, int... idLengthPairs) {
        ByteBuffer b = ByteBuffer.allocate(6 + 2 * idLengthPairs.length);
        b.putShort((short) id).putShort((short) (idLengthPairs.length / 2));
        b.putShort((short) scopeFields);
        for (int v : idLengthPairs) {
            b.putShort((short) v);
        }
        return b.array();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** {@code n} copies of {@code part}. */
    static byte[] repeat(byte[] part, int n) {
        ByteBuffer b = ByteBuffer.allocate(part.length * n);
        for (int i = 0; i < n; i++) {
            b.put(part);
        }
        return b.array();
    }

    /** Big-endian bytes of the given values, each {@code width} bytes wide (1, 2, 4 or 8). */
    static byte[] values(int width, long... vs) {
        ByteBuffer b = ByteBuffer.allocate(width * vs.length);
        for (long v : vs) {
            switch (width) {
                case 1 -> b.put((byte) v);
                case 2 -> b.putShort((short) v);
                case 4 -> b.putInt((int) v);
                default -> b.putLong(v);
            }
        }
        return b.array();
    }
}
