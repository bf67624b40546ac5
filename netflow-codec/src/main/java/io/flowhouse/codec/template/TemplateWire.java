// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A compact, versioned binary form of {@link Template} and {@link OptionsData}, for Flink state and
 * a compacted Kafka "templates" topic. Big-endian; the first byte is a format tag.
 */
public final class TemplateWire {

    private static final byte TEMPLATE_V1 = 1;
    private static final byte OPTIONS_V1 = 2;
    private static final byte OPTIONS_V2 = 3;
    private static final byte OPTIONS_V3 = 4;

    private TemplateWire() {}

    /**
     * Encodes a template: tag, id u16, scope count u16, field count u16, fields (u16, u16, u32).
     */
    public static byte[] encode(Template t) {
        ByteBuffer b = ByteBuffer.allocate(7 + 8 * t.fields().size());
        b.put(TEMPLATE_V1);
        b.putShort((short) t.templateId());
        b.putShort((short) t.scopeFieldCount());
        b.putShort((short) t.fields().size());
        for (FieldSpecifier f : t.fields()) {
            b.putShort((short) f.id());
            b.putShort((short) f.length());
            b.putInt((int) f.enterpriseNumber());
        }
        return b.array();
    }

    /** Decodes what {@link #encode(Template)} wrote. */
    public static Template decodeTemplate(byte[] bytes) {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            if (b.get() != TEMPLATE_V1) {
                throw new IllegalArgumentException("not a template (unknown format tag)");
            }
            int id = b.getShort() & 0xffff;
            int scope = b.getShort() & 0xffff;
            int n = b.getShort() & 0xffff;
            if (n * 8L != b.remaining()) {
                throw new IllegalArgumentException(
                        "template of " + n + " fields in " + b.remaining() + " bytes");
            }
            List<FieldSpecifier> fields = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int fid = b.getShort() & 0xffff;
                int len = b.getShort() & 0xffff;
                long pen = b.getInt() & 0xffff_ffffL;
                fields.add(new FieldSpecifier(fid, len, pen));
            }
            return new Template(id, fields, scope);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated template bytes", e);
        }
    }

    /**
     * Whether {@link #encode(Template)} bytes hold an options template (scope count > 0), read from
     * the header without decoding the fields.
     */
    public static boolean isOptionsTemplate(byte[] bytes) {
        if (bytes.length < 7 || bytes[0] != TEMPLATE_V1) {
            throw new IllegalArgumentException("not a template (unknown format tag or truncated)");
        }
        return ((bytes[3] & 0xff) << 8 | (bytes[4] & 0xff)) != 0;
    }

    /** Bytes {@link #encode(Template)} writes for {@code t}. */
    public static int encodedSize(Template t) {
        return encodedTemplateSize(t.fields().size());
    }

    /** Bytes {@link #encode(Template)} writes for a template of {@code fieldCount} fields. */
    public static int encodedTemplateSize(int fieldCount) {
        return 7 + 8 * fieldCount;
    }

    /** Bytes {@link #encode(OptionsData)} writes for {@code o}. */
    public static int encodedSize(OptionsData o) {
        int size = 1 + 8 + 4 + 16 * o.samplingRates().size() + stringsSize(o.interfaceNames());
        if (hasV2Maps(o)) {
            size += stringsSize(o.interfaceDescriptions()) + stringsSize(o.samplerNames());
        }
        if (!o.vrfNames().isEmpty()) {
            size += stringsSize(o.vrfNames());
        }
        return size;
    }

    private static int stringsSize(Map<Long, String> m) {
        int size = 4;
        for (String n : m.values()) {
            size += 8 + 4 + OptionsEditor.utf8Length(n);
        }
        return size;
    }

    /** Options data with descriptions or sampler names takes the second format. */
    private static boolean hasV2Maps(OptionsData o) {
        return !o.interfaceDescriptions().isEmpty()
                || !o.samplerNames().isEmpty()
                || !o.vrfNames().isEmpty();
    }

    /**
     * Encodes options data: tag, init time, rates (count, id, rate), names (count, index, utf-8);
     * in the second format then descriptions and sampler names as the names, in the third then VRF
     * names too. Options data with none of them takes the first format, byte for byte as before
     * they existed. Entries are written in key order, so equal options data always gives equal
     * bytes (callers compare the bytes to skip unchanged writes and to reuse what they decoded).
     */
    public static byte[] encode(OptionsData o) {
        // OptionsData keeps its maps sorted by key (SortedLongMap): no sorting here.
        SortedLongMap<Long> rates = SortedLongMap.of(o.samplingRates());
        ByteBuffer b = ByteBuffer.allocate(encodedSize(o));
        boolean v2 = hasV2Maps(o);
        boolean v3 = !o.vrfNames().isEmpty();
        b.put(v3 ? OPTIONS_V3 : v2 ? OPTIONS_V2 : OPTIONS_V1);
        b.putLong(o.systemInitTimeMillis());
        b.putInt(rates.size());
        for (int i = 0; i < rates.size(); i++) {
            b.putLong(rates.keyAt(i));
            b.putLong(rates.valueAt(i));
        }
        putStrings(b, o.interfaceNames());
        if (v2) {
            putStrings(b, o.interfaceDescriptions());
            putStrings(b, o.samplerNames());
        }
        if (v3) {
            putStrings(b, o.vrfNames());
        }
        return b.array();
    }

    private static void putStrings(ByteBuffer b, Map<Long, String> m) {
        SortedLongMap<String> sorted = SortedLongMap.of(m);
        b.putInt(sorted.size());
        for (int i = 0; i < sorted.size(); i++) {
            byte[] n = sorted.valueAt(i).getBytes(StandardCharsets.UTF_8);
            b.putLong(sorted.keyAt(i));
            b.putInt(n.length);
            b.put(n);
        }
    }

    /** Decodes what {@link #encode(OptionsData)} wrote, in any of its formats. */
    public static OptionsData decodeOptions(byte[] bytes) {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            byte tag = b.get();
            if (tag != OPTIONS_V1 && tag != OPTIONS_V2 && tag != OPTIONS_V3) {
                throw new IllegalArgumentException("not options data (unknown format tag)");
            }
            long init = b.getLong();
            int nr = b.getInt();
            if (nr < 0 || nr * 16L > b.remaining()) {
                throw new IllegalArgumentException("bad rate count " + nr);
            }
            Map<Long, Long> rates = new HashMap<>();
            for (int i = 0; i < nr; i++) {
                rates.put(b.getLong(), b.getLong());
            }
            Map<Long, String> names = strings(b, "name");
            if (tag == OPTIONS_V1) {
                return new OptionsData(rates, init, names);
            }
            Map<Long, String> descriptions = strings(b, "description");
            Map<Long, String> samplerNames = strings(b, "sampler name");
            if (tag == OPTIONS_V2) {
                return new OptionsData(rates, init, names, descriptions, samplerNames);
            }
            Map<Long, String> vrfNames = strings(b, "VRF name");
            return new OptionsData(rates, init, names, descriptions, samplerNames, vrfNames);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated options bytes", e);
        }
    }

    private static Map<Long, String> strings(ByteBuffer b, String what) {
        int nn = b.getInt();
        if (nn < 0 || nn * 12L > b.remaining()) {
            throw new IllegalArgumentException("bad " + what + " count " + nn);
        }
        Map<Long, String> m = new HashMap<>();
        for (int i = 0; i < nn; i++) {
            long key = b.getLong();
            int len = b.getInt();
            if (len < 0 || len > b.remaining()) {
                throw new IllegalArgumentException("bad " + what + " length " + len);
            }
            byte[] n = new byte[len];
            b.get(n);
            m.put(key, new String(n, StandardCharsets.UTF_8));
        }
        return m;
    }
}
