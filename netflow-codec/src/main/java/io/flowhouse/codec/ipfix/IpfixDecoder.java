// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.ipfix;

import io.flowhouse.codec.DataSetDecoder;
import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.MalformedSetException;
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
 * Decodes IPFIX messages (RFC 7011): template, options template and data sets, variable-length
 * fields, enterprise elements, template withdrawals (section 8.1). Holds reusable scratch: one
 * instance per thread.
 */
public final class IpfixDecoder {

    /** Message header length (RFC 7011 section 3.1). */
    public static final int HEADER_SIZE = 16;

    public static final int SET_HEADER_SIZE = SetWalker.SET_HEADER_SIZE;
    public static final int TEMPLATE_SET_ID = 2;
    public static final int OPTIONS_TEMPLATE_SET_ID = 3;
    public static final int MIN_DATA_SET_ID = SetWalker.MIN_DATA_SET_ID;

    /** Enterprise bit of a field specifier's element id. */
    static final int ENTERPRISE_BIT = 0x8000;

    private static final SetWalker SETS =
            new SetWalker(
                    "set",
                    "domain",
                    TEMPLATE_SET_ID,
                    OPTIONS_TEMPLATE_SET_ID,
                    false,
                    (b, pos, end, options, data, scope, cache, out) -> {
                        templates(b, pos, end, options, data, scope, cache, out);
                        return 0;
                    });

    private final DataSetDecoder data;
    private final DecodeResult.Builder builder = new DecodeResult.Builder(1);

    public IpfixDecoder(DataSetDecoder data) {
        this.data = data;
    }

    /** Decodes one message from {@code b}'s position; does not move the position. */
    public DecodeResult decode(ByteBuffer b, DecodeContext ctx, TemplateCache cache)
            throws TruncatedMessageException, MalformedSetException {
        int start = b.position();
        int available = b.limit() - start;
        if (available < HEADER_SIZE) {
            throw new TruncatedMessageException(
                    DecodeProblem.Kind.TRUNCATED_HEADER,
                    "IPFIX header needs "
                            + HEADER_SIZE
                            + " bytes, "
                            + available
                            + " remain (expected: >= "
                            + HEADER_SIZE
                            + ")");
        }
        int length = b.getShort(start + 2) & 0xffff; // uint16
        if (length > available) {
            throw new TruncatedMessageException(
                    DecodeProblem.Kind.LENGTH_PAST_END,
                    "IPFIX length "
                            + length
                            + ", datagram has "
                            + available
                            + " bytes (expected: <= "
                            + available
                            + ")");
        }
        if (length < HEADER_SIZE) {
            throw new MalformedSetException(
                    DecodeProblem.Kind.TRUNCATED_HEADER,
                    "IPFIX length " + length + " (expected: >= " + HEADER_SIZE + ")");
        }
        long exportSecs = b.getInt(start + 4) & 0xffff_ffffL; // uint32
        long sequence = b.getInt(start + 8) & 0xffff_ffffL; // uint32
        long domain = b.getInt(start + 12) & 0xffff_ffffL; // uint32
        long exportMillis = exportSecs * 1000L;
        DecodeResult.Builder out = builder.reset(length / 24);
        out.header(10, domain, sequence, exportMillis, -1, -1L);
        TemplateScope scope = data.scope(ctx.exporter(), 10, domain);
        out.scope(scope);
        data.context()
                .reset(
                        10,
                        ctx.exporter().address(),
                        ctx.exporter().port(),
                        domain,
                        sequence,
                        exportMillis,
                        ctx.receivedMillis(),
                        -1L);
        data.context().stream(ctx.streamId(), ctx.streamSequence());
        data.begin(cache.options(scope));
        int limit = start + length;
        if (length < available) {
            out.problem(
                    DecodeProblem.Kind.TRAILING_BYTES,
                    (available - length) + " bytes after the message length " + length,
                    -1);
        }
        SETS.walk(b, start, start + HEADER_SIZE, limit, data, scope, cache, out);
        data.finish(cache, scope);
        return out.build();
    }

    private static void templates(
            ByteBuffer b,
            int pos,
            int end,
            boolean options,
            DataSetDecoder data,
            TemplateScope scope,
            TemplateCache cache,
            DecodeResult.Builder out) {
        int headerLen = options ? 6 : 4;
        while (end - pos >= 4) {
            int id = b.getShort(pos) & 0xffff;
            int fieldCount = b.getShort(pos + 2) & 0xffff;
            if (fieldCount == 0) {
                pos += 4;
                if (id == 0) {
                    break; // padding
                }
                withdraw(id, options, data, scope, cache, out);
                continue;
            }
            if (end - pos < headerLen) {
                break;
            }
            int scopeCount = options ? b.getShort(pos + 4) & 0xffff : 0;
            pos += headerLen;
            if (!SetWalker.fieldsFit(id, fieldCount, end - pos, out)) {
                return;
            }
            boolean valid =
                    id >= MIN_DATA_SET_ID
                            && !(options && (scopeCount == 0 || scopeCount > fieldCount));
            Template known = valid ? cache.find(data.key(scope, id)).orElse(null) : null;
            int after =
                    known == null
                            ? -1
                            : data.repeats(b, pos, end, fieldCount, scopeCount, known, true);
            if (after >= 0) {
                pos = after;
                data.learn(cache, scope, known, out); // a refresh
                continue;
            }
            List<FieldSpecifier> fields = new ArrayList<>(fieldCount);
            for (int i = 0; i < fieldCount; i++) {
                if (end - pos < 4) {
                    if (!out.count(DecodeProblem.Kind.FIELD_COUNT_OVERFLOW)) {
                        return;
                    }
                    out.describe(
                            DecodeProblem.Kind.FIELD_COUNT_OVERFLOW,
                            "template "
                                    + id
                                    + ": field "
                                    + i
                                    + " of "
                                    + fieldCount
                                    + " runs past the set end",
                            id);
                    return;
                }
                int eid = b.getShort(pos) & 0xffff;
                int flen = b.getShort(pos + 2) & 0xffff;
                pos += 4;
                long pen = 0L;
                if ((eid & ENTERPRISE_BIT) != 0) {
                    if (end - pos < 4) {
                        if (!out.count(DecodeProblem.Kind.FIELD_COUNT_OVERFLOW)) {
                            return;
                        }
                        out.describe(
                                DecodeProblem.Kind.FIELD_COUNT_OVERFLOW,
                                "template "
                                        + id
                                        + ": enterprise number of field "
                                        + i
                                        + " runs past the set end",
                                id);
                        return;
                    }
                    pen = b.getInt(pos) & 0xffff_ffffL;
                    pos += 4;
                    eid &= ~ENTERPRISE_BIT;
                }
                fields.add(new FieldSpecifier(eid, flen, pen));
            }
            if (!valid) {
                if (!out.count(DecodeProblem.Kind.TEMPLATE_INVALID)) {
                    continue;
                }
                out.describe(
                        DecodeProblem.Kind.TEMPLATE_INVALID,
                        (options ? "options template " : "template ")
                                + id
                                + " with "
                                + fieldCount
                                + " fields, "
                                + scopeCount
                                + " scope fields (expected: id >= 256"
                                + (options ? ", 1..fieldCount scope fields)" : ")"),
                        id);
                continue;
            }
            data.learn(cache, scope, new Template(id, fields, scopeCount), out);
        }
    }

    private static void withdraw(
            int id,
            boolean options,
            DataSetDecoder data,
            TemplateScope scope,
            TemplateCache cache,
            DecodeResult.Builder out) {
        if (id == (options ? OPTIONS_TEMPLATE_SET_ID : TEMPLATE_SET_ID)) {
            // RFC 7011 section 8.1: withdraw all. Once per message is enough: a message of
            // thousands of them must not walk the cache thousands of times.
            if (data.firstWithdrawAll(options)) {
                cache.removeAll(scope, options);
                out.withdrawn(scope.key(id));
            }
            return;
        }
        if (cache.remove(scope.key(id))) {
            out.withdrawn(scope.key(id));
        } else if (out.count(DecodeProblem.Kind.TEMPLATE_WITHDRAWAL_UNKNOWN)) {
            out.describe(
                    DecodeProblem.Kind.TEMPLATE_WITHDRAWAL_UNKNOWN,
                    "withdrawal of unknown template " + id,
                    id);
        }
    }
}
