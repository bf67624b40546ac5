// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

/**
 * The nProbe field ids (PEN 0, the NetFlow v9 / IPFIX numbers that ntopng's {@code ntop_flow.h}
 * uses) that {@link TlvFlowEncoder} writes, with the metadata of the {@code template} message. This
 * is the whole table: the encoder and the template message both read it, so they cannot disagree.
 */
public enum NprobeField {
    IN_BYTES(1, 8, "formatted_uint", "Incoming flow bytes (src->dst)"),
    IN_PKTS(2, 8, "formatted_uint", "Incoming flow packets (src->dst)"),
    PROTOCOL(4, 1, "uint", "IP protocol byte"),
    SRC_TOS(5, 1, "uint", "TOS/DSCP (src->dst)"),
    TCP_FLAGS(6, 2, "uint", "Cumulative of all flow TCP flags"),
    L4_SRC_PORT(7, 2, "uint", "IPv4 source port"),
    IPV4_SRC_ADDR(8, 4, "ipv4", "IPv4 source address"),
    IPV4_SRC_MASK(9, 1, "uint", "IPv4 source subnet mask (/<bits>)"),
    INPUT_SNMP(10, 4, "uint", "Input interface SNMP idx"),
    L4_DST_PORT(11, 2, "uint", "IPv4 destination port"),
    IPV4_DST_ADDR(12, 4, "ipv4", "IPv4 destination address"),
    IPV4_DST_MASK(13, 1, "uint", "IPv4 dest subnet mask (/<bits>)"),
    OUTPUT_SNMP(14, 4, "uint", "Output interface SNMP idx"),
    IPV4_NEXT_HOP(15, 4, "ipv4", "IPv4 Next Hop"),
    SRC_AS(16, 4, "uint", "Source BGP AS"),
    DST_AS(17, 4, "uint", "Destination BGP AS"),
    LAST_SWITCHED(21, 4, "uint", "Epoch (sec) of the last flow packet"),
    FIRST_SWITCHED(22, 4, "uint", "Epoch (sec) of the first flow packet"),
    OUT_BYTES(23, 8, "formatted_uint", "Outgoing flow bytes (dst->src)"),
    OUT_PKTS(24, 8, "formatted_uint", "Outgoing flow packets (dst->src)"),
    IPV6_SRC_ADDR(27, 16, "ipv6", "IPv6 source address"),
    IPV6_DST_ADDR(28, 16, "ipv6", "IPv6 destination address"),
    IPV6_SRC_MASK(29, 1, "uint", "IPv6 source mask"),
    IPV6_DST_MASK(30, 1, "uint", "IPv6 destination mask"),
    SAMPLING_INTERVAL(34, 4, "uint", "Sampling rate"),
    IN_SRC_MAC(56, 6, "mac", "Source MAC Address"),
    OUT_DST_MAC(57, 6, "mac", "Destination MAC Address"),
    SRC_VLAN(58, 2, "uint", "Source VLAN (inner VLAN in QinQ)"),
    IP_PROTOCOL_VERSION(60, 1, "uint", "[4=IPv4][6=IPv6]"),
    DIRECTION(61, 1, "uint", "Flow direction [0=RX, 1=TX]"),
    IPV6_NEXT_HOP(62, 16, "ipv6", "IPv6 next hop address"),
    EXPORTER_IPV4_ADDRESS(130, 4, "ipv4", "Flow exporter IPv4 Address"),
    EXPORTER_IPV6_ADDRESS(131, 16, "ipv6", "Flow exporter IPv6 Address"),
    FLOW_END_REASON(136, 0, "string", "The reason for Flow termination"),
    FLOW_START_MILLISECONDS(152, 8, "uint", "Msec (epoch) of the first flow packet"),
    FLOW_END_MILLISECONDS(153, 8, "uint", "Msec (epoch) of the last flow packet");

    private final int id;
    private final int length;
    private final String format;
    private final String description;

    NprobeField(int id, int length, String format, String description) {
        this.id = id;
        this.length = length;
        this.format = format;
        this.description = description;
    }

    /** Field id, PEN 0. */
    public int id() {
        return id;
    }

    /** Nominal length announced in the template message; 0 for variable-length strings. */
    public int length() {
        return length;
    }

    /** nProbe's template {@code format} word. */
    public String format() {
        return format;
    }

    public String description() {
        return description;
    }
}
