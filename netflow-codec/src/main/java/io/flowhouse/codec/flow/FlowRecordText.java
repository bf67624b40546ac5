// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.flow;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Text forms of a {@link FlowRecord}: one JSON object keyed by IANA information element names
 * ({@code octetDeltaCount}, {@code sourceIPv4Address}, ...) plus {@code exporter}, {@code version}
 * and {@code observationDomainId}, and for sFlow the {@link SflowFields} as {@code sflowAgent},
 * {@code sflowSampleSequence}, ...; and an nfdump-like table line. Stateless and thread-safe.
 */
public final class FlowRecordText {

    private static final DateTimeFormatter TABLE_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS", Locale.ROOT)
                    .withZone(ZoneOffset.UTC);

    private static final String[] PROTOCOL_NAMES = new String[256];

    static {
        PROTOCOL_NAMES[1] = "ICMP";
        PROTOCOL_NAMES[2] = "IGMP";
        PROTOCOL_NAMES[6] = "TCP";
        PROTOCOL_NAMES[17] = "UDP";
        PROTOCOL_NAMES[41] = "IPv6";
        PROTOCOL_NAMES[47] = "GRE";
        PROTOCOL_NAMES[50] = "ESP";
        PROTOCOL_NAMES[51] = "AH";
        PROTOCOL_NAMES[58] = "ICMP6";
        PROTOCOL_NAMES[89] = "OSPF";
        PROTOCOL_NAMES[132] = "SCTP";
    }

    private FlowRecordText() {}

    /** Appends one JSON object (no newline). Fields at their "not given" value are left out. */
    public static StringBuilder json(FlowRecord r, StringBuilder sb) {
        sb.append('{');
        str(sb, "exporter", exporter(r), true);
        num(sb, "version", r.version());
        num(sb, "observationDomainId", r.observationDomainId());
        num(sb, "sequenceNumber", r.sequenceNumber());
        num(sb, "exportTimeMilliseconds", r.exportTimeMillis());
        num(sb, "flowStartMilliseconds", r.flowStartMillis());
        num(sb, "flowEndMilliseconds", r.flowEndMillis());
        if (r.ipVersion() != 0) {
            num(sb, "ipVersion", r.ipVersion());
        }
        address(sb, "source", "Address", r.srcAddr(), r.ipVersion());
        address(sb, "destination", "Address", r.dstAddr(), r.ipVersion());
        if (!r.nextHop().isUnspecified()) {
            str(
                    sb,
                    r.nextHop().isIpv4() ? "ipNextHopIPv4Address" : "ipNextHopIPv6Address",
                    r.nextHop().toString(),
                    false);
        }
        boolean v6 = r.ipVersion() == 6 || (r.ipVersion() == 0 && !r.srcAddr().isIpv4());
        if (r.srcPrefixLen() != 0) {
            num(sb, v6 ? "sourceIPv6PrefixLength" : "sourceIPv4PrefixLength", r.srcPrefixLen());
        }
        if (r.dstPrefixLen() != 0) {
            num(
                    sb,
                    v6 ? "destinationIPv6PrefixLength" : "destinationIPv4PrefixLength",
                    r.dstPrefixLen());
        }
        num(sb, "sourceTransportPort", r.srcPort());
        num(sb, "destinationTransportPort", r.dstPort());
        num(sb, "protocolIdentifier", r.protocol());
        num(sb, "tcpControlBits", r.tcpFlags());
        num(sb, "ipClassOfService", r.tos());
        unsigned(sb, "octetDeltaCount", r.bytes());
        unsigned(sb, "packetDeltaCount", r.packets());
        if (r.reverseBytes() != 0 || r.reversePackets() != 0) {
            unsigned(sb, "reverseOctetDeltaCount", r.reverseBytes());
            unsigned(sb, "reversePacketDeltaCount", r.reversePackets());
        }
        num(sb, "ingressInterface", r.inputInterface());
        num(sb, "egressInterface", r.outputInterface());
        if (r.vlanId() != 0) {
            num(sb, "vlanId", r.vlanId());
        }
        if (r.postVlanId() != 0) {
            num(sb, "postVlanId", r.postVlanId());
        }
        if (r.srcMac() != 0) {
            str(sb, "sourceMacAddress", mac(r.srcMac()), false);
        }
        if (r.dstMac() != 0) {
            str(sb, "destinationMacAddress", mac(r.dstMac()), false);
        }
        if (r.srcAs() != 0 || r.dstAs() != 0) {
            num(sb, "bgpSourceAsNumber", r.srcAs());
            num(sb, "bgpDestinationAsNumber", r.dstAs());
        }
        if (r.inputVrfId() != 0 || r.outputVrfId() != 0) {
            num(sb, "ingressVRFID", r.inputVrfId());
            num(sb, "egressVRFID", r.outputVrfId());
        }
        if (r.direction() >= 0) {
            num(sb, "flowDirection", r.direction());
        }
        if (r.flowEndReason() != 0) {
            num(sb, "flowEndReason", r.flowEndReason());
        }
        if (r.samplingRate() > 1) {
            num(sb, "samplingInterval", r.samplingRate());
        }
        if (r.sflow() != null) {
            sflow(sb, r.sflow());
        }
        return sb.append('}');
    }

    /** The sFlow facts of a flow sample; values at their "not given" value are left out. */
    private static void sflow(StringBuilder sb, SflowFields s) {
        str(sb, "sflowAgent", s.agentAddress().toString(), false);
        num(sb, "sflowSubAgentId", s.subAgentId());
        num(sb, "sflowDatagramSequence", s.datagramSequence());
        num(sb, "sflowUptimeMilliseconds", s.uptimeMillis());
        num(sb, "sflowSampleSequence", s.sampleSequence());
        num(sb, "sflowSourceIdClass", s.sourceIdClass());
        num(sb, "sflowSourceIdIndex", s.sourceIdIndex());
        num(sb, "sflowSamplePool", s.samplePool());
        num(sb, "sflowDrops", s.drops());
        if (s.inputFormat() != SflowFields.INTERFACE_IFINDEX) {
            num(sb, "sflowInputFormat", s.inputFormat());
            num(sb, "sflowInputValue", s.inputValue());
        }
        if (s.outputFormat() != SflowFields.INTERFACE_IFINDEX) {
            num(sb, "sflowOutputFormat", s.outputFormat());
            num(sb, "sflowOutputValue", s.outputValue());
        }
        num(sb, "sflowStrippedBytes", s.stripped());
        if (s.srcPriority() != 0 || s.dstPriority() != 0) {
            num(sb, "sflowSrcPriority", s.srcPriority());
            num(sb, "sflowDstPriority", s.dstPriority());
        }
        if (!s.bgpNextHop().isUnspecified()) {
            str(
                    sb,
                    s.bgpNextHop().isIpv4() ? "bgpNextHopIPv4Address" : "bgpNextHopIPv6Address",
                    s.bgpNextHop().toString(),
                    false);
        }
        if (s.gatewayAs() != 0 || s.srcPeerAs() != 0) {
            num(sb, "sflowGatewayAs", s.gatewayAs());
            num(sb, "bgpPrevAdjacentAsNumber", s.srcPeerAs());
        }
    }

    /** One JSON object as a string. */
    public static String json(FlowRecord r) {
        return json(r, new StringBuilder(512)).toString();
    }

    /** The header line of {@link #table}. */
    public static String tableHeader() {
        return String.format(
                Locale.ROOT,
                "%-23s %9s %-5s %45s -> %-45s %-8s %3s %8s %10s %s",
                "Date first seen (UTC)",
                "Duration",
                "Proto",
                "Src IP Addr:Port",
                "Dst IP Addr:Port",
                "Flags",
                "Tos",
                "Packets",
                "Bytes",
                "Exporter");
    }

    /** One nfdump-like line (no newline); reverse counters follow as {@code +rev}. */
    public static StringBuilder table(FlowRecord r, StringBuilder sb) {
        String proto = PROTOCOL_NAMES[r.protocol() & 0xff];
        sb.append(
                String.format(
                        Locale.ROOT,
                        "%-23s %9.3f %-5s %45s -> %-45s %-8s %3d %8s %10s %s",
                        TABLE_TIME.format(Instant.ofEpochMilli(r.flowStartMillis())),
                        (r.flowEndMillis() - r.flowStartMillis()) / 1000.0,
                        proto != null ? proto : Integer.toString(r.protocol()),
                        endpoint(r.srcAddr(), r.srcPort()),
                        endpoint(r.dstAddr(), r.dstPort()),
                        tcpFlags(r.tcpFlags()),
                        r.tos(),
                        Long.toUnsignedString(r.packets()),
                        Long.toUnsignedString(r.bytes()),
                        exporter(r)));
        if (r.reverseBytes() != 0 || r.reversePackets() != 0) {
            sb.append(" rev ")
                    .append(Long.toUnsignedString(r.reversePackets()))
                    .append('/')
                    .append(Long.toUnsignedString(r.reverseBytes()));
        }
        SflowFields s = r.sflow();
        if (s != null) {
            // Unscaled: one sampled packet of its frame length; the rate says what it stands for.
            sb.append(" sflow agent ")
                    .append(s.agentAddress())
                    .append('/')
                    .append(s.subAgentId())
                    .append(" rate 1:")
                    .append(r.samplingRate())
                    .append(" if ")
                    .append(interfaceText(s.inputFormat(), s.inputValue()))
                    .append("->")
                    .append(interfaceText(s.outputFormat(), s.outputValue()));
            if (r.vlanId() != 0 || r.postVlanId() != 0) {
                sb.append(" vlan ").append(r.vlanId()).append("->").append(r.postVlanId());
            }
            sb.append(" seq ").append(s.sampleSequence());
        }
        return sb;
    }

    /** An sFlow interface: the ifIndex, {@code discard:REASON} or {@code multiple:N}. */
    private static String interfaceText(int format, long value) {
        switch (format) {
            case SflowFields.INTERFACE_IFINDEX:
                return Long.toString(value);
            case SflowFields.INTERFACE_DISCARDED:
                return "discard:" + value;
            case SflowFields.INTERFACE_MULTIPLE:
                return "multiple:" + value;
            default:
                return format + ":" + value;
        }
    }

    /** nfdump's flag letters: CWR ECE URG ACK PSH RST SYN FIN, '.' when unset. */
    public static String tcpFlags(int f) {
        char[] letters = {'C', 'E', 'U', 'A', 'P', 'R', 'S', 'F'};
        char[] out = new char[8];
        for (int i = 0; i < 8; i++) {
            out[i] = (f & (0x80 >>> i)) != 0 ? letters[i] : '.';
        }
        return new String(out);
    }

    /** {@code aa:bb:cc:dd:ee:ff}. */
    public static String mac(long m) {
        char[] hex = "0123456789abcdef".toCharArray();
        char[] out = new char[17];
        for (int i = 0; i < 6; i++) {
            int b = (int) (m >>> (8 * (5 - i))) & 0xff;
            out[i * 3] = hex[b >>> 4];
            out[i * 3 + 1] = hex[b & 0xf];
            if (i < 5) {
                out[i * 3 + 2] = ':';
            }
        }
        return new String(out);
    }

    private static String exporter(FlowRecord r) {
        IpAddress a = r.exporterAddress();
        return a.isIpv4() || a.isUnspecified()
                ? a + ":" + r.exporterPort()
                : "[" + a + "]:" + r.exporterPort();
    }

    private static String endpoint(IpAddress a, int port) {
        return a.isIpv4() ? a + ":" + port : a + "." + port;
    }

    private static void address(
            StringBuilder sb, String prefix, String suffix, IpAddress a, int ipVersion) {
        if (a.isUnspecified() && ipVersion == 0) {
            return;
        }
        boolean v4 = a.isIpv4() && ipVersion != 6;
        str(sb, prefix + (v4 ? "IPv4" : "IPv6") + suffix, a.toString(), false);
    }

    /** Appends {@code ,"key":"value"} (escaped) to a JSON object being written. */
    public static StringBuilder jsonField(StringBuilder sb, String key, String value) {
        str(sb, key, value, false);
        return sb;
    }

    private static void str(StringBuilder sb, String key, String value, boolean first) {
        if (!first) {
            sb.append(',');
        }
        sb.append('"').append(key).append("\":\"");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
    }

    private static void num(StringBuilder sb, String key, long value) {
        sb.append(",\"").append(key).append("\":").append(value);
    }

    private static void unsigned(StringBuilder sb, String key, long value) {
        sb.append(",\"").append(key).append("\":").append(Long.toUnsignedString(value));
    }
}
