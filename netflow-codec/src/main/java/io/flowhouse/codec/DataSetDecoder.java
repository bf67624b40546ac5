// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import io.flowhouse.codec.flow.FlowRecordMapper;
import io.flowhouse.codec.flow.FlowRecordMapper.Target;
import io.flowhouse.codec.flow.RecordContext;
import io.flowhouse.codec.flow.RecordLayout;
import io.flowhouse.codec.template.OptionsData;
import io.flowhouse.codec.template.Template;
import io.flowhouse.codec.template.TemplateCache;
import io.flowhouse.codec.template.TemplateKey;
import io.flowhouse.codec.template.TemplateScope;
import io.flowhouse.codec.template.TemplateStatus;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Decodes data sets (v9 data FlowSets, IPFIX data sets) with a template: data records become {@link
 * io.flowhouse.codec.flow.FlowRecord}s, options data records update the scope's {@link
 * OptionsData}. Shared by the v9 and IPFIX decoders. Holds reusable scratch, so one instance per
 * thread.
 */
public final class DataSetDecoder {

    /** Compiled layouts kept per decoder; cleared when full (templates change rarely). */
    static final int MAX_LAYOUTS = 4096;

    /** Slots of the per-template memos below, direct-mapped by a hash of the template id. */
    private static final int SLOT_BITS = 6;

    private final FlowRecordMapper mapper;
    private final Map<Template, RecordLayout> layouts = new HashMap<>();
    private final Map<Template, RecordLayout> v9OptionLayouts = new HashMap<>();
    // In front of the maps above: a template instance found again costs no hashing of its fields.
    private final Map<Template, RecordLayout> byIdentity = new IdentityHashMap<>();
    private final Map<Template, RecordLayout> v9OptionsByIdentity = new IdentityHashMap<>();
    private final long[] scratch = new long[FlowRecordMapper.SCRATCH_SIZE];
    private final RecordContext context = new RecordContext();
    // Layouts of recent templates by slot: exporters interleave sets of several templates
    // (pmacct: IPv4 and IPv6 in one message), so one "last template" would miss every other set.
    private final Template[] layoutTemplates = new Template[1 << SLOT_BITS];
    private final RecordLayout[] slotLayouts = new RecordLayout[1 << SLOT_BITS];
    private byte[] copy = new byte[0];
    // Recent scope and keys, so messages of one exporter allocate neither per message or set.
    private TemplateScope lastScope;
    private final TemplateKey[] keys = new TemplateKey[1 << SLOT_BITS];
    // Templates seen resent, with the raw bytes of their field specifiers: an exporter resending a
    // template (nfreplay: in every datagram) costs one array comparison, no field-by-field walk.
    private final Template[] wireTemplates = new Template[1 << SLOT_BITS];
    private final boolean[] wireEnterprise = new boolean[1 << SLOT_BITS];
    private final byte[][] wireBytes = new byte[1 << SLOT_BITS][];
    private final int[] wireLengths = new int[1 << SLOT_BITS];
    // Templates already checked to describe records of at least one byte.
    private final Template[] nonEmpty = new Template[1 << SLOT_BITS];

    public DataSetDecoder(FlowRecordMapper mapper) {
        this.mapper = mapper;
    }

    public RecordContext context() {
        return context;
    }

    /** The template scope of a message; the previous message's instance if it is the same. */
    public TemplateScope scope(ExporterKey exporter, int version, long observationDomainId) {
        TemplateScope s = lastScope;
        if (s == null
                || s.observationDomainId() != observationDomainId
                || s.version() != version
                || !s.exporter().equals(exporter)) {
            s = new TemplateScope(exporter, version, observationDomainId);
            lastScope = s;
        }
        return s;
    }

    /**
     * The memo slot of template {@code id}: a multiplicative hash, as exporters number templates
     * both consecutively (256, 257) and in round steps (pmacct: 1024, 2048).
     */
    private static int slot(int id) {
        return (id * 0x9e37_79b1) >>> (32 - SLOT_BITS);
    }

    /** The key of template {@code id} in {@code scope}; recent keys are reused. */
    public TemplateKey key(TemplateScope scope, int id) {
        int i = slot(id);
        TemplateKey k = keys[i];
        if (k == null || k.scope() != scope || k.templateId() != id) {
            k = scope.key(id);
            keys[i] = k;
        }
        return k;
    }

    /** The compiled layout of a template (cached). */
    public RecordLayout layout(Template t, boolean v9) {
        boolean v9Options = v9 && t.isOptions();
        int slot = slot(t.templateId());
        if (layoutTemplates[slot] == t && !v9Options) {
            return slotLayouts[slot];
        }
        Map<Template, RecordLayout> ids = v9Options ? v9OptionsByIdentity : byIdentity;
        RecordLayout l = ids.get(t);
        if (l == null) {
            Map<Template, RecordLayout> m = v9Options ? v9OptionLayouts : layouts;
            l = m.get(t);
            if (l == null) {
                if (m.size() >= MAX_LAYOUTS) {
                    m.clear();
                }
                l = RecordLayout.compile(t, mapper, v9Options);
                m.put(t, l);
            }
            if (ids.size() >= MAX_LAYOUTS) {
                ids.clear();
            }
            ids.put(t, l);
        }
        if (!v9Options) {
            layoutTemplates[slot] = t;
            slotLayouts[slot] = l;
        }
        return l;
    }

    /**
     * If the template record whose field specifiers start at {@code pos} repeats {@code known}
     * field for field, the position after its last field specifier; otherwise -1 (see {@link
     * SetWalker#repeats}). A template seen resent before is compared as raw bytes.
     */
    public int repeats(
            ByteBuffer b,
            int pos,
            int end,
            int fieldCount,
            int scopeFieldCount,
            Template known,
            boolean enterpriseBit) {
        if (known.fields().size() != fieldCount || known.scopeFieldCount() != scopeFieldCount) {
            return -1;
        }
        int slot = slot(known.templateId());
        boolean heap = b.hasArray();
        if (heap && wireTemplates[slot] == known && wireEnterprise[slot] == enterpriseBit) {
            int n = wireLengths[slot];
            int from = b.arrayOffset() + pos;
            if (end - pos >= n && Arrays.equals(b.array(), from, from + n, wireBytes[slot], 0, n)) {
                return pos + n;
            }
        }
        int after =
                SetWalker.repeats(b, pos, end, fieldCount, scopeFieldCount, known, enterpriseBit);
        if (after >= 0 && heap) {
            int n = after - pos;
            byte[] w = wireBytes[slot];
            if (w == null || w.length < n) {
                w = new byte[Math.max(n, 64)];
                wireBytes[slot] = w;
            }
            b.get(pos, w, 0, n);
            wireLengths[slot] = n;
            wireTemplates[slot] = known;
            wireEnterprise[slot] = enterpriseBit;
        }
        return after;
    }

    /** Stores a learned template and reports it; a full cache is a TEMPLATE_FLOOD problem. */
    public void learn(
            TemplateCache cache, TemplateScope scope, Template t, DecodeResult.Builder out) {
        int slot = slot(t.templateId());
        if (nonEmpty[slot] != t) {
            if (t.minRecordLength() == 0) {
                out.problem(
                        DecodeProblem.Kind.TEMPLATE_INVALID,
                        "template " + t.templateId() + " describes zero-length records",
                        t.templateId());
                return;
            }
            nonEmpty[slot] = t;
        }
        TemplateStatus s = cache.put(key(scope, t.templateId()), t);
        if (s == TemplateStatus.REJECTED_LIMIT) {
            out.problem(
                    DecodeProblem.Kind.TEMPLATE_FLOOD,
                    "template "
                            + t.templateId()
                            + " not stored: exporter "
                            + scope.exporter()
                            + " reached its template limit",
                    t.templateId());
        } else {
            out.learned(t);
        }
    }

    /**
     * Decodes the records of one data set.
     *
     * @param b the message
     * @param pos absolute start of the set body
     * @param limit absolute end of the set
     * @param t the set's template
     * @param v9 true for NetFlow v9 (options scope fields are scope types)
     */
    public void decode(
            ByteBuffer b,
            int pos,
            int limit,
            Template t,
            boolean v9,
            TemplateCache cache,
            TemplateScope scope,
            DecodeResult.Builder out) {
        RecordLayout layout = layout(t, v9);
        for (String odd : layout.oddFields()) {
            out.problem(
                    DecodeProblem.Kind.ODD_FIELD_LENGTH,
                    "template " + t.templateId() + ": " + odd + " skipped",
                    t.templateId());
        }
        int min = layout.minRecordLength();
        long[] v = scratch;
        // Records are read from the backing array: index = position + off.
        byte[] a;
        int off;
        if (b.hasArray()) {
            a = b.array();
            off = b.arrayOffset();
        } else {
            if (copy.length < limit) {
                copy = new byte[limit];
            }
            b.get(0, copy, 0, limit);
            a = copy;
            off = 0;
        }
        boolean options = t.isOptions();
        OptionsData before = context.options();
        int missingBefore = context.timeBaseMissing();
        while (limit - pos >= min) {
            int next = layout.read(a, pos + off, limit + off, v);
            if (next < 0) {
                if (!allZero(a, pos + off, limit + off)) {
                    out.problem(
                            DecodeProblem.Kind.RECORD_TRUNCATED,
                            "template "
                                    + t.templateId()
                                    + ": record at offset "
                                    + pos
                                    + " runs past the set end "
                                    + limit,
                            t.templateId());
                }
                break;
            }
            if (options) {
                context.options(applyOptions(a, v, context.options()));
                out.optionsRecord();
            } else {
                out.record(FlowRecordMapper.toFlowRecord(v, context, out.recordCount()));
            }
            pos = next - off;
        }
        if (context.options() != before) {
            cache.putOptions(scope, context.options());
        }
        if (context.timeBaseMissing() > missingBefore) {
            out.problem(
                    DecodeProblem.Kind.TIME_BASE_MISSING,
                    (context.timeBaseMissing() - missingBefore)
                            + " records of template "
                            + t.templateId()
                            + " have sysUpTime-relative times but no systemInitTimeMilliseconds"
                            + " is known",
                    t.templateId());
        }
    }

    private static boolean allZero(byte[] b, int pos, int limit) {
        for (int i = pos; i < limit; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean has(long[] v, Target t) {
        return (v[FlowRecordMapper.PRESENT] & (1L << t.ordinal())) != 0;
    }

    private static OptionsData applyOptions(byte[] b, long[] v, OptionsData o) {
        long sampler =
                has(v, Target.SAMPLER_ID)
                        ? v[Target.SAMPLER_ID.ordinal()]
                        : OptionsData.ANY_SAMPLER;
        long rate = 0;
        if (has(v, Target.SAMPLING_INTERVAL)) {
            rate = v[Target.SAMPLING_INTERVAL.ordinal()];
        } else if (has(v, Target.SAMPLER_RANDOM_INTERVAL)) {
            rate = v[Target.SAMPLER_RANDOM_INTERVAL.ordinal()];
        } else if (has(v, Target.SAMPLING_PACKET_INTERVAL)) {
            long interval = v[Target.SAMPLING_PACKET_INTERVAL.ordinal()];
            long space =
                    has(v, Target.SAMPLING_PACKET_SPACE)
                            ? v[Target.SAMPLING_PACKET_SPACE.ordinal()]
                            : 0;
            rate = interval > 0 ? (interval + space) / interval : 0;
        }
        if (rate > 0) {
            o = o.withSamplingRate(sampler, rate);
        }
        if (has(v, Target.SYSTEM_INIT_TIME)) {
            o = o.withSystemInitTimeMillis(v[Target.SYSTEM_INIT_TIME.ordinal()]);
        }
        if (has(v, Target.INTERFACE_NAME) && has(v, Target.IN_IF)) {
            long ref = v[Target.INTERFACE_NAME.ordinal()];
            int pos = (int) (ref >>> 16);
            int len = (int) (ref & 0xffff);
            int n = len;
            while (n > 0 && b[pos + n - 1] == 0) {
                n--;
            }
            o =
                    o.withInterfaceName(
                            v[Target.IN_IF.ordinal()],
                            new String(b, pos, n, StandardCharsets.UTF_8));
        }
        return o;
    }
}
