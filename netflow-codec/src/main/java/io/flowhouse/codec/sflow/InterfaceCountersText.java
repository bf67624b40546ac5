// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.flow.IpAddress;

/**
 * Text forms of an sFlow counter sample's {@link InterfaceCounters}: one JSON object (the sample's
 * facts as {@code sflowAgent}, {@code sflowSampleSequence}, ..., the counter records under {@code
 * interfaceCounters} and {@code ethernetCounters} with their MIB names), and a one-line summary for
 * tables. A flow's JSON never has those two keys, so the two kinds of line are told apart.
 * Stateless and thread-safe.
 */
public final class InterfaceCountersText {

    private InterfaceCountersText() {}

    /** Appends one JSON object (no newline). */
    public static StringBuilder json(InterfaceCounters c, StringBuilder sb) {
        sb.append("{\"exporter\":\"").append(exporter(c)).append('"');
        sb.append(",\"sflowAgent\":\"").append(c.agentAddress()).append('"');
        num(sb, "sflowSubAgentId", c.subAgentId());
        num(sb, "sflowDatagramSequence", c.datagramSequence());
        num(sb, "sflowUptimeMilliseconds", c.uptimeMillis());
        num(sb, "timeReceivedMilliseconds", c.timeReceivedMillis());
        num(sb, "sflowSampleSequence", c.sampleSequence());
        num(sb, "sflowSourceIdClass", c.sourceIdClass());
        num(sb, "sflowSourceIdIndex", c.sourceIdIndex());
        GenericInterfaceCounters g = c.generic();
        if (g != null) {
            sb.append(",\"interfaceCounters\":{\"ifIndex\":").append(g.ifIndex());
            num(sb, "ifType", g.ifType());
            unsigned(sb, "ifSpeed", g.ifSpeed());
            num(sb, "ifDirection", g.ifDirection());
            num(sb, "ifStatus", g.ifStatus());
            unsigned(sb, "ifInOctets", g.ifInOctets());
            num(sb, "ifInUcastPkts", g.ifInUcastPkts());
            num(sb, "ifInMulticastPkts", g.ifInMulticastPkts());
            num(sb, "ifInBroadcastPkts", g.ifInBroadcastPkts());
            num(sb, "ifInDiscards", g.ifInDiscards());
            num(sb, "ifInErrors", g.ifInErrors());
            num(sb, "ifInUnknownProtos", g.ifInUnknownProtos());
            unsigned(sb, "ifOutOctets", g.ifOutOctets());
            num(sb, "ifOutUcastPkts", g.ifOutUcastPkts());
            num(sb, "ifOutMulticastPkts", g.ifOutMulticastPkts());
            num(sb, "ifOutBroadcastPkts", g.ifOutBroadcastPkts());
            num(sb, "ifOutDiscards", g.ifOutDiscards());
            num(sb, "ifOutErrors", g.ifOutErrors());
            num(sb, "ifPromiscuousMode", g.ifPromiscuousMode());
            sb.append('}');
        }
        EthernetInterfaceCounters e = c.ethernet();
        if (e != null) {
            sb.append(",\"ethernetCounters\":{\"dot3StatsAlignmentErrors\":")
                    .append(e.dot3StatsAlignmentErrors());
            num(sb, "dot3StatsFCSErrors", e.dot3StatsFCSErrors());
            num(sb, "dot3StatsSingleCollisionFrames", e.dot3StatsSingleCollisionFrames());
            num(sb, "dot3StatsMultipleCollisionFrames", e.dot3StatsMultipleCollisionFrames());
            num(sb, "dot3StatsSQETestErrors", e.dot3StatsSQETestErrors());
            num(sb, "dot3StatsDeferredTransmissions", e.dot3StatsDeferredTransmissions());
            num(sb, "dot3StatsLateCollisions", e.dot3StatsLateCollisions());
            num(sb, "dot3StatsExcessiveCollisions", e.dot3StatsExcessiveCollisions());
            num(sb, "dot3StatsInternalMacTransmitErrors", e.dot3StatsInternalMacTransmitErrors());
            num(sb, "dot3StatsCarrierSenseErrors", e.dot3StatsCarrierSenseErrors());
            num(sb, "dot3StatsFrameTooLongs", e.dot3StatsFrameTooLongs());
            num(sb, "dot3StatsInternalMacReceiveErrors", e.dot3StatsInternalMacReceiveErrors());
            num(sb, "dot3StatsSymbolErrors", e.dot3StatsSymbolErrors());
            sb.append('}');
        }
        return sb.append('}');
    }

    /**
     * One line (no newline): {@code counters agent A/S if N speed S in O octets U/M/B pkts D
     * discards E errors, out ...}, plus the Ethernet error counters when present.
     */
    public static StringBuilder line(InterfaceCounters c, StringBuilder sb) {
        sb.append("counters agent ")
                .append(c.agentAddress())
                .append('/')
                .append(c.subAgentId())
                .append(" if ")
                .append(c.ifIndex())
                .append(" seq ")
                .append(c.sampleSequence());
        GenericInterfaceCounters g = c.generic();
        if (g != null) {
            sb.append(" speed ")
                    .append(Long.toUnsignedString(g.ifSpeed()))
                    .append(" status ")
                    .append(g.ifStatus())
                    .append(", in ")
                    .append(Long.toUnsignedString(g.ifInOctets()))
                    .append(" octets ")
                    .append(g.ifInUcastPkts())
                    .append('/')
                    .append(g.ifInMulticastPkts())
                    .append('/')
                    .append(g.ifInBroadcastPkts())
                    .append(" ucast/mcast/bcast ")
                    .append(g.ifInDiscards())
                    .append(" discards ")
                    .append(g.ifInErrors())
                    .append(" errors, out ")
                    .append(Long.toUnsignedString(g.ifOutOctets()))
                    .append(" octets ")
                    .append(g.ifOutUcastPkts())
                    .append('/')
                    .append(g.ifOutMulticastPkts())
                    .append('/')
                    .append(g.ifOutBroadcastPkts())
                    .append(" ucast/mcast/bcast ")
                    .append(g.ifOutDiscards())
                    .append(" discards ")
                    .append(g.ifOutErrors())
                    .append(" errors");
        }
        EthernetInterfaceCounters e = c.ethernet();
        if (e != null) {
            sb.append(g != null ? ";" : "")
                    .append(" ethernet FCS ")
                    .append(e.dot3StatsFCSErrors())
                    .append(" alignment ")
                    .append(e.dot3StatsAlignmentErrors())
                    .append(" too-long ")
                    .append(e.dot3StatsFrameTooLongs())
                    .append(" symbol ")
                    .append(e.dot3StatsSymbolErrors())
                    .append(" errors");
        }
        return sb;
    }

    private static String exporter(InterfaceCounters c) {
        IpAddress a = c.exporterAddress();
        return a.isIpv4() || a.isUnspecified()
                ? a + ":" + c.exporterPort()
                : "[" + a + "]:" + c.exporterPort();
    }

    private static void num(StringBuilder sb, String key, long value) {
        sb.append(",\"").append(key).append("\":").append(value);
    }

    private static void unsigned(StringBuilder sb, String key, long value) {
        sb.append(",\"").append(key).append("\":").append(Long.toUnsignedString(value));
    }
}
