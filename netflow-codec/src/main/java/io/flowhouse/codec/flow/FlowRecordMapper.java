// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.flow;

import io.flowhouse.codec.ie.DataType;
import io.flowhouse.codec.ie.InformationElement;
import io.flowhouse.codec.ie.InformationElementRegistry;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.OptionsData;

/**
 * Maps information elements to {@link FlowRecord} fields. Information elements are data, not a
 * switch: {@link #TABLE} names each element (resolved to its id and data type through the {@link
 * InformationElementRegistry}) and the {@link Target} it fills; the data type decides how bytes
 * become a value ({@link Kind}). Decoding writes values into a {@code long[]} scratch indexed by
 * target, then {@link #toFlowRecord} builds the record once, so a record costs no allocation but
 * its own. Immutable and thread-safe.
 */
public final class FlowRecordMapper {

    /** How a field's bytes become a scratch value. */
    public enum Kind {
        /** Not mapped: skipped by length. */
        SKIP,
        /** Unsigned big-endian integer of 1..8 bytes (reduced-size encoding, MAC addresses). */
        UNSIGNED,
        /** 4-byte IPv4 address. */
        IPV4,
        /** 16-byte IPv6 address, into two consecutive targets. */
        IPV6,
        /** dateTimeSeconds: unsigned seconds, stored as epoch ms. */
        TIME_SECONDS,
        /** dateTimeMilliseconds: unsigned epoch ms. */
        TIME_MILLIS,
        /** dateTimeMicroseconds / dateTimeNanoseconds: 64-bit NTP format, stored as epoch ms. */
        TIME_NTP,
        /** string / octetArray: stored as (absolute position << 16 | length). */
        STRING
    }

    /** Scratch slots; the ordinal is the index. IPv6 targets are followed by their low half. */
    public enum Target {
        BYTES,
        PACKETS,
        REVERSE_BYTES,
        REVERSE_PACKETS,
        BYTES_TOTAL,
        PACKETS_TOTAL,
        REVERSE_BYTES_TOTAL,
        REVERSE_PACKETS_TOTAL,
        POST_BYTES,
        POST_PACKETS,
        INITIATOR_BYTES,
        RESPONDER_BYTES,
        INITIATOR_PACKETS,
        RESPONDER_PACKETS,
        SRC_V4,
        DST_V4,
        NEXT_HOP_V4,
        SRC_V6,
        SRC_V6_LO,
        DST_V6,
        DST_V6_LO,
        NEXT_HOP_V6,
        NEXT_HOP_V6_LO,
        SRC_PORT,
        DST_PORT,
        PROTOCOL,
        TCP_FLAGS,
        TOS,
        SRC_PREFIX,
        DST_PREFIX,
        IN_IF,
        OUT_IF,
        VLAN,
        POST_VLAN,
        DOT1Q_VLAN,
        POST_DOT1Q_VLAN,
        SRC_MAC,
        DST_MAC,
        POST_SRC_MAC,
        POST_DST_MAC,
        SRC_AS,
        DST_AS,
        DIRECTION,
        END_REASON,
        IP_VERSION,
        ICMP_TYPE_CODE,
        SAMPLER_ID,
        SAMPLING_INTERVAL,
        SAMPLING_PACKET_INTERVAL,
        SAMPLING_PACKET_SPACE,
        SAMPLER_RANDOM_INTERVAL,
        START_UPTIME,
        END_UPTIME,
        START_ABS,
        END_ABS,
        START_DELTA_US,
        END_DELTA_US,
        DURATION_MS,
        DURATION_US,
        SYSTEM_INIT_TIME,
        INTERFACE_NAME;

        long bit() {
            return 1L << ordinal();
        }
    }

    /** Index of the scratch slot that holds the bitmask of targets present. */
    public static final int PRESENT = 63;

    /** Size of the scratch array decoders pass in. */
    public static final int SCRATCH_SIZE = 64;

    /** Seconds from the NTP epoch (1900) to the Unix epoch (1970). */
    static final long NTP_UNIX_OFFSET_SECONDS = 2_208_988_800L;

    /** The table: information element name (PEN 0, or 29305 for reverse names) to target. */
    static final Object[][] TABLE = {
        {"octetDeltaCount", Target.BYTES},
        {"packetDeltaCount", Target.PACKETS},
        {"reverseOctetDeltaCount", Target.REVERSE_BYTES},
        {"reversePacketDeltaCount", Target.REVERSE_PACKETS},
        {"octetTotalCount", Target.BYTES_TOTAL},
        {"packetTotalCount", Target.PACKETS_TOTAL},
        {"reverseOctetTotalCount", Target.REVERSE_BYTES_TOTAL},
        {"reversePacketTotalCount", Target.REVERSE_PACKETS_TOTAL},
        {"postOctetDeltaCount", Target.POST_BYTES},
        {"postPacketDeltaCount", Target.POST_PACKETS},
        {"initiatorOctets", Target.INITIATOR_BYTES},
        {"responderOctets", Target.RESPONDER_BYTES},
        {"initiatorPackets", Target.INITIATOR_PACKETS},
        {"responderPackets", Target.RESPONDER_PACKETS},
        {"sourceIPv4Address", Target.SRC_V4},
        {"destinationIPv4Address", Target.DST_V4},
        {"ipNextHopIPv4Address", Target.NEXT_HOP_V4},
        {"sourceIPv6Address", Target.SRC_V6},
        {"destinationIPv6Address", Target.DST_V6},
        {"ipNextHopIPv6Address", Target.NEXT_HOP_V6},
        {"sourceTransportPort", Target.SRC_PORT},
        {"destinationTransportPort", Target.DST_PORT},
        {"protocolIdentifier", Target.PROTOCOL},
        {"tcpControlBits", Target.TCP_FLAGS},
        {"ipClassOfService", Target.TOS},
        {"sourceIPv4PrefixLength", Target.SRC_PREFIX},
        {"destinationIPv4PrefixLength", Target.DST_PREFIX},
        {"sourceIPv6PrefixLength", Target.SRC_PREFIX},
        {"destinationIPv6PrefixLength", Target.DST_PREFIX},
        {"ingressInterface", Target.IN_IF},
        {"egressInterface", Target.OUT_IF},
        {"vlanId", Target.VLAN},
        {"postVlanId", Target.POST_VLAN},
        {"dot1qVlanId", Target.DOT1Q_VLAN},
        {"postDot1qVlanId", Target.POST_DOT1Q_VLAN},
        {"sourceMacAddress", Target.SRC_MAC},
        {"destinationMacAddress", Target.DST_MAC},
        {"postSourceMacAddress", Target.POST_SRC_MAC},
        {"postDestinationMacAddress", Target.POST_DST_MAC},
        {"bgpSourceAsNumber", Target.SRC_AS},
        {"bgpDestinationAsNumber", Target.DST_AS},
        {"flowDirection", Target.DIRECTION},
        {"flowEndReason", Target.END_REASON},
        {"ipVersion", Target.IP_VERSION},
        {"icmpTypeCodeIPv4", Target.ICMP_TYPE_CODE},
        {"icmpTypeCodeIPv6", Target.ICMP_TYPE_CODE},
        {"samplerId", Target.SAMPLER_ID},
        {"selectorId", Target.SAMPLER_ID},
        {"samplingInterval", Target.SAMPLING_INTERVAL},
        {"samplingPacketInterval", Target.SAMPLING_PACKET_INTERVAL},
        {"samplingPacketSpace", Target.SAMPLING_PACKET_SPACE},
        {"samplerRandomInterval", Target.SAMPLER_RANDOM_INTERVAL},
        {"flowStartSysUpTime", Target.START_UPTIME},
        {"flowEndSysUpTime", Target.END_UPTIME},
        {"flowStartSeconds", Target.START_ABS},
        {"flowEndSeconds", Target.END_ABS},
        {"flowStartMilliseconds", Target.START_ABS},
        {"flowEndMilliseconds", Target.END_ABS},
        {"flowStartMicroseconds", Target.START_ABS},
        {"flowEndMicroseconds", Target.END_ABS},
        {"flowStartNanoseconds", Target.START_ABS},
        {"flowEndNanoseconds", Target.END_ABS},
        {"flowStartDeltaMicroseconds", Target.START_DELTA_US},
        {"flowEndDeltaMicroseconds", Target.END_DELTA_US},
        {"flowDurationMilliseconds", Target.DURATION_MS},
        {"flowDurationMicroseconds", Target.DURATION_US},
        {"systemInitTimeMilliseconds", Target.SYSTEM_INIT_TIME},
        {"interfaceName", Target.INTERFACE_NAME},
    };

    /**
     * A resolved table entry.
     *
     * @param target the scratch slot
     * @param kind how to read the bytes
     * @param element the information element
     */
    public record Mapping(Target target, Kind kind, InformationElement element) {

        /** True if a field of this length can be read as this kind. */
        public boolean accepts(int length) {
            return switch (kind) {
                case IPV4 -> length == 4;
                case IPV6 -> length == 16;
                case TIME_NTP -> length == 8;
                case UNSIGNED, TIME_SECONDS, TIME_MILLIS -> length >= 1 && length <= 8;
                case STRING, SKIP -> true;
            };
        }
    }

    private static volatile FlowRecordMapper standard;

    private final Mapping[] iana = new Mapping[0x10000];
    private final Mapping[] reverse = new Mapping[0x10000];
    private final InformationElementRegistry registry;

    private FlowRecordMapper(InformationElementRegistry registry) {
        this.registry = registry;
        for (Object[] row : TABLE) {
            InformationElement e = registry.require((String) row[0]);
            Mapping m = new Mapping((Target) row[1], kindOf(e.dataType()), e);
            if (e.enterpriseNumber() == 0L) {
                iana[e.id()] = m;
            } else if (e.enterpriseNumber() == FieldSpecifier.REVERSE_PEN) {
                reverse[e.id()] = m;
            }
        }
    }

    /** The mapper over the IANA registry. */
    public static FlowRecordMapper standard() {
        FlowRecordMapper m = standard;
        if (m == null) {
            m = new FlowRecordMapper(InformationElementRegistry.iana());
            standard = m;
        }
        return m;
    }

    public InformationElementRegistry registry() {
        return registry;
    }

    /** The mapping of a field, or null if the field does not map to a flow record field. */
    public Mapping lookup(long enterpriseNumber, int id) {
        if (id < 0 || id > 0xffff) {
            return null;
        }
        if (enterpriseNumber == 0L) {
            return iana[id];
        }
        if (enterpriseNumber == FieldSpecifier.REVERSE_PEN) {
            return reverse[id];
        }
        return null;
    }

    static Kind kindOf(DataType t) {
        return switch (t) {
            case IPV4_ADDRESS -> Kind.IPV4;
            case IPV6_ADDRESS -> Kind.IPV6;
            case DATE_TIME_SECONDS -> Kind.TIME_SECONDS;
            case DATE_TIME_MILLISECONDS -> Kind.TIME_MILLIS;
            case DATE_TIME_MICROSECONDS, DATE_TIME_NANOSECONDS -> Kind.TIME_NTP;
            case STRING, OCTET_ARRAY -> Kind.STRING;
            case UNSIGNED8, UNSIGNED16, UNSIGNED32, UNSIGNED64, MAC_ADDRESS, BOOLEAN ->
                    Kind.UNSIGNED;
            default -> Kind.SKIP;
        };
    }

    /** 64-bit NTP time (RFC 5905; RFC 7011 section 6.1.9) to epoch milliseconds. */
    public static long ntpToMillis(long ntp) {
        long secs = ntp >>> 32;
        long frac = ntp & 0xffff_ffffL;
        return (secs - NTP_UNIX_OFFSET_SECONDS) * 1000L + ((frac * 1000L) >>> 32);
    }

    /** Epoch milliseconds to 64-bit NTP time. */
    public static long millisToNtp(long millis) {
        long secs = Math.floorDiv(millis, 1000L) + NTP_UNIX_OFFSET_SECONDS;
        long ms = Math.floorMod(millis, 1000L);
        long frac = ((ms << 32) + 999L) / 1000L;
        return (secs << 32) | (frac & 0xffff_ffffL);
    }

    private static boolean has(long present, Target t) {
        return (present & t.bit()) != 0;
    }

    /**
     * Builds the flow record from a decoded scratch array and the message context.
     *
     * @param v scratch filled by {@link RecordLayout#read}; {@code v[PRESENT]} is the bitmask
     * @param c per-message facts (header, exporter, options data)
     * @param recordIndex index of the data record within its message
     */
    public static FlowRecord toFlowRecord(long[] v, RecordContext c, int recordIndex) {
        long p = v[PRESENT];
        long bytes =
                has(p, Target.BYTES)
                        ? v[Target.BYTES.ordinal()]
                        : has(p, Target.BYTES_TOTAL)
                                ? v[Target.BYTES_TOTAL.ordinal()]
                                : has(p, Target.INITIATOR_BYTES)
                                        ? v[Target.INITIATOR_BYTES.ordinal()]
                                        : has(p, Target.POST_BYTES)
                                                ? v[Target.POST_BYTES.ordinal()]
                                                : 0L;
        long packets =
                has(p, Target.PACKETS)
                        ? v[Target.PACKETS.ordinal()]
                        : has(p, Target.PACKETS_TOTAL)
                                ? v[Target.PACKETS_TOTAL.ordinal()]
                                : has(p, Target.INITIATOR_PACKETS)
                                        ? v[Target.INITIATOR_PACKETS.ordinal()]
                                        : has(p, Target.POST_PACKETS)
                                                ? v[Target.POST_PACKETS.ordinal()]
                                                : 0L;
        long revBytes =
                has(p, Target.REVERSE_BYTES)
                        ? v[Target.REVERSE_BYTES.ordinal()]
                        : has(p, Target.REVERSE_BYTES_TOTAL)
                                ? v[Target.REVERSE_BYTES_TOTAL.ordinal()]
                                : has(p, Target.RESPONDER_BYTES)
                                        ? v[Target.RESPONDER_BYTES.ordinal()]
                                        : 0L;
        long revPackets =
                has(p, Target.REVERSE_PACKETS)
                        ? v[Target.REVERSE_PACKETS.ordinal()]
                        : has(p, Target.REVERSE_PACKETS_TOTAL)
                                ? v[Target.REVERSE_PACKETS_TOTAL.ordinal()]
                                : has(p, Target.RESPONDER_PACKETS)
                                        ? v[Target.RESPONDER_PACKETS.ordinal()]
                                        : 0L;
        IpAddress src = address(v, p, Target.SRC_V6, Target.SRC_V4);
        IpAddress dst = address(v, p, Target.DST_V6, Target.DST_V4);
        IpAddress nextHop = address(v, p, Target.NEXT_HOP_V6, Target.NEXT_HOP_V4);
        if (nextHop.isIpv4() && nextHop.ipv4() == 0) {
            nextHop = IpAddress.UNSPECIFIED; // 0.0.0.0: no next hop given
        }
        int ipVersion;
        if (has(p, Target.IP_VERSION)) {
            ipVersion = (int) v[Target.IP_VERSION.ordinal()];
        } else if (has(p, Target.SRC_V6) || has(p, Target.DST_V6)) {
            ipVersion = 6;
        } else if (has(p, Target.SRC_V4) || has(p, Target.DST_V4)) {
            ipVersion = 4;
        } else {
            ipVersion = 0;
        }
        int protocol = (int) get(v, p, Target.PROTOCOL, 0);
        int dstPort = (int) get(v, p, Target.DST_PORT, 0);
        if (dstPort == 0 && has(p, Target.ICMP_TYPE_CODE)) {
            dstPort = (int) v[Target.ICMP_TYPE_CODE.ordinal()];
        }
        long start = c.startMillis(v, p);
        long end = c.endMillis(v, p);
        if (has(p, Target.DURATION_MS) || has(p, Target.DURATION_US)) {
            long dur =
                    has(p, Target.DURATION_MS)
                            ? v[Target.DURATION_MS.ordinal()]
                            : v[Target.DURATION_US.ordinal()] / 1000L;
            if (start == Long.MIN_VALUE && end != Long.MIN_VALUE) {
                start = end - dur;
            } else if (end == Long.MIN_VALUE && start != Long.MIN_VALUE) {
                end = start + dur;
            }
        }
        if (start == Long.MIN_VALUE) {
            start = end != Long.MIN_VALUE ? end : c.exportTimeMillis;
        }
        if (end == Long.MIN_VALUE) {
            end = start;
        }
        int vlan = (int) get(v, p, Target.VLAN, get(v, p, Target.DOT1Q_VLAN, 0));
        int postVlan = (int) get(v, p, Target.POST_VLAN, get(v, p, Target.POST_DOT1Q_VLAN, 0));
        long direction = get(v, p, Target.DIRECTION, -1);
        return new FlowRecord(
                c.version,
                c.exporterAddress,
                c.exporterPort,
                c.observationDomainId,
                c.sequenceNumber,
                recordIndex,
                c.exportTimeMillis,
                c.receivedMillis,
                start,
                end,
                ipVersion,
                src,
                dst,
                nextHop,
                (int) get(v, p, Target.SRC_PREFIX, 0),
                (int) get(v, p, Target.DST_PREFIX, 0),
                (int) get(v, p, Target.SRC_PORT, 0),
                dstPort,
                protocol,
                (int) get(v, p, Target.TCP_FLAGS, 0),
                (int) get(v, p, Target.TOS, 0),
                bytes,
                packets,
                revBytes,
                revPackets,
                get(v, p, Target.IN_IF, 0),
                get(v, p, Target.OUT_IF, 0),
                vlan,
                postVlan,
                get(v, p, Target.SRC_MAC, get(v, p, Target.POST_SRC_MAC, 0)),
                get(v, p, Target.DST_MAC, get(v, p, Target.POST_DST_MAC, 0)),
                get(v, p, Target.SRC_AS, 0),
                get(v, p, Target.DST_AS, 0),
                direction == 0 || direction == 1 ? (int) direction : -1,
                (int) get(v, p, Target.END_REASON, 0),
                c.samplingRate(v, p));
    }

    private static long get(long[] v, long p, Target t, long dflt) {
        return (p & t.bit()) != 0 ? v[t.ordinal()] : dflt;
    }

    private static IpAddress address(long[] v, long p, Target v6, Target v4) {
        if ((p & v6.bit()) != 0) {
            return new IpAddress(v[v6.ordinal()], v[v6.ordinal() + 1]);
        }
        if ((p & v4.bit()) != 0) {
            return IpAddress.ofIpv4((int) v[v4.ordinal()]);
        }
        return IpAddress.UNSPECIFIED;
    }

    /** Sampling rate from a record, else from options data; 1 when unknown. */
    static long samplingRate(long[] v, long p, OptionsData options) {
        if (has(p, Target.SAMPLING_INTERVAL) && v[Target.SAMPLING_INTERVAL.ordinal()] > 0) {
            return v[Target.SAMPLING_INTERVAL.ordinal()];
        }
        if (has(p, Target.SAMPLER_RANDOM_INTERVAL)
                && v[Target.SAMPLER_RANDOM_INTERVAL.ordinal()] > 0) {
            return v[Target.SAMPLER_RANDOM_INTERVAL.ordinal()];
        }
        if (has(p, Target.SAMPLING_PACKET_INTERVAL)
                && v[Target.SAMPLING_PACKET_INTERVAL.ordinal()] > 0) {
            long interval = v[Target.SAMPLING_PACKET_INTERVAL.ordinal()];
            long space = get(v, p, Target.SAMPLING_PACKET_SPACE, 0);
            return (interval + space) / interval;
        }
        long rate =
                options.samplingRate(
                        has(p, Target.SAMPLER_ID)
                                ? v[Target.SAMPLER_ID.ordinal()]
                                : OptionsData.ANY_SAMPLER);
        return rate > 0 ? rate : 1L;
    }
}
