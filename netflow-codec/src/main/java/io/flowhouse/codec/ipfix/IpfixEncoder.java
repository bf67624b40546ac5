// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.ipfix;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.Template;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes IPFIX messages (RFC 7011) into a caller-provided buffer: template and options template
 * sets, data sets with fixed and variable-length fields, and the sequence number per observation
 * domain (counting data records, section 3.1). {@link #encodeFlows} turns {@link FlowRecord}s into
 * messages with the {@link #FLOW_TEMPLATE_IPV4} and {@link #FLOW_TEMPLATE_IPV6} templates, for
 * loadgen and the IPFIX re-export. Not thread-safe: one encoder per export stream.
 */
public final class IpfixEncoder {

    /** Largest IPFIX message (the header length field is 16 bits). */
    public static final int MAX_MESSAGE_SIZE = 0xffff;

    public static final int FLOW_TEMPLATE_IPV4_ID = 256;
    public static final int FLOW_TEMPLATE_IPV6_ID = 257;
    public static final int SAMPLING_OPTIONS_TEMPLATE_ID = 258;

    private static final long REV = FieldSpecifier.REVERSE_PEN;

    /** The flow template for IPv4 records; field order matches {@link #writeFlow}. */
    public static final Template FLOW_TEMPLATE_IPV4 = flowTemplate(FLOW_TEMPLATE_IPV4_ID, false);

    /** The flow template for IPv6 records. */
    public static final Template FLOW_TEMPLATE_IPV6 = flowTemplate(FLOW_TEMPLATE_IPV6_ID, true);

    /**
     * Options template for sampling: scope selectorId (302), then samplingPacketInterval (305),
     * samplingPacketSpace (306) and samplingInterval (34) for collectors that know only v9 names.
     */
    public static final Template SAMPLING_OPTIONS_TEMPLATE =
            new Template(
                    SAMPLING_OPTIONS_TEMPLATE_ID,
                    List.of(
                            FieldSpecifier.of(302, 8),
                            FieldSpecifier.of(305, 4),
                            FieldSpecifier.of(306, 4),
                            FieldSpecifier.of(34, 4)),
                    1);

    private static Template flowTemplate(int id, boolean v6) {
        int a = v6 ? 16 : 4;
        return Template.of(
                id,
                List.of(
                        FieldSpecifier.of(v6 ? 27 : 8, a),
                        FieldSpecifier.of(v6 ? 28 : 12, a),
                        FieldSpecifier.of(v6 ? 62 : 15, a),
                        FieldSpecifier.of(7, 2),
                        FieldSpecifier.of(11, 2),
                        FieldSpecifier.of(4, 1),
                        FieldSpecifier.of(6, 2),
                        FieldSpecifier.of(5, 1),
                        FieldSpecifier.of(v6 ? 29 : 9, 1),
                        FieldSpecifier.of(v6 ? 30 : 13, 1),
                        FieldSpecifier.of(1, 8),
                        FieldSpecifier.of(2, 8),
                        new FieldSpecifier(1, 8, REV),
                        new FieldSpecifier(2, 8, REV),
                        FieldSpecifier.of(10, 4),
                        FieldSpecifier.of(14, 4),
                        FieldSpecifier.of(58, 2),
                        FieldSpecifier.of(59, 2),
                        FieldSpecifier.of(56, 6),
                        FieldSpecifier.of(80, 6),
                        FieldSpecifier.of(16, 4),
                        FieldSpecifier.of(17, 4),
                        FieldSpecifier.of(61, 1),
                        FieldSpecifier.of(136, 1),
                        FieldSpecifier.of(152, 8),
                        FieldSpecifier.of(153, 8),
                        FieldSpecifier.of(34, 4),
                        FieldSpecifier.of(60, 1)));
    }

    private final Map<Long, Long> sequenceByDomain = new HashMap<>();

    /** The sequence number the next message of a domain will carry (uint32). */
    public long sequenceNumber(long domain) {
        return sequenceByDomain.getOrDefault(domain, 0L);
    }

    /** Sets a domain's next sequence number (e.g. to resume after a restart). */
    public void sequenceNumber(long domain, long next) {
        sequenceByDomain.put(domain, next & 0xffff_ffffL);
    }

    /**
     * Begins a message at {@code out}'s position. Finish it with {@link Message#finish()}.
     *
     * @param exportTimeSeconds export time, UNIX seconds (uint32)
     */
    public Message begin(ByteBuffer out, long domain, long exportTimeSeconds) {
        return new Message(out, domain, exportTimeSeconds);
    }

    /** One message being written. Field writers throw {@link java.nio.BufferOverflowException}. */
    public final class Message {
        private final ByteBuffer out;
        private final long domain;
        private final int start;
        private int setStart = -1;
        private int setId = -1;
        private int dataRecords;
        private boolean finished;

        private Message(ByteBuffer out, long domain, long exportTimeSeconds) {
            this.out = out;
            this.domain = domain;
            this.start = out.position();
            out.putShort((short) 10);
            out.putShort((short) 0); // length, set by finish()
            out.putInt((int) exportTimeSeconds);
            out.putInt(0); // sequence, set by finish()
            out.putInt((int) domain);
        }

        private void openSet(int id) {
            if (setId == id) {
                return;
            }
            closeSet();
            setStart = out.position();
            setId = id;
            out.putShort((short) id);
            out.putShort((short) 0);
        }

        private void closeSet() {
            if (setStart >= 0) {
                out.putShort(setStart + 2, (short) (out.position() - setStart));
                setStart = -1;
                setId = -1;
            }
        }

        /** Writes a template or options template record (in a set of the right kind). */
        public Message template(Template t) {
            openSet(
                    t.isOptions()
                            ? IpfixDecoder.OPTIONS_TEMPLATE_SET_ID
                            : IpfixDecoder.TEMPLATE_SET_ID);
            out.putShort((short) t.templateId());
            out.putShort((short) t.fields().size());
            if (t.isOptions()) {
                out.putShort((short) t.scopeFieldCount());
            }
            for (FieldSpecifier f : t.fields()) {
                if (f.isEnterprise()) {
                    out.putShort((short) (f.id() | IpfixDecoder.ENTERPRISE_BIT));
                    out.putShort((short) f.length());
                    out.putInt((int) f.enterpriseNumber());
                } else {
                    out.putShort((short) f.id());
                    out.putShort((short) f.length());
                }
            }
            return this;
        }

        /** Writes a template withdrawal (field count 0); id 2 or 3 withdraws all. */
        public Message withdraw(int templateId, boolean options) {
            openSet(options ? IpfixDecoder.OPTIONS_TEMPLATE_SET_ID : IpfixDecoder.TEMPLATE_SET_ID);
            out.putShort((short) templateId);
            out.putShort((short) 0);
            return this;
        }

        /** Starts (or continues) the data set of a template; then write fields and end records. */
        public Message data(int templateId) {
            if (templateId < IpfixDecoder.MIN_DATA_SET_ID) {
                throw new IllegalArgumentException(
                        "template id " + templateId + " (expected: >= 256)");
            }
            openSet(templateId);
            return this;
        }

        /** Marks the end of one data record (for the sequence number). */
        public Message endRecord() {
            dataRecords++;
            return this;
        }

        public Message u8(long v) {
            out.put((byte) v);
            return this;
        }

        public Message u16(long v) {
            out.putShort((short) v);
            return this;
        }

        public Message u32(long v) {
            out.putInt((int) v);
            return this;
        }

        public Message u64(long v) {
            out.putLong(v);
            return this;
        }

        /** An unsigned value in {@code len} bytes (reduced-size encoding). */
        public Message unsigned(long v, int len) {
            for (int i = len - 1; i >= 0; i--) {
                out.put((byte) (i >= 8 ? 0 : v >>> (8 * i)));
            }
            return this;
        }

        /** A 48-bit MAC address. */
        public Message mac(long v) {
            return unsigned(v, 6);
        }

        public Message ipv4(IpAddress a) {
            out.putInt(a.isIpv4() ? a.ipv4() : 0);
            return this;
        }

        public Message ipv6(IpAddress a) {
            out.putLong(a.hi());
            out.putLong(a.lo());
            return this;
        }

        public Message bytes(byte[] b) {
            out.put(b);
            return this;
        }

        /** A variable-length field (RFC 7011 section 7): 1-byte length, or 255 + 2-byte length. */
        public Message varBytes(byte[] b) {
            if (b.length < 255) {
                out.put((byte) b.length);
            } else {
                out.put((byte) 255);
                out.putShort((short) b.length);
            }
            out.put(b);
            return this;
        }

        public Message varString(String s) {
            return varBytes(s.getBytes(StandardCharsets.UTF_8));
        }

        /** Bytes written so far, header included. */
        public int length() {
            return out.position() - start;
        }

        public int dataRecords() {
            return dataRecords;
        }

        /**
         * Closes the last set, writes length and sequence number, advances the domain's sequence by
         * the data records written, and returns the message length.
         */
        public int finish() {
            if (finished) {
                throw new IllegalStateException("message already finished");
            }
            closeSet();
            int len = out.position() - start;
            if (len > MAX_MESSAGE_SIZE) {
                throw new IllegalStateException(
                        "message of " + len + " bytes (expected: <= " + MAX_MESSAGE_SIZE + ")");
            }
            long seq = sequenceNumber(domain);
            out.putShort(start + 2, (short) len);
            out.putInt(start + 8, (int) seq);
            sequenceByDomain.put(domain, (seq + dataRecords) & 0xffff_ffffL);
            finished = true;
            return len;
        }
    }

    /** The flow template a record uses: IPv4 if its addresses are IPv4 (or unset). */
    public static Template templateFor(FlowRecord r) {
        boolean v4 =
                r.ipVersion() != 6
                        && (r.srcAddr().isIpv4() || r.srcAddr().isUnspecified())
                        && (r.dstAddr().isIpv4() || r.dstAddr().isUnspecified())
                        && (r.nextHop().isIpv4() || r.nextHop().isUnspecified());
        return v4 ? FLOW_TEMPLATE_IPV4 : FLOW_TEMPLATE_IPV6;
    }

    /** Record length of a flow template's data records. */
    public static int recordLength(Template t) {
        return t.minRecordLength();
    }

    /** Writes one flow as a data record of {@code t} (one of the two flow templates). */
    public static void writeFlow(Message m, Template t, FlowRecord r) {
        boolean v6 = t.templateId() == FLOW_TEMPLATE_IPV6_ID;
        if (v6) {
            m.ipv6(r.srcAddr()).ipv6(r.dstAddr()).ipv6(r.nextHop());
        } else {
            m.ipv4(r.srcAddr()).ipv4(r.dstAddr()).ipv4(r.nextHop());
        }
        m.u16(r.srcPort())
                .u16(r.dstPort())
                .u8(r.protocol())
                .u16(r.tcpFlags())
                .u8(r.tos())
                .u8(r.srcPrefixLen())
                .u8(r.dstPrefixLen())
                .u64(r.bytes())
                .u64(r.packets())
                .u64(r.reverseBytes())
                .u64(r.reversePackets())
                .u32(r.inputInterface())
                .u32(r.outputInterface())
                .u16(r.vlanId())
                .u16(r.postVlanId())
                .mac(r.srcMac())
                .mac(r.dstMac())
                .u32(r.srcAs())
                .u32(r.dstAs())
                .u8(r.direction() < 0 ? 0xff : r.direction())
                .u8(r.flowEndReason())
                .u64(r.flowStartMillis())
                .u64(r.flowEndMillis())
                .u32(r.samplingRate())
                .u8(r.ipVersion())
                .endRecord();
    }

    /**
     * Writes one message with as many of {@code flows[from..]} as fit in {@code out} (and in 65,535
     * bytes), preceded by the flow templates if {@code withTemplates}.
     *
     * @return how many flows were written (0 if not even one fits)
     * @throws IllegalArgumentException if not even the header (and templates) fit
     */
    public int encodeFlows(
            ByteBuffer out,
            long domain,
            long exportTimeSeconds,
            List<FlowRecord> flows,
            int from,
            boolean withTemplates) {
        int room = Math.min(out.remaining(), MAX_MESSAGE_SIZE);
        int need = IpfixDecoder.HEADER_SIZE;
        if (withTemplates) {
            need += templateSetLength();
        }
        if (need > room) {
            throw new IllegalArgumentException(
                    "buffer of "
                            + room
                            + " bytes cannot hold the message header"
                            + (withTemplates ? " and templates" : "")
                            + " (expected: >= "
                            + need
                            + ")");
        }
        Message m = begin(out, domain, exportTimeSeconds);
        if (withTemplates) {
            m.template(FLOW_TEMPLATE_IPV4).template(FLOW_TEMPLATE_IPV6);
        }
        int n = 0;
        int current = -1;
        for (int i = from; i < flows.size(); i++) {
            FlowRecord r = flows.get(i);
            Template t = templateFor(r);
            int add = recordLength(t) + (t.templateId() == current ? 0 : 4);
            if (need + add > room) {
                break;
            }
            need += add;
            m.data(t.templateId());
            current = t.templateId();
            writeFlow(m, t, r);
            n++;
        }
        m.finish();
        return n;
    }

    private static int templateSetLength() {
        return IpfixDecoder.SET_HEADER_SIZE
                + templateRecordLength(FLOW_TEMPLATE_IPV4)
                + templateRecordLength(FLOW_TEMPLATE_IPV6);
    }

    /** Bytes a template record takes on the wire. */
    public static int templateRecordLength(Template t) {
        int n = t.isOptions() ? 6 : 4;
        for (FieldSpecifier f : t.fields()) {
            n += f.isEnterprise() ? 8 : 4;
        }
        return n;
    }

    /** Writes a message with just the flow templates and the sampling options template. */
    public int encodeTemplates(ByteBuffer out, long domain, long exportTimeSeconds) {
        return begin(out, domain, exportTimeSeconds)
                .template(FLOW_TEMPLATE_IPV4)
                .template(FLOW_TEMPLATE_IPV6)
                .template(SAMPLING_OPTIONS_TEMPLATE)
                .finish();
    }

    /**
     * Writes a message with the sampling options template and one options record: sampler {@code
     * samplerId} samples 1 in {@code interval} packets.
     */
    public int encodeSamplingOptions(
            ByteBuffer out, long domain, long exportTimeSeconds, long samplerId, long interval) {
        Message m = begin(out, domain, exportTimeSeconds).template(SAMPLING_OPTIONS_TEMPLATE);
        m.data(SAMPLING_OPTIONS_TEMPLATE_ID)
                .u64(samplerId)
                .u32(1)
                .u32(interval - 1)
                .u32(interval)
                .endRecord();
        return m.finish();
    }
}
