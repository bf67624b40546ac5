// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.flow;

import io.flowhouse.codec.ie.DataType;
import io.flowhouse.codec.ie.InformationElement;
import io.flowhouse.codec.ie.InformationElementRegistry;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.OptionsData;
import io.flowhouse.codec.template.OptionsEditor;

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
        INTERFACE_NAME,
        INTERFACE_DESCRIPTION,
        SAMPLER_NAME,
        VRF_NAME,
        IN_VRF,
        OUT_VRF;

        /** The target's bit in its presence word ({@link #PRESENT} or {@link #PRESENT_HI}). */
        long bit() {
            return 1L << ordinal();
        }

        /** The scratch slot of the presence word that holds this target's bit. */
        int presentSlot() {
            return ordinal() < 64 ? PRESENT : PRESENT_HI;
        }
    }

    private static final long SAMPLING_BITS =
            Target.SAMPLING_INTERVAL.bit()
                    | Target.SAMPLER_RANDOM_INTERVAL.bit()
                    | Target.SAMPLING_PACKET_INTERVAL.bit()
                    | Target.SAMPLER_ID.bit();

    // Slot indexes and bits as compile-time constants for the per-record path.
    static final int S_BYTES = Target.BYTES.ordinal();
    static final long B_BYTES = 1L << S_BYTES;
    static final int S_PACKETS = Target.PACKETS.ordinal();
    static final long B_PACKETS = 1L << S_PACKETS;
    static final int S_REVERSE_BYTES = Target.REVERSE_BYTES.ordinal();
    static final long B_REVERSE_BYTES = 1L << S_REVERSE_BYTES;
    static final int S_REVERSE_PACKETS = Target.REVERSE_PACKETS.ordinal();
    static final long B_REVERSE_PACKETS = 1L << S_REVERSE_PACKETS;
    static final int S_BYTES_TOTAL = Target.BYTES_TOTAL.ordinal();
    static final long B_BYTES_TOTAL = 1L << S_BYTES_TOTAL;
    static final int S_PACKETS_TOTAL = Target.PACKETS_TOTAL.ordinal();
    static final long B_PACKETS_TOTAL = 1L << S_PACKETS_TOTAL;
    static final int S_REVERSE_BYTES_TOTAL = Target.REVERSE_BYTES_TOTAL.ordinal();
    static final long B_REVERSE_BYTES_TOTAL = 1L << S_REVERSE_BYTES_TOTAL;
    static final int S_REVERSE_PACKETS_TOTAL = Target.REVERSE_PACKETS_TOTAL.ordinal();
    static final long B_REVERSE_PACKETS_TOTAL = 1L << S_REVERSE_PACKETS_TOTAL;
    static final int S_POST_BYTES = Target.POST_BYTES.ordinal();
    static final long B_POST_BYTES = 1L << S_POST_BYTES;
    static final int S_POST_PACKETS = Target.POST_PACKETS.ordinal();
    static final long B_POST_PACKETS = 1L << S_POST_PACKETS;
    static final int S_INITIATOR_BYTES = Target.INITIATOR_BYTES.ordinal();
    static final long B_INITIATOR_BYTES = 1L << S_INITIATOR_BYTES;
    static final int S_RESPONDER_BYTES = Target.RESPONDER_BYTES.ordinal();
    static final long B_RESPONDER_BYTES = 1L << S_RESPONDER_BYTES;
    static final int S_INITIATOR_PACKETS = Target.INITIATOR_PACKETS.ordinal();
    static final long B_INITIATOR_PACKETS = 1L << S_INITIATOR_PACKETS;
    static final int S_RESPONDER_PACKETS = Target.RESPONDER_PACKETS.ordinal();
    static final long B_RESPONDER_PACKETS = 1L << S_RESPONDER_PACKETS;
    static final int S_SRC_V4 = Target.SRC_V4.ordinal();
    static final long B_SRC_V4 = 1L << S_SRC_V4;
    static final int S_DST_V4 = Target.DST_V4.ordinal();
    static final long B_DST_V4 = 1L << S_DST_V4;
    static final int S_NEXT_HOP_V4 = Target.NEXT_HOP_V4.ordinal();
    static final long B_NEXT_HOP_V4 = 1L << S_NEXT_HOP_V4;
    static final int S_SRC_V6 = Target.SRC_V6.ordinal();
    static final long B_SRC_V6 = 1L << S_SRC_V6;
    static final int S_SRC_V6_LO = Target.SRC_V6_LO.ordinal();
    static final long B_SRC_V6_LO = 1L << S_SRC_V6_LO;
    static final int S_DST_V6 = Target.DST_V6.ordinal();
    static final long B_DST_V6 = 1L << S_DST_V6;
    static final int S_DST_V6_LO = Target.DST_V6_LO.ordinal();
    static final long B_DST_V6_LO = 1L << S_DST_V6_LO;
    static final int S_NEXT_HOP_V6 = Target.NEXT_HOP_V6.ordinal();
    static final long B_NEXT_HOP_V6 = 1L << S_NEXT_HOP_V6;
    static final int S_NEXT_HOP_V6_LO = Target.NEXT_HOP_V6_LO.ordinal();
    static final long B_NEXT_HOP_V6_LO = 1L << S_NEXT_HOP_V6_LO;
    static final int S_SRC_PORT = Target.SRC_PORT.ordinal();
    static final long B_SRC_PORT = 1L << S_SRC_PORT;
    static final int S_DST_PORT = Target.DST_PORT.ordinal();
    static final long B_DST_PORT = 1L << S_DST_PORT;
    static final int S_PROTOCOL = Target.PROTOCOL.ordinal();
    static final long B_PROTOCOL = 1L << S_PROTOCOL;
    static final int S_TCP_FLAGS = Target.TCP_FLAGS.ordinal();
    static final long B_TCP_FLAGS = 1L << S_TCP_FLAGS;
    static final int S_TOS = Target.TOS.ordinal();
    static final long B_TOS = 1L << S_TOS;
    static final int S_SRC_PREFIX = Target.SRC_PREFIX.ordinal();
    static final long B_SRC_PREFIX = 1L << S_SRC_PREFIX;
    static final int S_DST_PREFIX = Target.DST_PREFIX.ordinal();
    static final long B_DST_PREFIX = 1L << S_DST_PREFIX;
    static final int S_IN_IF = Target.IN_IF.ordinal();
    static final long B_IN_IF = 1L << S_IN_IF;
    static final int S_OUT_IF = Target.OUT_IF.ordinal();
    static final long B_OUT_IF = 1L << S_OUT_IF;
    static final int S_VLAN = Target.VLAN.ordinal();
    static final long B_VLAN = 1L << S_VLAN;
    static final int S_POST_VLAN = Target.POST_VLAN.ordinal();
    static final long B_POST_VLAN = 1L << S_POST_VLAN;
    static final int S_DOT1Q_VLAN = Target.DOT1Q_VLAN.ordinal();
    static final long B_DOT1Q_VLAN = 1L << S_DOT1Q_VLAN;
    static final int S_POST_DOT1Q_VLAN = Target.POST_DOT1Q_VLAN.ordinal();
    static final long B_POST_DOT1Q_VLAN = 1L << S_POST_DOT1Q_VLAN;
    static final int S_SRC_MAC = Target.SRC_MAC.ordinal();
    static final long B_SRC_MAC = 1L << S_SRC_MAC;
    static final int S_DST_MAC = Target.DST_MAC.ordinal();
    static final long B_DST_MAC = 1L << S_DST_MAC;
    static final int S_POST_SRC_MAC = Target.POST_SRC_MAC.ordinal();
    static final long B_POST_SRC_MAC = 1L << S_POST_SRC_MAC;
    static final int S_POST_DST_MAC = Target.POST_DST_MAC.ordinal();
    static final long B_POST_DST_MAC = 1L << S_POST_DST_MAC;
    static final int S_SRC_AS = Target.SRC_AS.ordinal();
    static final long B_SRC_AS = 1L << S_SRC_AS;
    static final int S_DST_AS = Target.DST_AS.ordinal();
    static final long B_DST_AS = 1L << S_DST_AS;
    static final int S_DIRECTION = Target.DIRECTION.ordinal();
    static final long B_DIRECTION = 1L << S_DIRECTION;
    static final int S_END_REASON = Target.END_REASON.ordinal();
    static final long B_END_REASON = 1L << S_END_REASON;
    static final int S_IP_VERSION = Target.IP_VERSION.ordinal();
    static final long B_IP_VERSION = 1L << S_IP_VERSION;
    static final int S_ICMP_TYPE_CODE = Target.ICMP_TYPE_CODE.ordinal();
    static final long B_ICMP_TYPE_CODE = 1L << S_ICMP_TYPE_CODE;
    static final int S_SAMPLER_ID = Target.SAMPLER_ID.ordinal();
    static final long B_SAMPLER_ID = 1L << S_SAMPLER_ID;
    static final int S_SAMPLING_INTERVAL = Target.SAMPLING_INTERVAL.ordinal();
    static final long B_SAMPLING_INTERVAL = 1L << S_SAMPLING_INTERVAL;
    static final int S_SAMPLING_PACKET_INTERVAL = Target.SAMPLING_PACKET_INTERVAL.ordinal();
    static final long B_SAMPLING_PACKET_INTERVAL = 1L << S_SAMPLING_PACKET_INTERVAL;
    static final int S_SAMPLING_PACKET_SPACE = Target.SAMPLING_PACKET_SPACE.ordinal();
    static final long B_SAMPLING_PACKET_SPACE = 1L << S_SAMPLING_PACKET_SPACE;
    static final int S_SAMPLER_RANDOM_INTERVAL = Target.SAMPLER_RANDOM_INTERVAL.ordinal();
    static final long B_SAMPLER_RANDOM_INTERVAL = 1L << S_SAMPLER_RANDOM_INTERVAL;
    static final int S_START_UPTIME = Target.START_UPTIME.ordinal();
    static final long B_START_UPTIME = 1L << S_START_UPTIME;
    static final int S_END_UPTIME = Target.END_UPTIME.ordinal();
    static final long B_END_UPTIME = 1L << S_END_UPTIME;
    static final int S_START_ABS = Target.START_ABS.ordinal();
    static final long B_START_ABS = 1L << S_START_ABS;
    static final int S_END_ABS = Target.END_ABS.ordinal();
    static final long B_END_ABS = 1L << S_END_ABS;
    static final int S_START_DELTA_US = Target.START_DELTA_US.ordinal();
    static final long B_START_DELTA_US = 1L << S_START_DELTA_US;
    static final int S_END_DELTA_US = Target.END_DELTA_US.ordinal();
    static final long B_END_DELTA_US = 1L << S_END_DELTA_US;
    static final int S_DURATION_MS = Target.DURATION_MS.ordinal();
    static final long B_DURATION_MS = 1L << S_DURATION_MS;
    static final int S_DURATION_US = Target.DURATION_US.ordinal();
    static final long B_DURATION_US = 1L << S_DURATION_US;
    static final int S_SYSTEM_INIT_TIME = Target.SYSTEM_INIT_TIME.ordinal();
    static final long B_SYSTEM_INIT_TIME = 1L << S_SYSTEM_INIT_TIME;
    static final int S_INTERFACE_NAME = Target.INTERFACE_NAME.ordinal();
    static final long B_INTERFACE_NAME = 1L << S_INTERFACE_NAME;

    static final int S_IN_VRF = Target.IN_VRF.ordinal();
    static final int S_OUT_VRF = Target.OUT_VRF.ordinal();
    // Targets from 64 on have their bit in PRESENT_HI (Java's shift takes the count mod 64).
    static final long B_IN_VRF_HI = 1L << S_IN_VRF;
    static final long B_OUT_VRF_HI = 1L << S_OUT_VRF;

    /**
     * Index of the scratch slot that holds the bitmask of targets present, for targets 0 to 63. The
     * targets from 64 on (rare fields, read only where they are used) have theirs in {@link
     * #PRESENT_HI}, so the common path tests one word as before.
     */
    public static final int PRESENT = Target.values().length;

    /** Index of the scratch slot with the presence bits of targets 64 to 127. */
    public static final int PRESENT_HI = PRESENT + 1;

    /** Size of the scratch array decoders pass in. */
    public static final int SCRATCH_SIZE = PRESENT_HI + 1;

    static {
        if (S_IN_VRF < 64 || S_OUT_VRF < 64 || PRESENT_HI >= 128) {
            throw new AssertionError("VRF targets must be in the high presence word");
        }
    }

    /** True if the scratch {@code v} holds target {@code t}. */
    public static boolean has(long[] v, Target t) {
        return (v[t.presentSlot()] & t.bit()) != 0;
    }

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
        {"interfaceDescription", Target.INTERFACE_DESCRIPTION},
        {"samplerName", Target.SAMPLER_NAME},
        {"ingressVRFID", Target.IN_VRF},
        {"egressVRFID", Target.OUT_VRF},
        {"VRFname", Target.VRF_NAME},
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
                (p & B_BYTES) != 0
                        ? v[S_BYTES]
                        : (p & B_BYTES_TOTAL) != 0
                                ? v[S_BYTES_TOTAL]
                                : (p & B_INITIATOR_BYTES) != 0
                                        ? v[S_INITIATOR_BYTES]
                                        : (p & B_POST_BYTES) != 0 ? v[S_POST_BYTES] : 0L;
        long packets =
                (p & B_PACKETS) != 0
                        ? v[S_PACKETS]
                        : (p & B_PACKETS_TOTAL) != 0
                                ? v[S_PACKETS_TOTAL]
                                : (p & B_INITIATOR_PACKETS) != 0
                                        ? v[S_INITIATOR_PACKETS]
                                        : (p & B_POST_PACKETS) != 0 ? v[S_POST_PACKETS] : 0L;
        long revBytes =
                (p & B_REVERSE_BYTES) != 0
                        ? v[S_REVERSE_BYTES]
                        : (p & B_REVERSE_BYTES_TOTAL) != 0
                                ? v[S_REVERSE_BYTES_TOTAL]
                                : (p & B_RESPONDER_BYTES) != 0 ? v[S_RESPONDER_BYTES] : 0L;
        long revPackets =
                (p & B_REVERSE_PACKETS) != 0
                        ? v[S_REVERSE_PACKETS]
                        : (p & B_REVERSE_PACKETS_TOTAL) != 0
                                ? v[S_REVERSE_PACKETS_TOTAL]
                                : (p & B_RESPONDER_PACKETS) != 0 ? v[S_RESPONDER_PACKETS] : 0L;
        IpAddress src = address(v, p, S_SRC_V6, S_SRC_V4);
        IpAddress dst = address(v, p, S_DST_V6, S_DST_V4);
        IpAddress nextHop = IpAddress.UNSPECIFIED;
        if ((p & B_NEXT_HOP_V6) != 0 || ((p & B_NEXT_HOP_V4) != 0 && v[S_NEXT_HOP_V4] != 0)) {
            nextHop = address(v, p, S_NEXT_HOP_V6, S_NEXT_HOP_V4);
            if (nextHop.isIpv4() && nextHop.ipv4() == 0) {
                nextHop = IpAddress.UNSPECIFIED; // 0.0.0.0: no next hop given
            }
        }
        int ipVersion;
        if ((p & B_IP_VERSION) != 0) {
            ipVersion = (int) v[S_IP_VERSION];
        } else if ((p & B_SRC_V6) != 0 || (p & B_DST_V6) != 0) {
            ipVersion = 6;
        } else if ((p & B_SRC_V4) != 0 || (p & B_DST_V4) != 0) {
            ipVersion = 4;
        } else {
            ipVersion = 0;
        }
        int protocol = (int) get(v, p, S_PROTOCOL, 0);
        int dstPort = (int) get(v, p, S_DST_PORT, 0);
        if (dstPort == 0 && (p & B_ICMP_TYPE_CODE) != 0) {
            dstPort = (int) v[S_ICMP_TYPE_CODE];
        }
        long start = c.startMillis(v, p);
        long end = c.endMillis(v, p);
        if ((p & B_DURATION_MS) != 0 || (p & B_DURATION_US) != 0) {
            long dur = (p & B_DURATION_MS) != 0 ? v[S_DURATION_MS] : v[S_DURATION_US] / 1000L;
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
        int vlan = (int) get(v, p, S_VLAN, get(v, p, S_DOT1Q_VLAN, 0));
        int postVlan = (int) get(v, p, S_POST_VLAN, get(v, p, S_POST_DOT1Q_VLAN, 0));
        long direction = get(v, p, S_DIRECTION, -1);
        long ph = v[PRESENT_HI];
        return new FlowRecord(
                c.header(),
                recordIndex,
                start,
                end,
                ipVersion,
                src,
                dst,
                nextHop,
                (int) get(v, p, S_SRC_PREFIX, 0),
                (int) get(v, p, S_DST_PREFIX, 0),
                (int) get(v, p, S_SRC_PORT, 0),
                dstPort,
                protocol,
                (int) get(v, p, S_TCP_FLAGS, 0),
                (int) get(v, p, S_TOS, 0),
                bytes,
                packets,
                revBytes,
                revPackets,
                get(v, p, S_IN_IF, 0),
                get(v, p, S_OUT_IF, 0),
                vlan,
                postVlan,
                get(v, p, S_SRC_MAC, get(v, p, S_POST_SRC_MAC, 0)),
                get(v, p, S_DST_MAC, get(v, p, S_POST_DST_MAC, 0)),
                get(v, p, S_SRC_AS, 0),
                get(v, p, S_DST_AS, 0),
                direction == 0 || direction == 1 ? (int) direction : -1,
                (int) get(v, p, S_END_REASON, 0),
                c.samplingRate(v, p),
                null,
                0L,
                0L,
                (ph & B_IN_VRF_HI) != 0 ? v[S_IN_VRF] : 0L,
                (ph & B_OUT_VRF_HI) != 0 ? v[S_OUT_VRF] : 0L);
    }

    private static long get(long[] v, long p, int slot, long dflt) {
        return (p & (1L << slot)) != 0 ? v[slot] : dflt;
    }

    private static IpAddress address(long[] v, long p, int v6, int v4) {
        if ((p & (1L << v6)) != 0) {
            return new IpAddress(v[v6], v[v6 + 1]);
        }
        if ((p & (1L << v4)) != 0) {
            return IpAddress.ofIpv4((int) v[v4]);
        }
        return IpAddress.UNSPECIFIED;
    }

    /** Sampling rate from a record, else from options data; 1 when unknown. */
    static long samplingRate(long[] v, long p, RecordContext c) {
        if ((p & SAMPLING_BITS) == 0) {
            return c.defaultRate;
        }
        OptionsEditor options = c.options;
        if ((p & B_SAMPLING_INTERVAL) != 0 && v[S_SAMPLING_INTERVAL] > 0) {
            return v[S_SAMPLING_INTERVAL];
        }
        if ((p & B_SAMPLER_RANDOM_INTERVAL) != 0 && v[S_SAMPLER_RANDOM_INTERVAL] > 0) {
            return v[S_SAMPLER_RANDOM_INTERVAL];
        }
        if ((p & B_SAMPLING_PACKET_INTERVAL) != 0 && v[S_SAMPLING_PACKET_INTERVAL] > 0) {
            long interval = v[S_SAMPLING_PACKET_INTERVAL];
            long space = get(v, p, S_SAMPLING_PACKET_SPACE, 0);
            return (interval + space) / interval;
        }
        long rate =
                options.samplingRate(
                        (p & B_SAMPLER_ID) != 0 ? v[S_SAMPLER_ID] : OptionsData.ANY_SAMPLER);
        return rate > 0 ? rate : 1L;
    }
}
