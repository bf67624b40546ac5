// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.Template;
import io.flowhouse.codec.template.TemplateCache;
import io.flowhouse.codec.template.TemplateScope;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;

/**
 * Walks the sets of one message. NetFlow v9 FlowSets (RFC 3954 section 5.2) and IPFIX sets (RFC
 * 7011 section 3.3.2) share one layout: a uint16 id, a uint16 length that counts the 4-byte header,
 * two template set ids below 256 and data sets from 256. Each set is bounded by its own length, so
 * a bad length cannot overrun into the next one; data sets are decoded with their cached template,
 * template sets go to the version's {@link TemplateSetReader}. Immutable, so one instance per
 * version can be shared by all threads.
 */
public final class SetWalker {

    /** Set (FlowSet) header length: id and length. */
    public static final int SET_HEADER_SIZE = 4;

    /** Smallest data set id, and smallest template id (both versions). */
    public static final int MIN_DATA_SET_ID = 256;

    /** Reads the template records of one template or options template set. */
    @FunctionalInterface
    public interface TemplateSetReader {
        /**
         * Reads the records in {@code [pos, end)} of {@code b}, learning templates into {@code
         * cache}; returns how many template records it read.
         */
        int read(
                ByteBuffer b,
                int pos,
                int end,
                boolean options,
                DataSetDecoder data,
                TemplateScope scope,
                TemplateCache cache,
                DecodeResult.Builder out);
    }

    private final String setWord;
    private final String scopeWord;
    private final int templateSetId;
    private final int optionsTemplateSetId;
    private final boolean v9;
    private final TemplateSetReader templates;

    /**
     * @param setWord the version's word for a set in problem texts: "set" or "FlowSet"
     * @param scopeWord the version's word for the observation domain: "domain" or "source id"
     * @param templateSetId 2 for IPFIX, 0 for v9
     * @param optionsTemplateSetId 3 for IPFIX, 1 for v9
     * @param v9 passed on to {@link DataSetDecoder#decode}
     * @param templates reads the version's template records
     */
    public SetWalker(
            String setWord,
            String scopeWord,
            int templateSetId,
            int optionsTemplateSetId,
            boolean v9,
            TemplateSetReader templates) {
        this.setWord = setWord;
        this.scopeWord = scopeWord;
        this.templateSetId = templateSetId;
        this.optionsTemplateSetId = optionsTemplateSetId;
        this.v9 = v9;
        this.templates = templates;
    }

    /**
     * Walks the sets in {@code [pos, limit)} of the message that starts at {@code start}. Reports a
     * set shorter than its header or longer than what remains, a missing template, a reserved set
     * id and bytes after the last set as problems. Records are numbered by their position: the
     * ordinal of their set among all sets of the message, and their ordinal within the set. Returns
     * the number of template records read.
     */
    public int walk(
            ByteBuffer b,
            int start,
            int pos,
            int limit,
            DataSetDecoder data,
            TemplateScope scope,
            TemplateCache cache,
            DecodeResult.Builder out) {
        int templateRecords = 0;
        // Every set counts, whatever its kind and whether it decodes: a record's position must not
        // depend on what happened to be decodable (a replay that knows more templates agrees).
        int setIndex = 0;
        while (limit - pos >= SET_HEADER_SIZE) {
            int id = b.getShort(pos) & 0xffff; // uint16
            int len = b.getShort(pos + 2) & 0xffff; // uint16
            if (len < SET_HEADER_SIZE) {
                out.problem(
                        DecodeProblem.Kind.ZERO_LENGTH_SET,
                        setWord
                                + " "
                                + id
                                + " at offset "
                                + (pos - start)
                                + " has length "
                                + len
                                + " (expected: >= 4)",
                        id);
                break;
            }
            if (len > limit - pos) {
                out.problem(
                        DecodeProblem.Kind.SET_LENGTH_PAST_END,
                        setWord
                                + " "
                                + id
                                + " at offset "
                                + (pos - start)
                                + " declares "
                                + len
                                + " bytes, "
                                + (limit - pos)
                                + " remain",
                        id);
                break;
            }
            int body = pos + SET_HEADER_SIZE;
            int end = pos + len;
            if (id >= MIN_DATA_SET_ID) {
                Optional<Template> t = cache.find(data.key(scope, id));
                if (t.isPresent()) {
                    data.decode(b, body, end, setIndex, t.get(), v9, out);
                } else if (out.missingTemplate(id)) {
                    out.describe(
                            DecodeProblem.Kind.TEMPLATE_MISSING,
                            "no template "
                                    + id
                                    + " for "
                                    + scope.exporter()
                                    + " "
                                    + scopeWord
                                    + " "
                                    + scope.observationDomainId()
                                    + "; "
                                    + (len - SET_HEADER_SIZE)
                                    + " bytes dropped",
                            id);
                }
            } else if (id == templateSetId || id == optionsTemplateSetId) {
                templateRecords +=
                        templates.read(
                                b, body, end, id == optionsTemplateSetId, data, scope, cache, out);
            } else if (out.count(DecodeProblem.Kind.RESERVED_SET_ID)) {
                out.describe(
                        DecodeProblem.Kind.RESERVED_SET_ID,
                        setWord
                                + " id "
                                + id
                                + " is reserved (expected: "
                                + templateSetId
                                + ", "
                                + optionsTemplateSetId
                                + " or >= 256)",
                        id);
            }
            pos = end;
            setIndex++;
        }
        if (pos < limit) {
            out.problem(
                    DecodeProblem.Kind.TRAILING_BYTES,
                    (limit - pos) + " bytes after the last " + setWord,
                    -1);
        }
        return templateRecords;
    }

    /**
     * If the template record whose field specifiers start at {@code pos} repeats {@code known}
     * field for field (exporters resend their templates periodically), the position after its last
     * field specifier; otherwise -1. Lets a refresh reuse the cached template instead of allocating
     * a new one.
     *
     * @param enterpriseBit true for IPFIX (the top bit of an element id announces a 4-byte PEN),
     *     false for NetFlow v9 (16-bit field types, no PEN)
     */
    public static int repeats(
            ByteBuffer b,
            int pos,
            int end,
            int fieldCount,
            int scopeFieldCount,
            Template known,
            boolean enterpriseBit) {
        List<FieldSpecifier> fields = known.fields();
        if (fields.size() != fieldCount || known.scopeFieldCount() != scopeFieldCount) {
            return -1;
        }
        for (int i = 0; i < fieldCount; i++) {
            if (end - pos < 4) {
                return -1;
            }
            int id = b.getShort(pos) & 0xffff;
            int length = b.getShort(pos + 2) & 0xffff;
            pos += 4;
            long pen = 0L;
            if (enterpriseBit && (id & 0x8000) != 0) {
                if (end - pos < 4) {
                    return -1;
                }
                pen = b.getInt(pos) & 0xffff_ffffL;
                pos += 4;
                id &= 0x7fff;
            }
            FieldSpecifier f = fields.get(i);
            if (f.id() != id || f.length() != length || f.enterpriseNumber() != pen) {
                return -1;
            }
        }
        return pos;
    }

    /**
     * Whether {@code fieldCount} field specifiers of 4 bytes fit in the {@code remaining} bytes of
     * a template set; if not, reports {@code FIELD_COUNT_OVERFLOW} for template {@code id}. Checked
     * before allocating from a count read off the wire.
     */
    public static boolean fieldsFit(
            int id, int fieldCount, int remaining, DecodeResult.Builder out) {
        if (fieldCount * 4 <= remaining) {
            return true;
        }
        if (!out.count(DecodeProblem.Kind.FIELD_COUNT_OVERFLOW)) {
            return false;
        }
        out.describe(
                DecodeProblem.Kind.FIELD_COUNT_OVERFLOW,
                "template "
                        + id
                        + " declares "
                        + fieldCount
                        + " fields, "
                        + remaining
                        + " bytes remain (expected: >= "
                        + fieldCount * 4
                        + ")",
                id);
        return false;
    }
}
