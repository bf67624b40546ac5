// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import com.google.protobuf.ByteString;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.schema.goflow2.FlowMessage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * {@link FlowRecord} to goflow2's {@code flowpb.FlowMessage}, length-delimited as goflow2's binary
 * format writes it (protodelim: a varint length, then the message), with goflow2's conventions:
 * times in nanoseconds, addresses as 4 bytes for IPv4 and 16 for IPv6, {@code etype} 0x0800 or
 * 0x86dd. Counters are as sent (goflow2 does not scale them either). What goflow2 has no field for
 * ({@code row_id}, biflow reverse counters, direction, end reason, export time) is left out. Of a
 * flow's context, goflow2's schema has fields for the AS numbers only ({@code src_as}, {@code
 * dst_as}): they carry the context's; names, countries and networks have no field there.
 */
public final class Goflow2FlowEncoder {

    static final int ETYPE_IPV4 = 0x0800;
    static final int ETYPE_IPV6 = 0x86dd;
    private static final long NANOS_PER_MILLI = 1_000_000L;

    private Goflow2FlowEncoder() {}

    public static FlowMessage toMessage(FlowRecord r) {
        FlowMessage.Builder b =
                FlowMessage.newBuilder()
                        .setType(type(r.version()))
                        .setTimeReceivedNs(r.timeReceivedMillis() * NANOS_PER_MILLI)
                        .setSequenceNum((int) r.sequenceNumber())
                        .setSamplingRate(r.samplingRate())
                        .setSamplerAddress(address(r.exporterAddress()))
                        .setTimeFlowStartNs(r.flowStartMillis() * NANOS_PER_MILLI)
                        .setTimeFlowEndNs(r.flowEndMillis() * NANOS_PER_MILLI)
                        .setBytes(r.bytes())
                        .setPackets(r.packets())
                        .setProto(r.protocol())
                        .setSrcPort(r.srcPort())
                        .setDstPort(r.dstPort())
                        .setInIf((int) r.inputInterface())
                        .setOutIf((int) r.outputInterface())
                        .setSrcMac(r.srcMac())
                        .setDstMac(r.dstMac())
                        .setIpTos(r.tos())
                        .setTcpFlags(r.tcpFlags())
                        .setSrcAs((int) r.srcAs())
                        .setDstAs((int) r.dstAs())
                        .setSrcNet(r.srcPrefixLen())
                        .setDstNet(r.dstPrefixLen())
                        .setObservationDomainId((int) r.observationDomainId());
        if (r.ipVersion() == 4 || r.ipVersion() == 6) {
            b.setEtype(r.ipVersion() == 4 ? ETYPE_IPV4 : ETYPE_IPV6)
                    .setSrcAddr(address(r.srcAddr()))
                    .setDstAddr(address(r.dstAddr()));
        }
        if (!r.nextHop().isUnspecified()) {
            b.setNextHop(address(r.nextHop()));
        }
        if (r.version() == FlowRecord.VERSION_SFLOW5) {
            // goflow2 puts the sampled frame's 802.1Q tag here for sFlow ...
            b.setVlanId(r.vlanId());
        } else {
            // ... and NetFlow/IPFIX vlanId / postVlanId (IE 58 / 59) in src_vlan / dst_vlan.
            b.setSrcVlan(r.vlanId()).setDstVlan(r.postVlanId());
        }
        return b.build();
    }

    /** The flow with its context's AS numbers (null: the flow alone). */
    public static FlowMessage toMessage(FlowRecord r, FlowContext c) {
        FlowMessage m = toMessage(r);
        if (c == null) {
            return m;
        }
        return m.toBuilder().setSrcAs((int) c.srcAs()).setDstAs((int) c.dstAs()).build();
    }

    /** The record value: the message, length-delimited. */
    public static byte[] encode(FlowRecord r) {
        return encode(r, null);
    }

    /** The record value of the flow with its context (null: the flow alone). */
    public static byte[] encode(FlowRecord r, FlowContext c) {
        FlowMessage m = toMessage(r, c);
        ByteArrayOutputStream out = new ByteArrayOutputStream(m.getSerializedSize() + 5);
        try {
            m.writeDelimitedTo(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // never: an in-memory stream
        }
        return out.toByteArray();
    }

    static FlowMessage.FlowType type(int version) {
        return switch (version) {
            case 5 -> FlowMessage.FlowType.NETFLOW_V5;
            case 9 -> FlowMessage.FlowType.NETFLOW_V9;
            case 10 -> FlowMessage.FlowType.IPFIX;
            case FlowRecord.VERSION_SFLOW5 -> FlowMessage.FlowType.SFLOW_5;
            default -> FlowMessage.FlowType.FLOWUNKNOWN;
        };
    }

    private static ByteString address(IpAddress a) {
        return ByteString.copyFrom(a.toBytes());
    }
}
