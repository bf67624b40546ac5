// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.v9;

import io.flowhouse.codec.DataSetDecoder;
import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.SetWalker;
import io.flowhouse.codec.TruncatedMessageException;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.Template;
import io.flowhouse.codec.template.TemplateCache;
import io.flowhouse.codec.template.TemplateScope;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes NetFlow v9 export packets (RFC 3954). FlowSets are walked by their length; the header
 * {@code count} is only a hint (softflowd 1.1.0 leaves templates out of it), a difference is
 * reported as {@code COUNT_MISMATCH}. Holds reusable scratch: one instance per thread.
 */
public final class V9Decoder {

    /** Header length (RFC 3954 section 5.1). */
    public static final int HEADER_SIZE = 20;

    /** FlowSet header length: id and length. */
    public static final int FLOWSET_HEADER_SIZE = SetWalker.SET_HEADER_SIZE;

    public static final int TEMPLATE_FLOWSET_ID = 0;
    public static final int OPTIONS_TEMPLATE_FLOWSET_ID = 1;

    /** Smallest data FlowSet id (and template id). */
    public static final int MIN_DATA_FLOWSET_ID = SetWalker.MIN_DATA_SET_ID;

    private static final SetWalker FLOWSETS =
            new SetWalker(
                    "FlowSet",
                    "source id",
                    TEMPLATE_FLOWSET_ID,
                    OPTIONS_TEMPLATE_FLOWSET_ID,
                    true,
                    (b, pos, end, options, data, scope, cache, out) ->
                            options
                                    ? optionsTemplates(b, pos, end, data, scope, cache, out)
                                    : templates(b, pos, end, data, scope, cache, out));

    private final DataSetDecoder data;
    private final DecodeResult.Builder builder = new DecodeResult.Builder(1);

    public V9Decoder(DataSetDecoder data) {
        this.data = data;
    }

    /** Decodes one packet from {@code b}'s position to its limit; does not move the position. */
    public DecodeResult decode(ByteBuffer b, DecodeContext ctx, TemplateCache cache)
            throws TruncatedMessageException {
        int start = b.position();
        int limit = b.limit();
        if (limit - start < HEADER_SIZE) {
            throw new TruncatedMessageException(
                    DecodeProblem.Kind.TRUNCATED_HEADER,
                    "NetFlow v9 header needs "
                            + HEADER_SIZE
                            + " bytes, "
                            + (limit - start)
                            + " remain (expected: >= "
                            + HEADER_SIZE
                            + ")");
        }
        int count = b.getShort(start + 2) & 0xffff; // uint16
        long sysUptime = b.getInt(start + 4) & 0xffff_ffffL; // uint32 ms
        long unixSecs = b.getInt(start + 8) & 0xffff_ffffL; // uint32
        long sequence = b.getInt(start + 12) & 0xffff_ffffL; // uint32
        long sourceId = b.getInt(start + 16) & 0xffff_ffffL; // uint32
        long exportMillis = unixSecs * 1000L;
        DecodeResult.Builder out = builder.reset(count);
        out.header(9, sourceId, sequence, exportMillis, count, sysUptime);
        TemplateScope scope = data.scope(ctx.exporter(), 9, sourceId);
        out.scope(scope);
        data.context()
                .reset(
                        9,
                        ctx.exporter().address(),
                        ctx.exporter().port(),
                        sourceId,
                        sequence,
                        exportMillis,
                        ctx.receivedMillis(),
                        sysUptime);
        data.context().stream(ctx.streamId(), ctx.streamSequence());
        data.begin(cache.options(scope));
        int templateRecords =
                FLOWSETS.walk(b, start, start + HEADER_SIZE, limit, data, scope, cache, out);
        data.finish(cache, scope);
        int found = out.recordCount() + out.optionsRecordCount() + templateRecords;
        if (found != count) {
            out.problem(
                    DecodeProblem.Kind.COUNT_MISMATCH,
                    "header count " + count + ", found " + found + " records",
                    -1);
        }
        return out.build();
    }

    private static int templates(
            ByteBuffer b,
            int pos,
            int end,
            DataSetDecoder data,
            TemplateScope scope,
            TemplateCache cache,
            DecodeResult.Builder out) {
        int n = 0;
        while (end - pos >= 4) {
            int id = b.getShort(pos) & 0xffff;
            int fieldCount = b.getShort(pos + 2) & 0xffff;
            pos += 4;
            if (id == 0 && fieldCount == 0) {
                break; // padding
            }
            if (!SetWalker.fieldsFit(id, fieldCount, end - pos, out)) {
                break;
            }
            Template known =
                    id >= MIN_DATA_FLOWSET_ID && fieldCount > 0
                            ? cache.find(data.key(scope, id)).orElse(null)
                            : null;
            if (known != null && data.repeats(b, pos, end, fieldCount, 0, known, false) >= 0) {
                pos += fieldCount * 4;
                n++;
                data.learn(cache, scope, known, out); // a refresh
                continue;
            }
            List<FieldSpecifier> fields = fields(b, pos, fieldCount);
            pos += fieldCount * 4;
            n++;
            if (id < MIN_DATA_FLOWSET_ID || fieldCount == 0) {
                if (!out.count(DecodeProblem.Kind.TEMPLATE_INVALID)) {
                    continue;
                }
                out.describe(
                        DecodeProblem.Kind.TEMPLATE_INVALID,
                        "template "
                                + id
                                + " with "
                                + fieldCount
                                + " fields (expected: id >= 256, >= 1 field)",
                        id);
                continue;
            }
            data.learn(cache, scope, Template.of(id, fields), out);
        }
        return n;
    }

    private static int optionsTemplates(
            ByteBuffer b,
            int pos,
            int end,
            DataSetDecoder data,
            TemplateScope scope,
            TemplateCache cache,
            DecodeResult.Builder out) {
        int n = 0;
        while (end - pos >= 6) {
            int id = b.getShort(pos) & 0xffff;
            int scopeLen = b.getShort(pos + 2) & 0xffff; // bytes, not fields
            int optionLen = b.getShort(pos + 4) & 0xffff; // bytes
            pos += 6;
            if (id == 0 && scopeLen == 0 && optionLen == 0) {
                break; // padding
            }
            if (scopeLen + optionLen > end - pos) {
                if (!out.count(DecodeProblem.Kind.FIELD_COUNT_OVERFLOW)) {
                    break;
                }
                out.describe(
                        DecodeProblem.Kind.FIELD_COUNT_OVERFLOW,
                        "options template "
                                + id
                                + " declares "
                                + (scopeLen + optionLen)
                                + " bytes of fields, "
                                + (end - pos)
                                + " remain",
                        id);
                break;
            }
            int scopeCount = scopeLen / 4;
            int fieldCount = scopeCount + optionLen / 4;
            boolean valid =
                    id >= MIN_DATA_FLOWSET_ID
                            && scopeCount > 0
                            && scopeLen % 4 == 0
                            && optionLen % 4 == 0;
            Template known = valid ? cache.find(data.key(scope, id)).orElse(null) : null;
            if (known != null
                    && data.repeats(b, pos, end, fieldCount, scopeCount, known, false) >= 0) {
                pos += fieldCount * 4;
                n++;
                data.learn(cache, scope, known, out); // a refresh
                continue;
            }
            List<FieldSpecifier> fields = fields(b, pos, fieldCount);
            pos += fieldCount * 4;
            pos += (scopeLen % 4) + (optionLen % 4);
            n++;
            if (!valid) {
                if (!out.count(DecodeProblem.Kind.TEMPLATE_INVALID)) {
                    continue;
                }
                out.describe(
                        DecodeProblem.Kind.TEMPLATE_INVALID,
                        "options template "
                                + id
                                + " with scope length "
                                + scopeLen
                                + " and option length "
                                + optionLen
                                + " (expected: id >= 256, multiples of 4, >= 1 scope field)",
                        id);
                continue;
            }
            data.learn(cache, scope, new Template(id, fields, scopeCount), out);
        }
        return n;
    }

    /**
     * Reads {@code count} v9 field specifiers (type, length; no enterprise bit) from {@code pos}.
     */
    private static List<FieldSpecifier> fields(ByteBuffer b, int pos, int count) {
        List<FieldSpecifier> fields = new ArrayList<>(count);
        for (int i = 0; i < count; i++, pos += 4) {
            fields.add(FieldSpecifier.of(b.getShort(pos) & 0xffff, b.getShort(pos + 2) & 0xffff));
        }
        return fields;
    }
}
