// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.serde;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.model.ArchivedTemplate;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Wire form of the compacted {@code flows.templates} topic. The key identifies what compaction
 * keeps one of: {@code addr|port|version|domain|templateId} (templateId {@code -1} for options
 * data), in UTF-8 so an operator can read it with {@code kafka-console-consumer}. The value,
 * version {@link #FORMAT_VERSION}: format u8, address 16 bytes, port u16, version u8, domain u32,
 * template id i32, learned-at i64, last-seen i64, ended-at i64, end u8 (0 live, 1 withdrawn, 2
 * expired), wire length u32, then the {@code TemplateWire} bytes. Version 1 (written before) has no
 * last-seen, ended-at and end: it reads as live with an unknown last re-send.
 */
public final class ArchivedTemplateCodec {

    public static final int FORMAT_VERSION = 2;

    /** Upper bound of one archived template's wire bytes; larger values are malformed. */
    public static final int MAX_WIRE_BYTES = 1 << 20;

    private static final int FIXED_V1 = 1 + 16 + 2 + 1 + 4 + 4 + 8 + 4;

    /** Bytes of a value besides the wire bytes. */
    public static final int FIXED = FIXED_V1 + 8 + 8 + 1;

    private ArchivedTemplateCodec() {}

    public static byte[] key(ArchivedTemplate t) {
        return (t.exporterAddress()
                        + "|"
                        + t.exporterPort()
                        + "|"
                        + t.version()
                        + "|"
                        + t.observationDomainId()
                        + "|"
                        + t.templateId())
                .getBytes(StandardCharsets.UTF_8);
    }

    /** Bytes of {@link #encode}'s value. */
    public static int valueSize(ArchivedTemplate t) {
        return FIXED + t.wire().length;
    }

    public static byte[] encode(ArchivedTemplate t) {
        ByteBuffer b = ByteBuffer.allocate(valueSize(t));
        b.put((byte) FORMAT_VERSION);
        b.putLong(t.exporterAddress().hi());
        b.putLong(t.exporterAddress().lo());
        b.putShort((short) t.exporterPort());
        b.put((byte) t.version());
        b.putInt((int) t.observationDomainId());
        b.putInt(t.templateId());
        b.putLong(t.learnedMillis());
        b.putLong(t.lastSeenMillis());
        b.putLong(t.endedMillis());
        b.put((byte) t.end().code());
        b.putInt(t.wire().length);
        b.put(t.wire());
        return b.array();
    }

    /**
     * Reads a value.
     *
     * @throws IllegalArgumentException if it is not a value this code wrote
     */
    public static ArchivedTemplate decode(byte[] value) {
        if (value == null || value.length < FIXED_V1) {
            throw new IllegalArgumentException(
                    "archived template of "
                            + (value == null ? "null" : value.length + " bytes")
                            + " (expected: >= "
                            + FIXED_V1
                            + ")");
        }
        ByteBuffer b = ByteBuffer.wrap(value);
        int format = b.get() & 0xff;
        if (format != 1 && format != FORMAT_VERSION) {
            throw new IllegalArgumentException(
                    "archived template format " + format + " (expected: 1 or 2)");
        }
        if (format == FORMAT_VERSION && value.length < FIXED) {
            throw new IllegalArgumentException(
                    "archived template of " + value.length + " bytes (expected: >= " + FIXED + ")");
        }
        IpAddress addr = new IpAddress(b.getLong(), b.getLong());
        int port = b.getShort() & 0xffff;
        int version = b.get() & 0xff;
        long domain = b.getInt() & 0xffff_ffffL;
        int templateId = b.getInt();
        long learned = b.getLong();
        long lastSeen = Long.MAX_VALUE;
        long ended = Long.MAX_VALUE;
        ArchivedTemplate.End end = ArchivedTemplate.End.LIVE;
        if (format == FORMAT_VERSION) {
            lastSeen = b.getLong();
            ended = b.getLong();
            end = ArchivedTemplate.End.of(b.get() & 0xff);
        }
        int len = b.getInt();
        if (len < 0 || len > MAX_WIRE_BYTES || len != b.remaining()) {
            throw new IllegalArgumentException(
                    "archived template wire of "
                            + len
                            + " bytes, "
                            + b.remaining()
                            + " remain (expected: equal, <= "
                            + MAX_WIRE_BYTES
                            + ")");
        }
        byte[] wire = new byte[len];
        b.get(wire);
        return new ArchivedTemplate(
                addr, port, version, domain, templateId, wire, learned, lastSeen, ended, end);
    }
}
