// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.flow;

import io.flowhouse.codec.flow.FlowRecordMapper.Kind;
import io.flowhouse.codec.flow.FlowRecordMapper.Mapping;
import io.flowhouse.codec.ie.DataType;
import io.flowhouse.codec.ie.InformationElement;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.Template;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A template compiled for decoding: per field its length, {@link Kind} and scratch slot, so the
 * per-record loop does no look-ups. Fields with a length their element does not allow are compiled
 * to skips, counted in {@link #oddFieldCount()} and the first few named in {@link #oddFields()}.
 * Immutable.
 */
public final class RecordLayout {

    /** NetFlow v9 options scope type "Interface" (RFC 3954 section 6.1). */
    static final int V9_SCOPE_INTERFACE = 2;

    /**
     * ingressVRFID as a v9 scope field: Cisco scopes its VRF-name options by it, with this IPFIX
     * id, outside RFC 3954's scope types.
     */
    static final int V9_SCOPE_INGRESS_VRF = 234;

    private final Template template;
    private final int[] lengths;
    private final byte[] kinds;
    private final int[] slots;
    private final int fixedLength;
    private final boolean variable;
    private final List<String> oddFields;
    private final int oddFieldCount;

    /**
     * Odd fields described per layout: a template may have thousands, and describing each would
     * cost far more than its 4 bytes on the wire.
     */
    public static final int MAX_ODD_FIELDS_NAMED = 4;

    // Fixed layouts, the field plan: the mapped fields grouped by how they are read, each entry
    // (offset in the record << 8 | scratch slot), so the common widths are read by loops without
    // a per-field dispatch. Only the last field of the wire order writing a slot is kept (reading
    // in wire order, the earlier ones were overwritten), so the grouping changes no result.
    private final int[] u8;
    private final int[] u16;
    private final int[] u32;
    private final int[] u64;
    private final int[] u48; // MAC addresses
    private final int[] v6; // IPv6 addresses: two scratch slots each
    // The rest (times in seconds or NTP, strings, odd widths): entry as above, plus
    // (opcode << 16 | length).
    private final int[] rest;
    private final int[] restOps;
    private final long fixedPresent;
    private final long fixedPresentHi;
    private final int minRecordLength;

    // Big-endian views of a byte[]: one bounds check per read, no ByteBuffer state.
    private static final VarHandle I16 =
            MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle I32 =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle I64 =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private RecordLayout(Template template, FlowRecordMapper mapper, boolean v9Scope) {
        this.template = template;
        int n = template.fields().size();
        lengths = new int[n];
        kinds = new byte[n];
        slots = new int[n];
        List<String> odd = new ArrayList<>();
        int oddCount = 0;
        boolean var = false;
        int fixed = 0;
        for (int i = 0; i < n; i++) {
            FieldSpecifier f = template.fields().get(i);
            lengths[i] = f.length();
            kinds[i] = (byte) Kind.SKIP.ordinal();
            slots[i] = -1;
            if (f.isVariableLength()) {
                var = true;
            } else {
                fixed += f.length();
            }
            Mapping m;
            if (v9Scope && i < template.scopeFieldCount()) {
                m =
                        f.id() == V9_SCOPE_INTERFACE
                                ? mapper.lookup(0L, 10) // ingressInterface
                                : f.id() == V9_SCOPE_INGRESS_VRF
                                        ? mapper.lookup(0L, V9_SCOPE_INGRESS_VRF)
                                        : null;
            } else {
                m = mapper.lookup(f.enterpriseNumber(), f.id());
            }
            if (m == null) {
                String name = oddUnmapped(mapper, f, v9Scope && i < template.scopeFieldCount());
                if (name != null) {
                    oddCount = odd(odd, oddCount, name, f);
                }
                continue;
            }
            boolean ok = f.isVariableLength() ? m.kind() == Kind.STRING : m.accepts(f.length());
            if (!ok) {
                oddCount = odd(odd, oddCount, m.element().name(), f);
                continue;
            }
            kinds[i] = (byte) m.kind().ordinal();
            slots[i] = m.target().ordinal();
        }
        this.fixedLength = fixed;
        this.variable = var;
        this.oddFields = List.copyOf(odd);
        this.oddFieldCount = oddCount;
        minRecordLength = template.minRecordLength();
        int[] lastWriter = new int[FlowRecordMapper.SCRATCH_SIZE];
        Arrays.fill(lastWriter, -1);
        for (int i = 0; i < n; i++) {
            if (slots[i] >= 0) {
                lastWriter[slots[i]] = i;
            }
        }
        // Offsets only matter when a record fits a datagram (< 64 KiB), so << 8 cannot overflow
        // then.
        int[][] groups = new int[OP_COUNT][];
        int[] filled = new int[OP_COUNT];
        int[] restOpsAll = new int[0];
        long presentBits = 0L;
        long presentHiBits = 0L;
        // Two passes: count each group, then fill arrays of exactly that size (a template may have
        // thousands of fields, few of them mapped).
        int[] counts = new int[OP_COUNT];
        for (int pass = 0; pass < 2; pass++) {
            int off = 0;
            for (int i = 0; i < n && !var; i++) {
                int slot = slots[i];
                if (slot >= 0 && lastWriter[slot] == i) {
                    int op = op(kinds[i], lengths[i]);
                    int g = op <= OP_U64 || op == OP_U48 || op == OP_V6 ? op : OP_UNSIGNED;
                    if (pass == 0) {
                        counts[g]++;
                    } else {
                        if (g == OP_UNSIGNED) {
                            restOpsAll[filled[g]] = (op << 16) | lengths[i];
                        }
                        groups[g][filled[g]++] = (off << 8) | slot;
                        if (slot < 64) {
                            presentBits |= 1L << slot;
                        } else {
                            presentHiBits |= 1L << slot;
                        }
                    }
                }
                off += lengths[i];
            }
            if (pass == 0) {
                for (int g = 0; g < OP_COUNT; g++) {
                    groups[g] = new int[counts[g]];
                }
                restOpsAll = new int[counts[OP_UNSIGNED]];
            }
        }
        u8 = groups[OP_U8];
        u16 = groups[OP_U16];
        u32 = groups[OP_U32];
        u64 = groups[OP_U64];
        u48 = groups[OP_U48];
        v6 = groups[OP_V6];
        rest = groups[OP_UNSIGNED];
        restOps = restOpsAll;
        fixedPresent = presentBits;
        fixedPresentHi = presentHiBits;
    }

    /** The element's name if an unmapped field has a length its element does not allow. */
    private static String oddUnmapped(FlowRecordMapper mapper, FieldSpecifier f, boolean scope) {
        if (scope || f.isVariableLength()) {
            return null;
        }
        InformationElement e = mapper.registry().find(f.enterpriseNumber(), f.id()).orElse(null);
        if (e == null) {
            return null;
        }
        DataType t = e.dataType();
        int natural = t.naturalLength();
        if (natural < 0) {
            return null;
        }
        boolean ok =
                t.isInteger() ? f.length() >= 1 && f.length() <= natural : f.length() == natural;
        return ok ? null : e.name();
    }

    /** Counts an odd field and describes it while few are; returns the new count. */
    private static int odd(List<String> odd, int count, String name, FieldSpecifier f) {
        if (count < MAX_ODD_FIELDS_NAMED) {
            odd.add(describe(name, f));
        }
        return count + 1;
    }

    private static String describe(String name, FieldSpecifier f) {
        return name
                + " (id "
                + f.id()
                + (f.isEnterprise() ? ", PEN " + f.enterpriseNumber() : "")
                + ") with length "
                + (f.isVariableLength() ? "variable" : Integer.toString(f.length()));
    }

    /** Compiles a template; {@code v9Scope} reads options scope fields as RFC 3954 scope types. */
    public static RecordLayout compile(Template t, FlowRecordMapper mapper, boolean v9Scope) {
        return new RecordLayout(t, mapper, v9Scope);
    }

    public Template template() {
        return template;
    }

    /** Fields skipped because of a length their element does not allow. */
    /** The first {@link #MAX_ODD_FIELDS_NAMED} odd fields, described. */
    public List<String> oddFields() {
        return oddFields;
    }

    /** Fields with a length their element does not allow (skipped when read). */
    public int oddFieldCount() {
        return oddFieldCount;
    }

    public boolean isVariableLength() {
        return variable;
    }

    /** Record length when no field is variable; sum of fixed fields otherwise. */
    public int fixedLength() {
        return fixedLength;
    }

    /** Smallest record: fixed fields plus one length byte per variable field. */
    public int minRecordLength() {
        return minRecordLength;
    }

    /**
     * Reads one data record at index {@code pos} of {@code b} into the scratch array; string fields
     * are stored as (index in {@code b} << 16 | length).
     *
     * @return the position after the record, or -1 if it does not fit before {@code limit}
     */
    public int read(byte[] b, int pos, int limit, long[] v) {
        if (!variable) {
            if (limit - pos < fixedLength) {
                return -1;
            }
            return readFixed(b, pos, v);
        }
        long present = 0L;
        long presentHi = 0L;
        int n = lengths.length;
        for (int i = 0; i < n; i++) {
            int len = lengths[i];
            if (len == FieldSpecifier.VARIABLE_LENGTH) {
                if (pos >= limit) {
                    return -1;
                }
                len = b[pos++] & 0xff;
                if (len == 0xff) {
                    if (limit - pos < 2) {
                        return -1;
                    }
                    len = u16(b, pos);
                    pos += 2;
                }
            }
            if (limit - pos < len) {
                return -1;
            }
            int slot = slots[i];
            if (slot >= 0) {
                long bit = store(b, pos, len, kinds[i], slot, v);
                if (slot < 64) {
                    present |= bit;
                } else {
                    presentHi |= bit;
                }
            }
            pos += len;
        }
        v[FlowRecordMapper.PRESENT] = present;
        v[FlowRecordMapper.PRESENT_HI] = presentHi;
        return pos;
    }

    private int readFixed(byte[] b, int pos, long[] v) {
        for (int e : u8) {
            v[e & 0xff] = b[pos + (e >>> 8)] & 0xffL;
        }
        for (int e : u16) {
            v[e & 0xff] = u16(b, pos + (e >>> 8));
        }
        for (int e : u32) {
            v[e & 0xff] = u32(b, pos + (e >>> 8));
        }
        for (int e : u64) {
            v[e & 0xff] = s64(b, pos + (e >>> 8));
        }
        for (int e : u48) {
            int at = pos + (e >>> 8);
            v[e & 0xff] = ((long) u16(b, at) << 32) | u32(b, at + 2);
        }
        for (int e : v6) {
            int at = pos + (e >>> 8);
            int slot = e & 0xff;
            v[slot] = s64(b, at);
            v[slot + 1] = s64(b, at + 8);
        }
        int[] r = rest;
        for (int i = 0; i < r.length; i++) {
            int e = r[i];
            int at = pos + (e >>> 8);
            int slot = e & 0xff;
            int len = restOps[i] & 0xffff;
            switch (restOps[i] >>> 16) {
                case OP_U48:
                    v[slot] = ((long) u16(b, at) << 32) | u32(b, at + 2);
                    break;
                case OP_V6:
                    v[slot] = s64(b, at);
                    v[slot + 1] = s64(b, at + 8);
                    break;
                case OP_SECONDS:
                    v[slot] = unsigned(b, at, len) * 1000L;
                    break;
                case OP_NTP:
                    v[slot] = FlowRecordMapper.ntpToMillis(s64(b, at));
                    break;
                case OP_STRING:
                    v[slot] = ((long) at << 16) | len;
                    break;
                default:
                    v[slot] = unsigned(b, at, len);
                    break;
            }
        }
        v[FlowRecordMapper.PRESENT] = fixedPresent;
        v[FlowRecordMapper.PRESENT_HI] = fixedPresentHi;
        return pos + fixedLength;
    }

    private static final int OP_U8 = 0;
    private static final int OP_U16 = 1;
    private static final int OP_U32 = 2;
    private static final int OP_U64 = 3;
    private static final int OP_UNSIGNED = 4;
    private static final int OP_V6 = 5;
    private static final int OP_SECONDS = 6;
    private static final int OP_NTP = 7;
    private static final int OP_STRING = 8;
    private static final int OP_U48 = 9;
    private static final int OP_COUNT = 10;

    /** One opcode per (kind, length), so the fixed-layout loop makes a single switch per field. */
    private static int op(int kind, int length) {
        if (kind == Kind.UNSIGNED.ordinal()
                || kind == Kind.TIME_MILLIS.ordinal()
                || kind == Kind.IPV4.ordinal()) {
            switch (length) {
                case 1:
                    return OP_U8;
                case 2:
                    return OP_U16;
                case 4:
                    return OP_U32;
                case 6:
                    return OP_U48;
                case 8:
                    return OP_U64;
                default:
                    return OP_UNSIGNED;
            }
        }
        if (kind == Kind.IPV6.ordinal()) {
            return OP_V6;
        }
        if (kind == Kind.TIME_SECONDS.ordinal()) {
            return OP_SECONDS;
        }
        if (kind == Kind.TIME_NTP.ordinal()) {
            return OP_NTP;
        }
        return OP_STRING;
    }

    private static final int K_UNSIGNED = Kind.UNSIGNED.ordinal();
    private static final int K_IPV4 = Kind.IPV4.ordinal();
    private static final int K_IPV6 = Kind.IPV6.ordinal();
    private static final int K_SECONDS = Kind.TIME_SECONDS.ordinal();
    private static final int K_MILLIS = Kind.TIME_MILLIS.ordinal();
    private static final int K_NTP = Kind.TIME_NTP.ordinal();

    private static long store(byte[] b, int pos, int len, int kind, int slot, long[] v) {
        if (kind == K_UNSIGNED || kind == K_MILLIS) {
            v[slot] = unsigned(b, pos, len);
        } else if (kind == K_IPV4) {
            v[slot] = u32(b, pos);
        } else if (kind == K_IPV6) {
            v[slot] = s64(b, pos);
            v[slot + 1] = s64(b, pos + 8);
        } else if (kind == K_SECONDS) {
            v[slot] = unsigned(b, pos, len) * 1000L;
        } else if (kind == K_NTP) {
            v[slot] = FlowRecordMapper.ntpToMillis(s64(b, pos));
        } else {
            v[slot] = ((long) pos << 16) | len;
        }
        return 1L << slot; // the bit in its word: the shift count is taken mod 64
    }

    /** An unsigned big-endian integer of 1..8 bytes at index {@code pos}. */
    public static long unsigned(byte[] b, int pos, int len) {
        switch (len) {
            case 1:
                return b[pos] & 0xffL;
            case 2:
                return u16(b, pos);
            case 4:
                return u32(b, pos);
            case 8:
                return s64(b, pos);
            default:
                long r = 0;
                for (int i = 0; i < len; i++) {
                    r = (r << 8) | (b[pos + i] & 0xff);
                }
                return r;
        }
    }

    private static int u16(byte[] b, int pos) {
        return (short) I16.get(b, pos) & 0xffff;
    }

    private static long u32(byte[] b, int pos) {
        return (int) I32.get(b, pos) & 0xffff_ffffL;
    }

    private static long s64(byte[] b, int pos) {
        return (long) I64.get(b, pos);
    }
}
