// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.flow.IpAddress;

/**
 * The flow key of a packet: capture interface, VLANs, protocol and both endpoints. For uniflows
 * endpoint A is the source; for biflows the endpoints are ordered (A is the smaller address, then
 * port), so both directions share one key. ICMP/ICMPv6 biflows key with ports 0, since echo request
 * and reply carry different types. Flat longs (no address objects) keep the key small in state.
 *
 * @param aHi endpoint A address, high 64 bits (IPv4 mapped into IPv6)
 * @param aLo endpoint A address, low 64 bits
 * @param bHi endpoint B address, high 64 bits
 * @param bLo endpoint B address, low 64 bits
 * @param ports endpoint A port in bits 16..31, endpoint B port in bits 0..15
 * @param protocol IP protocol
 * @param vlans outer VLAN in bits 12..23, inner VLAN in bits 0..11
 * @param interfaceIndex capture interface index
 */
public record PacketFlowKey(
        long aHi,
        long aLo,
        long bHi,
        long bLo,
        int ports,
        int protocol,
        int vlans,
        int interfaceIndex) {

    public int aPort() {
        return ports >>> 16;
    }

    public int bPort() {
        return ports & 0xffff;
    }

    public IpAddress a() {
        return new IpAddress(aHi, aLo);
    }

    public IpAddress b() {
        return new IpAddress(bHi, bLo);
    }

    public int outerVlan() {
        return vlans >>> 12;
    }

    public int innerVlan() {
        return vlans & 0xfff;
    }

    /** True when the ports are not part of the key in biflow mode (ICMP, ICMPv6). */
    static boolean portless(int protocol) {
        return protocol == 1 || protocol == 58;
    }
}
