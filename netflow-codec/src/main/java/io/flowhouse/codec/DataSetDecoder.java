// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.FlowRecordMapper;
import io.flowhouse.codec.flow.FlowRecordMapper.Target;
import io.flowhouse.codec.flow.RecordContext;
import io.flowhouse.codec.flow.RecordLayout;
import io.flowhouse.codec.template.OptionsData;
import io.flowhouse.codec.template.OptionsEditor;
import io.flowhouse.codec.template.OptionsLimits;
import io.flowhouse.codec.template.Template;
import io.flowhouse.codec.template.TemplateCache;
import io.flowhouse.codec.template.TemplateKey;
import io.flowhouse.codec.template.TemplateScope;
import io.flowhouse.codec.template.TemplateStatus;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
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

    /**
     * Fields of all compiled layouts kept per decoder; cleared when more, so a few huge templates
     * cannot hold as much memory as {@link #MAX_LAYOUTS} of them (1 M fields is 4,096 templates of
     * 256 fields; a layout costs some 30 bytes per field).
     */
    static final int MAX_LAYOUT_FIELDS = 1 << 20;

    /** Slots of the per-template memos below, direct-mapped by a hash of the template id. */
    private static final int SLOT_BITS = 6;

    // OptionsEditor.Text in order, as problems name them.
    private static final String[] TEXT_NAMES = {
        "interface name", "interface description", "sampler name", "VRF name"
    };

    private final FlowRecordMapper mapper;
    private final OptionsLimits optionsLimits;
    private int layoutFields;
    private int withdrewAll;
    // Layouts whose odd fields this message already reported: once per template, not per set.
    private final Map<RecordLayout, Boolean> oddReported = new IdentityHashMap<>();
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
        this(mapper, OptionsLimits.defaults());
    }

    public DataSetDecoder(FlowRecordMapper mapper, OptionsLimits optionsLimits) {
        this.mapper = mapper;
        this.optionsLimits = optionsLimits;
    }

    /**
     * Starts a message of a scope whose options data is {@code options}; call after {@link
     * RecordContext#reset} and before the sets.
     */
    public void begin(OptionsData options) {
        context.options(options, optionsLimits);
        withdrewAll = 0;
        if (!oddReported.isEmpty()) {
            oddReported.clear();
        }
    }

    /**
     * True the first time a message withdraws all templates ({@code options} false) or all options
     * templates (true).
     */
    public boolean firstWithdrawAll(boolean options) {
        int bit = options ? 2 : 1;
        boolean first = (withdrewAll & bit) == 0;
        withdrewAll |= bit;
        return first;
    }

    /** Ends a message: stores the scope's options data once if its options records changed it. */
    public void finish(TemplateCache cache, TemplateScope scope) {
        if (context.options().changed()) {
            cache.putOptions(scope, context.options().build());
        }
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
                int fields = t.fields().size();
                if (m.size() >= MAX_LAYOUTS || layoutFields + fields > MAX_LAYOUT_FIELDS) {
                    clearLayouts();
                }
                l = RecordLayout.compile(t, mapper, v9Options);
                m.put(t, l);
                layoutFields += fields;
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

    private void clearLayouts() {
        layouts.clear();
        v9OptionLayouts.clear();
        byIdentity.clear();
        v9OptionsByIdentity.clear();
        Arrays.fill(layoutTemplates, null);
        Arrays.fill(slotLayouts, null);
        layoutFields = 0;
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

    /**
     * Stores a learned template and reports it; a template the cache refuses is a {@code
     * TEMPLATE_FLOOD} (its limits on templates or bytes were reached) or {@code TEMPLATE_TOO_LARGE}
     * (more fields than it takes) problem.
     */
    public void learn(
            TemplateCache cache, TemplateScope scope, Template t, DecodeResult.Builder out) {
        int slot = slot(t.templateId());
        if (nonEmpty[slot] != t) {
            if (t.minRecordLength() == 0) {
                if (out.count(DecodeProblem.Kind.TEMPLATE_INVALID)) {
                    out.describe(
                            DecodeProblem.Kind.TEMPLATE_INVALID,
                            "template " + t.templateId() + " describes zero-length records",
                            t.templateId());
                }
                return;
            }
            nonEmpty[slot] = t;
        }
        TemplateStatus s = cache.put(key(scope, t.templateId()), t);
        if (s == TemplateStatus.REJECTED_LIMIT) {
            if (out.count(DecodeProblem.Kind.TEMPLATE_FLOOD)) {
                out.describe(
                        DecodeProblem.Kind.TEMPLATE_FLOOD,
                        "template "
                                + t.templateId()
                                + " not stored: exporter "
                                + scope.exporter()
                                + " reached its template limit",
                        t.templateId());
            }
        } else if (s == TemplateStatus.REJECTED_TOO_LARGE) {
            if (out.count(DecodeProblem.Kind.TEMPLATE_TOO_LARGE)) {
                out.describe(
                        DecodeProblem.Kind.TEMPLATE_TOO_LARGE,
                        "template "
                                + t.templateId()
                                + " not stored: "
                                + t.fields().size()
                                + " fields is more than the template cache takes",
                        t.templateId());
            }
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
     * @param setIndex the set's ordinal among all sets of the message (for record positions)
     * @param t the set's template
     * @param v9 true for NetFlow v9 (options scope fields are scope types)
     */
    public void decode(
            ByteBuffer b,
            int pos,
            int limit,
            int setIndex,
            Template t,
            boolean v9,
            DecodeResult.Builder out) {
        RecordLayout layout = layout(t, v9);
        if (layout.oddFieldCount() > 0 && oddReported.put(layout, Boolean.TRUE) == null) {
            reportOdd(layout, t, out);
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
        boolean optionsChanged = false;
        int missingBefore = context.timeBaseMissing();
        // Records are numbered within the set; the set's ordinal is in the upper bits.
        int position = setIndex << FlowRecord.RECORD_IN_SET_BITS;
        while (limit - pos >= min) {
            int next = layout.read(a, pos + off, limit + off, v);
            if (next < 0) {
                if (!allZero(a, pos + off, limit + off)
                        && out.count(DecodeProblem.Kind.RECORD_TRUNCATED)) {
                    out.describe(
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
                optionsChanged |= applyOptions(a, v, context.options(), t.templateId(), out);
                out.optionsRecord();
            } else {
                out.record(FlowRecordMapper.toFlowRecord(v, context, position));
            }
            position++;
            pos = next - off;
        }
        if (optionsChanged) {
            context.optionsChanged();
        }
        if (context.timeBaseMissing() > missingBefore
                && out.count(DecodeProblem.Kind.TIME_BASE_MISSING)) {
            out.describe(
                    DecodeProblem.Kind.TIME_BASE_MISSING,
                    (context.timeBaseMissing() - missingBefore)
                            + " records of template "
                            + t.templateId()
                            + " have sysUpTime-relative times but no systemInitTimeMilliseconds"
                            + " is known",
                    t.templateId());
        }
    }

    /** One {@code ODD_FIELD_LENGTH} for a template, naming its first few odd fields. */
    private static void reportOdd(RecordLayout layout, Template t, DecodeResult.Builder out) {
        if (!out.count(DecodeProblem.Kind.ODD_FIELD_LENGTH)) {
            return;
        }
        List<String> odd = layout.oddFields();
        StringBuilder m = new StringBuilder("template ").append(t.templateId()).append(": ");
        for (int i = 0; i < odd.size(); i++) {
            m.append(i == 0 ? "" : ", ").append(odd.get(i));
        }
        if (layout.oddFieldCount() > odd.size()) {
            m.append(" and ").append(layout.oddFieldCount() - odd.size()).append(" more fields");
        }
        out.describe(
                DecodeProblem.Kind.ODD_FIELD_LENGTH,
                m.append(" skipped").toString(),
                t.templateId());
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
        return FlowRecordMapper.has(v, t);
    }

    /** Applies one options data record; true if it changed the scope's options data. */
    private boolean applyOptions(
            byte[] b, long[] v, OptionsEditor o, int templateId, DecodeResult.Builder out) {
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
        boolean changed = false;
        if (rate > 0) {
            changed |= applied(o.samplingRate(sampler, rate), "sampler ", sampler, templateId, out);
        }
        if (has(v, Target.SYSTEM_INIT_TIME)) {
            changed |=
                    o.systemInitTimeMillis(v[Target.SYSTEM_INIT_TIME.ordinal()])
                            == OptionsEditor.Outcome.APPLIED;
        }
        // Without an ifIndex in the scope, the name is of the interface the metering process
        // observes (softflowd's meteringProcessId scope); a record without names adds nothing.
        long ifIndex =
                has(v, Target.IN_IF) ? v[Target.IN_IF.ordinal()] : OptionsData.OBSERVED_INTERFACE;
        changed |=
                applyText(
                        b,
                        v,
                        o,
                        Target.INTERFACE_NAME,
                        OptionsEditor.Text.INTERFACE_NAME,
                        ifIndex,
                        templateId,
                        out);
        changed |=
                applyText(
                        b,
                        v,
                        o,
                        Target.INTERFACE_DESCRIPTION,
                        OptionsEditor.Text.INTERFACE_DESCRIPTION,
                        ifIndex,
                        templateId,
                        out);
        if (has(v, Target.IN_VRF)) {
            changed |=
                    applyText(
                            b,
                            v,
                            o,
                            Target.VRF_NAME,
                            OptionsEditor.Text.VRF_NAME,
                            v[Target.IN_VRF.ordinal()],
                            templateId,
                            out);
        }
        changed |=
                applyText(
                        b,
                        v,
                        o,
                        Target.SAMPLER_NAME,
                        OptionsEditor.Text.SAMPLER_NAME,
                        sampler,
                        templateId,
                        out);
        return changed;
    }

    /**
     * Applies one string of an options record (an interface name or description by ifIndex, a
     * sampler name by sampler id): trailing NULs dropped, cut to the string limit at a character
     * boundary ({@code OPTION_TRUNCATED}).
     */
    private boolean applyText(
            byte[] b,
            long[] v,
            OptionsEditor o,
            Target field,
            OptionsEditor.Text kind,
            long key,
            int templateId,
            DecodeResult.Builder out) {
        if (!has(v, field)) {
            return false;
        }
        long ref = v[field.ordinal()];
        int pos = (int) (ref >>> 16);
        int len = (int) (ref & 0xffff);
        int n = len;
        while (n > 0 && b[pos + n - 1] == 0) {
            n--;
        }
        int max = optionsLimits.maxStringBytes();
        if (n > max) {
            n = max;
            // Cut at a character boundary: drop UTF-8 continuation bytes at the cut.
            while (n > 0 && (b[pos + n] & 0xc0) == 0x80) {
                n--;
            }
            if (out.count(DecodeProblem.Kind.OPTION_TRUNCATED)) {
                out.describe(
                        DecodeProblem.Kind.OPTION_TRUNCATED,
                        "options template "
                                + templateId
                                + ": "
                                + TEXT_NAMES[kind.ordinal()]
                                + " of "
                                + len
                                + " bytes cut to "
                                + n
                                + " (expected: <= "
                                + max
                                + ")",
                        templateId);
            }
        }
        return applied(
                o.text(kind, key, b, pos, n),
                kind == OptionsEditor.Text.SAMPLER_NAME
                        ? "sampler name "
                        : kind == OptionsEditor.Text.VRF_NAME ? "VRF name " : "interface ",
                key,
                templateId,
                out);
    }

    /** True if applied; counts a refusal as {@code OPTIONS_LIMIT}. */
    private boolean applied(
            OptionsEditor.Outcome outcome,
            String what,
            long id,
            int templateId,
            DecodeResult.Builder out) {
        if (outcome == OptionsEditor.Outcome.APPLIED) {
            return true;
        }
        if (outcome != OptionsEditor.Outcome.UNCHANGED
                && out.count(DecodeProblem.Kind.OPTIONS_LIMIT)) {
            out.describe(
                    DecodeProblem.Kind.OPTIONS_LIMIT,
                    "options template "
                            + templateId
                            + ": "
                            + what
                            + id
                            + " refused, the scope holds "
                            + (outcome == OptionsEditor.Outcome.REFUSED_ENTRIES
                                    ? optionsLimits.maxEntriesPerScope() + " entries"
                                    : optionsLimits.maxBytesPerScope() + " bytes")
                            + " of options data (its limit)",
                    templateId);
        }
        return false;
    }
}
