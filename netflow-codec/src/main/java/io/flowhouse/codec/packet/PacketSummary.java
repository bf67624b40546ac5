// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.packet;

import io.flowhouse.codec.flow.IpAddress;

/**
 * What the flow engine needs of one captured packet: the element of a {@code packets.raw} batch
 * ({@link PacketBatchCodec}). Built by {@link PacketParser} into a reusable {@link Builder}.
 *
 * @param timestampNanos capture time, UNIX epoch nanoseconds
 * @param interfaceIndex index of the capture interface (agent config), 0 if unknown
 * @param outerVlan outer 802.1Q/802.1ad VLAN id (12 bits), 0 if untagged
 * @param innerVlan inner VLAN id of a QinQ frame, 0 if none
 * @param srcMac source MAC, 48 bits in the low bits; 0 when the link layer has none
 * @param dstMac destination MAC, 48 bits in the low bits; 0 when the link layer has none
 * @param ipVersion 4 or 6
 * @param srcAddr source address (IPv4 mapped into IPv6)
 * @param dstAddr destination address
 * @param srcPort TCP/UDP source port; 0 for other protocols
 * @param dstPort TCP/UDP destination port; ICMP/ICMPv6 type*256+code, as NetFlow exporters send it;
 *     0 for other protocols
 * @param protocol IP protocol of the transport header (after IPv6 extension headers; 50 for ESP, 47
 *     for GRE, whose payload is not followed)
 * @param tos IPv4 type of service / IPv6 traffic class byte (DSCP<<2 | ECN)
 * @param ttl IPv4 TTL / IPv6 hop limit
 * @param tcpFlags TCP flags (9 bits, NS..FIN); 0 for other protocols
 * @param ipLength IP length from the header (IPv4 total length; IPv6 payload length + 40)
 * @param wireLength frame length on the wire (pcap original length), before any snaplen cut
 * @param fragment true for a non-first IP fragment, whose transport header is not in the packet
 *     (ports are 0)
 */
public record PacketSummary(
        long timestampNanos,
        int interfaceIndex,
        int outerVlan,
        int innerVlan,
        long srcMac,
        long dstMac,
        int ipVersion,
        IpAddress srcAddr,
        IpAddress dstAddr,
        int srcPort,
        int dstPort,
        int protocol,
        int tos,
        int ttl,
        int tcpFlags,
        int ipLength,
        int wireLength,
        boolean fragment) {

    /**
     * The partition hash of this packet's flow: equal for both directions (see {@link FlowHash}).
     */
    public int flowHash() {
        return FlowHash.of(this);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A mutable, reusable summary: the parser fills it and the batch encoder reads it, so the hot
     * path allocates nothing per packet. Not thread safe.
     */
    public static final class Builder {
        long timestampNanos;
        int interfaceIndex;
        int outerVlan;
        int innerVlan;
        long srcMac;
        long dstMac;
        int ipVersion;
        long srcHi;
        long srcLo;
        long dstHi;
        long dstLo;
        int srcPort;
        int dstPort;
        int protocol;
        int tos;
        int ttl;
        int tcpFlags;
        int ipLength;
        int wireLength;
        boolean fragment;

        /** Clears every field to its "absent" value. */
        public Builder clear() {
            timestampNanos = 0;
            interfaceIndex = 0;
            outerVlan = 0;
            innerVlan = 0;
            srcMac = 0;
            dstMac = 0;
            ipVersion = 0;
            srcHi = 0;
            srcLo = 0;
            dstHi = 0;
            dstLo = 0;
            srcPort = 0;
            dstPort = 0;
            protocol = 0;
            tos = 0;
            ttl = 0;
            tcpFlags = 0;
            ipLength = 0;
            wireLength = 0;
            fragment = false;
            return this;
        }

        /** Copies a summary into this builder. */
        public Builder from(PacketSummary s) {
            timestampNanos = s.timestampNanos();
            interfaceIndex = s.interfaceIndex();
            outerVlan = s.outerVlan();
            innerVlan = s.innerVlan();
            srcMac = s.srcMac();
            dstMac = s.dstMac();
            ipVersion = s.ipVersion();
            srcHi = s.srcAddr().hi();
            srcLo = s.srcAddr().lo();
            dstHi = s.dstAddr().hi();
            dstLo = s.dstAddr().lo();
            srcPort = s.srcPort();
            dstPort = s.dstPort();
            protocol = s.protocol();
            tos = s.tos();
            ttl = s.ttl();
            tcpFlags = s.tcpFlags();
            ipLength = s.ipLength();
            wireLength = s.wireLength();
            fragment = s.fragment();
            return this;
        }

        public long timestampNanos() {
            return timestampNanos;
        }

        public Builder timestampNanos(long v) {
            timestampNanos = v;
            return this;
        }

        public Builder interfaceIndex(int v) {
            interfaceIndex = v;
            return this;
        }

        public Builder wireLength(int v) {
            wireLength = v;
            return this;
        }

        // Read access for decoders that map a parsed header straight into their own records
        // (sFlow's sampled headers), without building a summary first.

        public int outerVlan() {
            return outerVlan;
        }

        public int innerVlan() {
            return innerVlan;
        }

        public long srcMac() {
            return srcMac;
        }

        public long dstMac() {
            return dstMac;
        }

        /** 4 or 6; 0 while no IP header was parsed. */
        public int ipVersion() {
            return ipVersion;
        }

        /** Upper 64 bits of the source address (IPv4 mapped into IPv6). */
        public long srcHi() {
            return srcHi;
        }

        public long srcLo() {
            return srcLo;
        }

        public long dstHi() {
            return dstHi;
        }

        public long dstLo() {
            return dstLo;
        }

        public int srcPort() {
            return srcPort;
        }

        public int dstPort() {
            return dstPort;
        }

        public int protocol() {
            return protocol;
        }

        public int tos() {
            return tos;
        }

        public int tcpFlags() {
            return tcpFlags;
        }

        /** The symmetric flow hash of the summary held (see {@link FlowHash}). */
        public int flowHash() {
            return FlowHash.of(
                    srcHi,
                    srcLo,
                    srcPort,
                    dstHi,
                    dstLo,
                    dstPort,
                    protocol,
                    FlowHash.vlanKey(outerVlan, innerVlan));
        }

        public PacketSummary build() {
            return new PacketSummary(
                    timestampNanos,
                    interfaceIndex,
                    outerVlan,
                    innerVlan,
                    srcMac,
                    dstMac,
                    ipVersion,
                    new IpAddress(srcHi, srcLo),
                    new IpAddress(dstHi, dstLo),
                    srcPort,
                    dstPort,
                    protocol,
                    tos,
                    ttl,
                    tcpFlags,
                    ipLength,
                    wireLength,
                    fragment);
        }
    }
}
