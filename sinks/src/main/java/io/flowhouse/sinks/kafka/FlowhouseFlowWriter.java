// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.flow.SflowFields;
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

    /** Larger than the largest Flow: 49 fields, at most 11 + 18 bytes each. */
    private static final int MAX_BYTES = 1024;

    private static final int VARINT = 0;
    private static final int FIXED64 = 1;
    private static final int LENGTH_DELIMITED = 2;

    private final byte[] buf = new byte[MAX_BYTES];
    private int pos;

    /** The flow's wire bytes, a new array of exactly their length. */
    public byte[] encode(FlowRecord r, FlowRowIds ids) {
        pos = 0;
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
        uint32(31, (int) r.srcAs());
        uint32(32, (int) r.dstAs());
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
        return Arrays.copyOf(buf, pos);
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
