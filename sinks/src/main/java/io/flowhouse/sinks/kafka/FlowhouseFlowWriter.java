// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.flow.SflowFields;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.InterfaceContext;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes a {@link FlowRecord} as {@code flowhouse.v1.Flow} wire bytes straight into a reused
 * buffer: the bytes protobuf-java's generated {@code Flow} writes ({@link
 * FlowhouseFlowEncoder#toFlow}, the reference, checked byte for byte in the tests), without its
 * builder, message and four address {@code ByteString}s per flow. Proto3 rules as generated code
 * applies them: fields in number order, a field at its default (0, empty) not written, {@code
 * uint32} from a Java int as its unsigned value, {@code int64}/{@code uint64} as 64-bit varints,
 * {@code sint32} zigzag, {@code fixed64} little-endian. One instance per thread (the buffer is
 * reused).
 */
public final class FlowhouseFlowWriter {

    /**
     * Larger than the largest Flow without context (49 fields, at most 11 + 18 bytes each); the
     * context's strings grow it when they need more.
     */
    private static final int INITIAL_BYTES = 1024;

    /** The largest non-string field with its tag: a 2-byte tag and 16 bytes of address. */
    private static final int MAX_FIXED_FIELD = 20;

    private static final int VARINT = 0;
    private static final int FIXED64 = 1;
    private static final int LENGTH_DELIMITED = 2;

    private byte[] buf = new byte[INITIAL_BYTES];
    private int pos;

    /** The flow's wire bytes, a new array of exactly their length. */
    public byte[] encode(FlowRecord r, FlowRowIds ids) {
        return encode(r, ids, null);
    }

    /**
     * The flow and its context ({@code src_as}/{@code dst_as} from the context, as the flows table
     * stores them; null: the flow alone), a new array of exactly their length.
     */
    public byte[] encode(FlowRecord r, FlowRowIds ids, FlowContext c) {
        pos = 0;
        // Everything but the context's strings fits the initial buffer; those check their room.
        fixed64(1, ids.low(r));
        fixed64(2, ids.high(r));
        address(3, r.exporterAddress());
        uint32(4, r.exporterPort());
        uint32(5, (int) r.observationDomainId());
        uint32(6, r.version());
        uint32(7, (int) r.sequenceNumber());
        uint32(8, r.recordIndex());
        varint64(9, r.timeReceivedMillis());
        varint64(10, r.flowStartMillis());
        varint64(11, r.flowEndMillis());
        varint64(12, r.exportTimeMillis());
        uint32(13, r.ipVersion());
        address(14, r.srcAddr());
        address(15, r.dstAddr());
        address(16, r.nextHop());
        uint32(17, r.srcPrefixLen());
        uint32(18, r.dstPrefixLen());
        uint32(19, r.srcPort());
        uint32(20, r.dstPort());
        uint32(21, r.protocol());
        uint32(22, r.tcpFlags());
        uint32(23, r.tos());
        varint64(24, r.bytes());
        varint64(25, r.packets());
        varint64(26, r.reverseBytes());
        varint64(27, r.reversePackets());
        varint64(28, r.samplingRate());
        uint32(29, (int) r.inputInterface());
        uint32(30, (int) r.outputInterface());
        uint32(31, (int) (c == null ? r.srcAs() : c.srcAs()));
        uint32(32, (int) (c == null ? r.dstAs() : c.dstAs()));
        uint32(33, r.vlanId());
        uint32(34, r.postVlanId());
        varint64(35, r.srcMac());
        varint64(36, r.dstMac());
        int direction = r.direction();
        // sint32: zigzag, then its unsigned 32-bit value.
        varint64(37, ((direction << 1) ^ (direction >> 31)) & 0xffff_ffffL);
        uint32(38, r.flowEndReason());
        varint64(39, r.exportedFlowStartMillis());
        varint64(40, r.exportedFlowEndMillis());
        SflowFields x = r.sflow();
        if (x != null) {
            address(60, x.agentAddress());
            uint32(61, (int) x.subAgentId());
            uint32(62, (int) x.datagramSequence());
            uint32(63, (int) x.uptimeMillis());
            uint32(64, (int) x.sampleSequence());
            uint32(65, x.sourceIdClass());
            uint32(66, (int) x.sourceIdIndex());
            uint32(67, (int) x.samplePool());
            uint32(68, (int) x.drops());
        }
        if (c != null) {
            context(c);
        }
        // Fields 109 to 112 after the context, in number order as protobuf writes them.
        room(2 * MAX_FIXED_FIELD);
        uint32(109, (int) r.inputVrfId());
        uint32(110, (int) r.outputVrfId());
        if (c != null) {
            string(111, c.inVrfName());
            string(112, c.outVrfName());
        }
        return Arrays.copyOf(buf, pos);
    }

    /** Fields 80 to 108 (the context), in number order. */
    private void context(FlowContext c) {
        attributes(80, c.exporter());
        iface(85, c.in());
        iface(91, c.out());
        string(97, c.srcCountry());
        string(98, c.dstCountry());
        attributes(99, c.srcNetwork());
        attributes(104, c.dstNetwork());
    }

    private void attributes(int first, Attributes a) {
        string(first, a.name());
        string(first + 1, a.role());
        string(first + 2, a.site());
        string(first + 3, a.region());
        string(first + 4, a.tenant());
    }

    private void iface(int first, InterfaceContext i) {
        string(first, i.name());
        string(first + 1, i.description());
        room(MAX_FIXED_FIELD);
        varint64(first + 2, i.speedMbps());
        string(first + 3, i.boundary().word());
        string(first + 4, i.provider());
        string(first + 5, i.connectivity());
    }

    /**
     * UTF-8, as protobuf-java writes a string (an unpaired surrogate becomes '?' there too: it
     * falls back to {@code String.getBytes(UTF_8)}).
     */
    private void string(int field, String s) {
        if (s.isEmpty()) {
            return;
        }
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        room(MAX_FIXED_FIELD + utf8.length);
        tag(field, LENGTH_DELIMITED);
        rawVarint(utf8.length);
        System.arraycopy(utf8, 0, buf, pos, utf8.length);
        pos += utf8.length;
    }

    private void room(int bytes) {
        if (pos + bytes > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + bytes));
        }
    }

    private void tag(int field, int wireType) {
        rawVarint((field << 3) | wireType);
    }

    /** uint32 from a Java int: its unsigned 32-bit value, as generated code writes it. */
    private void uint32(int field, int v) {
        if (v != 0) {
            tag(field, VARINT);
            rawVarint(v & 0xffff_ffffL);
        }
    }

    /** int64 and uint64: the 64-bit two's complement value (10 bytes when negative). */
    private void varint64(int field, long v) {
        if (v != 0) {
            tag(field, VARINT);
            rawVarint(v);
        }
    }

    private void fixed64(int field, long v) {
        if (v != 0) {
            tag(field, FIXED64);
            for (int i = 0; i < 8; i++) {
                buf[pos++] = (byte) (v >>> (8 * i));
            }
        }
    }

    /** 16 bytes, network order, IPv4 mapped: never empty, so always written. */
    private void address(int field, IpAddress a) {
        tag(field, LENGTH_DELIMITED);
        buf[pos++] = 16;
        long hi = a.hi();
        long lo = a.lo();
        for (int i = 0; i < 8; i++) {
            buf[pos + i] = (byte) (hi >>> (56 - 8 * i));
            buf[pos + 8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        pos += 16;
    }

    private void rawVarint(long v) {
        while ((v & ~0x7fL) != 0) {
            buf[pos++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        buf[pos++] = (byte) v;
    }
}
