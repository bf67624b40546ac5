// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.packet;

/** The outcome of parsing one captured frame; everything but {@link #OK} yields no summary. */
public enum ParseResult {
    /** A summary was produced. */
    OK,
    /** The capture's link type is not one the parser knows. */
    UNSUPPORTED_LINK_TYPE,
    /** The frame ends inside the link-layer header. */
    TRUNCATED_LINK_HEADER,
    /** The frame ends inside an 802.1Q/802.1ad tag. */
    TRUNCATED_VLAN_TAG,
    /** The frame carries something other than IPv4/IPv6 (ARP, LLDP, MPLS, ...). */
    NOT_IP,
    /** The IP version nibble does not match the link layer's protocol type. */
    BAD_IP_VERSION,
    /** The frame ends inside the IPv4 or IPv6 header. */
    TRUNCATED_IP_HEADER,
    /** The IPv4 header length is below 20 bytes or the total length below the header length. */
    BAD_IP_HEADER_LENGTH,
    /** The IPv6 extension header chain is cut short or longer than the parser follows. */
    BAD_IPV6_EXTENSION_HEADER,
    /** The frame ends inside the TCP/UDP/ICMP header, before the ports or flags. */
    TRUNCATED_TRANSPORT_HEADER
}
