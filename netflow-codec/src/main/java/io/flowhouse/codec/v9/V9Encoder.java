// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.v9;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.Template;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * Writes NetFlow v9 export packets (RFC 3954): a 20-byte header followed by template FlowSets (id
 * 0), options template FlowSets (id 1), options data and data FlowSets (id = template id >= 256),
 * each padded to a 32-bit boundary. Pure and synchronous: a {@link Message} writes into the buffer
 * the caller provides; the caller keeps the sequence number (it counts export packets in v9) and
 * decides when templates are refreshed.
 *
 * <pre>
 * +--------+--------+--------+--------+
 * | version (9)     | count           |   count = records of every kind in the packet
 * +--------+--------+--------+--------+
 * | sysUptime (ms, uint32)            |
 * | UNIX secs (uint32)                |
 * | sequence number (uint32)          |   one per export packet
 * | source id (uint32)                |
 * +-----------------------------------+
 * </pre>
 *
 * Field values are taken from {@link FlowRecord} through a table keyed by field type (the field
 * types below 128 are the IPFIX IE numbers). Integers may be written in fewer octets than their
 * natural size (reduced-size encoding); a value that does not fit the template's length is refused,
 * never truncated.
 *
 * @see <a href="https://www.rfc-editor.org/rfc/rfc3954">RFC 3954</a>
 */
public final class V9Encoder {

    public static final int VERSION = 9;
    public static final int HEADER_SIZE = 20;
    public static final int FLOWSET_HEADER_SIZE = 4;
    public static final int TEMPLATE_FLOWSET_ID = 0;
    public static final int OPTIONS_TEMPLATE_FLOWSET_ID = 1;

    /** Lowest template id a data FlowSet may use (0..255 are reserved for FlowSet kinds). */
    public static final int MIN_TEMPLATE_ID = 256;

    /** Options scope type 1, "System": the scope value is the source id. */
    public static final int SCOPE_SYSTEM = 1;

    // Field types (RFC 3954 §8), the ones the table below can fill from a FlowRecord.
    public static final int IN_BYTES = 1;
    public static final int IN_PKTS = 2;
    public static final int PROTOCOL = 4;
    public static final int SRC_TOS = 5;
    public static final int TCP_FLAGS = 6;
    public static final int L4_SRC_PORT = 7;
    public static final int IPV4_SRC_ADDR = 8;
    public static final int SRC_MASK = 9;
    public static final int INPUT_SNMP = 10;
    public static final int L4_DST_PORT = 11;
    public static final int IPV4_DST_ADDR = 12;
    public static final int DST_MASK = 13;
    public static final int OUTPUT_SNMP = 14;
    public static final int IPV4_NEXT_HOP = 15;
    public static final int SRC_AS = 16;
    public static final int DST_AS = 17;
    public static final int LAST_SWITCHED = 21;
    public static final int FIRST_SWITCHED = 22;
    public static final int IPV6_SRC_ADDR = 27;
    public static final int IPV6_DST_ADDR = 28;
    public static final int IPV6_SRC_MASK = 29;
    public static final int IPV6_DST_MASK = 30;
    public static final int SAMPLING_INTERVAL = 34;
    public static final int SAMPLING_ALGORITHM = 35;
    public static final int IN_SRC_MAC = 56;
    public static final int OUT_DST_MAC = 57;
    public static final int SRC_VLAN = 58;
    public static final int DST_VLAN = 59;
    public static final int IP_PROTOCOL_VERSION = 60;
    public static final int DIRECTION = 61;
    public static final int IPV6_NEXT_HOP = 62;

    private V9Encoder() {}

    /**
     * Header values besides the count.
     *
     * @param exportTimeMillis export time, epoch ms (the wire has whole seconds)
     * @param sysUptimeMillis exporter uptime at export, ms (uint32, wraps)
     * @param sequenceNumber export packet sequence number (uint32)
     * @param sourceId source id, the v9 observation domain (uint32)
     */
    public record Header(
            long exportTimeMillis, long sysUptimeMillis, long sequenceNumber, long sourceId) {

        /**
         * Epoch ms at which uptime was 0, as a collector reconstructs it from the header ({@code
         * unix_secs * 1000 - sysUptime}); record times are written relative to it, so they decode
         * to the exact millisecond.
         */
        public long bootTimeMillis() {
            return Math.floorDiv(exportTimeMillis, 1000L) * 1000L - sysUptimeMillis;
        }
    }

    /** Octets one data (or options data) record of {@code t} takes. */
    public static int recordLength(Template t) {
        int n = 0;
        for (FieldSpecifier f : t.fields()) {
            n += f.length();
        }
        return n;
    }

    /**
     * Octets {@code t} takes inside a template FlowSet (4 + 4 per field) or an options template
     * FlowSet (6 + 4 per field).
     */
    public static int templateLength(Template t) {
        return (t.isOptions() ? 6 : 4) + 4 * t.fields().size();
    }

    /** Bytes of a FlowSet holding {@code bodyLength} octets, padded to 4. */
    public static int flowSetSize(int bodyLength) {
        return FLOWSET_HEADER_SIZE + pad4(bodyLength);
    }

    /** Bytes of a data FlowSet with {@code records} records of {@code template}. */
    public static int dataFlowSetSize(Template template, int records) {
        return flowSetSize(recordLength(template) * records);
    }

    /** Starts a packet at the buffer's position. */
    public static Message begin(ByteBuffer out, Header header) {
        return new Message(out, header);
    }

    /** Whether the table below can fill this field type from a {@link FlowRecord}. */
    public static boolean supports(int fieldType) {
        return FIELDS.containsKey(fieldType);
    }

    /** One export packet being written; call {@link #finish()} to patch the header. */
    public static final class Message {
        private final ByteBuffer out;
        private final Header header;
        private final int start;
        private final long bootMillis;
        private int count;
        private boolean finished;

        private Message(ByteBuffer out, Header header) {
            if (out.remaining() < HEADER_SIZE) {
                throw new BufferOverflowException();
            }
            this.out = out;
            this.header = header;
            this.start = out.position();
            this.bootMillis = header.bootTimeMillis();
            out.putShort((short) VERSION);
            out.putShort((short) 0); // count, patched by finish()
            out.putInt((int) header.sysUptimeMillis());
            out.putInt((int) Math.floorDiv(header.exportTimeMillis(), 1000L));
            out.putInt((int) header.sequenceNumber());
            out.putInt((int) header.sourceId());
        }

        /** Writes one template FlowSet (id 0) holding these data templates. */
        public Message templates(List<Template> templates) {
            int body = 0;
            for (Template t : templates) {
                check(t, false);
                body += templateLength(t);
            }
            int setStart = openSet(TEMPLATE_FLOWSET_ID, body);
            for (Template t : templates) {
                out.putShort((short) t.templateId());
                out.putShort((short) t.fields().size());
                putFields(t.fields());
            }
            count += templates.size();
            closeSet(setStart);
            return this;
        }

        /** Writes one options template FlowSet (id 1); scope and option lengths are in bytes. */
        public Message optionsTemplates(List<Template> templates) {
            int body = 0;
            for (Template t : templates) {
                check(t, true);
                body += templateLength(t);
            }
            int setStart = openSet(OPTIONS_TEMPLATE_FLOWSET_ID, body);
            for (Template t : templates) {
                out.putShort((short) t.templateId());
                out.putShort((short) (4 * t.scopeFieldCount()));
                out.putShort((short) (4 * (t.fields().size() - t.scopeFieldCount())));
                putFields(t.fields());
            }
            count += templates.size();
            closeSet(setStart);
            return this;
        }

        private void putFields(List<FieldSpecifier> fields) {
            for (FieldSpecifier f : fields) {
                out.putShort((short) f.id());
                out.putShort((short) f.length());
            }
        }

        /**
         * Writes an options data FlowSet: each element of {@code records} holds one unsigned value
         * per field, scope fields first, in template order.
         */
        public Message optionsData(Template template, List<long[]> records) {
            check(template, true);
            int setStart = openSet(template.templateId(), recordLength(template) * records.size());
            for (long[] values : records) {
                if (values.length != template.fields().size()) {
                    throw new IllegalArgumentException(
                            values.length
                                    + " option values for template "
                                    + template.templateId()
                                    + " (expected: "
                                    + template.fields().size()
                                    + ")");
                }
                int i = 0;
                for (FieldSpecifier f : template.fields()) {
                    putUnsigned(out, f, values[i++]);
                }
            }
            count += records.size();
            closeSet(setStart);
            return this;
        }

        /** Writes a data FlowSet of {@code records} laid out by {@code template}. */
        public Message data(Template template, List<FlowRecord> records) {
            check(template, false);
            int setStart = openSet(template.templateId(), recordLength(template) * records.size());
            for (FlowRecord r : records) {
                for (FieldSpecifier f : template.fields()) {
                    FieldWriter w = FIELDS.get(f.id());
                    if (w == null) {
                        throw new IllegalArgumentException(
                                "field type " + f.id() + " has no FlowRecord mapping");
                    }
                    w.write(out, f, r, bootMillis);
                }
            }
            count += records.size();
            closeSet(setStart);
            return this;
        }

        /** Patches the header count and returns the packet length. */
        public int finish() {
            if (finished) {
                throw new IllegalStateException("message already finished");
            }
            finished = true;
            out.putShort(start + 2, (short) count);
            return out.position() - start;
        }

        /** Records of every kind written so far (the header count). */
        public int count() {
            return count;
        }

        public Header header() {
            return header;
        }

        private int openSet(int id, int bodyLength) {
            int size = flowSetSize(bodyLength);
            if (size > 0xffff) {
                throw new IllegalArgumentException(
                        "FlowSet of " + size + " bytes (expected: <= 65535)");
            }
            if (out.remaining() < size) {
                throw new BufferOverflowException();
            }
            int setStart = out.position();
            out.putShort((short) id);
            out.putShort((short) size);
            return setStart;
        }

        private void closeSet(int setStart) {
            int declared = out.getShort(setStart + 2) & 0xffff;
            while (out.position() - setStart < declared) {
                out.put((byte) 0); // padding to a 32-bit boundary
            }
        }
    }

    @FunctionalInterface
    private interface FieldWriter {
        void write(ByteBuffer out, FieldSpecifier f, FlowRecord r, long bootMillis);
    }

    private static final Map<Integer, FieldWriter> FIELDS =
            Map.ofEntries(
                    Map.entry(IN_BYTES, unsigned(FlowRecord::bytes)),
                    Map.entry(IN_PKTS, unsigned(FlowRecord::packets)),
                    Map.entry(PROTOCOL, unsigned(r -> r.protocol())),
                    Map.entry(SRC_TOS, unsigned(r -> r.tos())),
                    Map.entry(TCP_FLAGS, unsigned(r -> r.tcpFlags())),
                    Map.entry(L4_SRC_PORT, unsigned(r -> r.srcPort())),
                    Map.entry(L4_DST_PORT, unsigned(r -> r.dstPort())),
                    Map.entry(IPV4_SRC_ADDR, address(FlowRecord::srcAddr)),
                    Map.entry(IPV4_DST_ADDR, address(FlowRecord::dstAddr)),
                    Map.entry(IPV4_NEXT_HOP, address(FlowRecord::nextHop)),
                    Map.entry(IPV6_SRC_ADDR, address(FlowRecord::srcAddr)),
                    Map.entry(IPV6_DST_ADDR, address(FlowRecord::dstAddr)),
                    Map.entry(IPV6_NEXT_HOP, address(FlowRecord::nextHop)),
                    Map.entry(SRC_MASK, unsigned(r -> r.srcPrefixLen())),
                    Map.entry(DST_MASK, unsigned(r -> r.dstPrefixLen())),
                    Map.entry(IPV6_SRC_MASK, unsigned(r -> r.srcPrefixLen())),
                    Map.entry(IPV6_DST_MASK, unsigned(r -> r.dstPrefixLen())),
                    Map.entry(INPUT_SNMP, unsigned(FlowRecord::inputInterface)),
                    Map.entry(OUTPUT_SNMP, unsigned(FlowRecord::outputInterface)),
                    Map.entry(SRC_AS, unsigned(FlowRecord::srcAs)),
                    Map.entry(DST_AS, unsigned(FlowRecord::dstAs)),
                    Map.entry(IN_SRC_MAC, unsigned(FlowRecord::srcMac)),
                    Map.entry(OUT_DST_MAC, unsigned(FlowRecord::dstMac)),
                    Map.entry(SRC_VLAN, unsigned(r -> r.vlanId())),
                    Map.entry(DST_VLAN, unsigned(r -> r.postVlanId())),
                    Map.entry(IP_PROTOCOL_VERSION, unsigned(r -> r.ipVersion())),
                    Map.entry(DIRECTION, unsigned(r -> Math.max(r.direction(), 0))),
                    Map.entry(
                            FIRST_SWITCHED,
                            (out, f, r, boot) -> putUptime(out, f, r.flowStartMillis() - boot)),
                    Map.entry(
                            LAST_SWITCHED,
                            (out, f, r, boot) -> putUptime(out, f, r.flowEndMillis() - boot)));

    private interface LongGetter {
        long get(FlowRecord r);
    }

    private static FieldWriter unsigned(LongGetter getter) {
        return (out, f, r, boot) -> putUnsigned(out, f, getter.get(r));
    }

    private static FieldWriter address(java.util.function.Function<FlowRecord, IpAddress> getter) {
        return (out, f, r, boot) -> {
            IpAddress a = getter.apply(r);
            if (f.length() == 4) {
                if (!a.isIpv4() && !a.isUnspecified()) {
                    throw new IllegalArgumentException("field " + f.id() + " is IPv4, got " + a);
                }
                out.putInt(a.isUnspecified() ? 0 : a.ipv4());
            } else if (f.length() == 16) {
                out.put(a.toBytes16());
            } else {
                throw new IllegalArgumentException(
                        "address field "
                                + f.id()
                                + " length "
                                + f.length()
                                + " (expected: 4 or 16)");
            }
        };
    }

    private static void putUptime(ByteBuffer out, FieldSpecifier f, long uptimeMillis) {
        if (uptimeMillis < 0 || uptimeMillis > 0xffff_ffffL) {
            throw new IllegalArgumentException(
                    "flow time is " + uptimeMillis + " ms from boot (expected: 0..2^32-1)");
        }
        putUnsigned(out, f, uptimeMillis);
    }

    /** Writes {@code value} big-endian in {@code f.length()} octets, refusing to truncate it. */
    static void putUnsigned(ByteBuffer out, FieldSpecifier f, long value) {
        int len = f.length();
        if (len > 8) {
            throw new IllegalArgumentException(
                    "integer field " + f.id() + " length " + len + " (expected: 1..8)");
        }
        if (len < 8 && (value >>> (8 * len)) != 0) {
            throw new IllegalArgumentException(
                    "value "
                            + Long.toUnsignedString(value)
                            + " of field "
                            + f.id()
                            + " does not fit "
                            + len
                            + " octets");
        }
        for (int i = len - 1; i >= 0; i--) {
            out.put((byte) (value >>> (8 * i)));
        }
    }

    private static int pad4(int n) {
        return (n + 3) & ~3;
    }

    /** v9 has no enterprise fields and no variable length; ids start at 256. */
    private static void check(Template t, boolean options) {
        if (t.templateId() < MIN_TEMPLATE_ID) {
            throw new IllegalArgumentException(
                    "template id " + t.templateId() + " (expected: >= " + MIN_TEMPLATE_ID + ")");
        }
        if (t.isOptions() != options || t.fields().isEmpty()) {
            throw new IllegalArgumentException(
                    "template "
                            + t.templateId()
                            + (options
                                    ? " is not an options template"
                                    : " is an options template"));
        }
        for (FieldSpecifier f : t.fields()) {
            if (f.isEnterprise() || f.isVariableLength() || f.length() == 0) {
                throw new IllegalArgumentException(
                        "template "
                                + t.templateId()
                                + " field "
                                + f.id()
                                + " has no v9 form (enterprise, variable or zero length)");
            }
        }
    }
}
