// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.generate;

import java.util.List;

/**
 * A kind of traffic the generator draws flows from, with the shape of its flows: how many packets a
 * flow typically has and how big they are.
 *
 * @param name label for documentation
 * @param protocol IP protocol number (6 TCP, 17 UDP, 1 ICMP, 58 ICMPv6)
 * @param port server port; for ICMP the type*256+code of the request
 * @param medianPackets median packets per flow (log-normal)
 * @param packetSpread sigma of the log-normal packet count; larger means a heavier tail
 * @param requestSize typical packet size client to server, bytes at IP level
 * @param responseSize typical packet size server to client, bytes at IP level
 */
public record Service(
        String name,
        int protocol,
        int port,
        double medianPackets,
        double packetSpread,
        int requestSize,
        int responseSize) {

    public static final int TCP = 6;
    public static final int UDP = 17;
    public static final int ICMP = 1;
    public static final int ICMPV6 = 58;

    /**
     * Ordered by popularity (Zipf rank 0 first), roughly what an enterprise edge or an ISP
     * aggregation router exports.
     */
    public static final List<Service> DEFAULT_MIX =
            List.of(
                    new Service("https", TCP, 443, 12, 1.6, 120, 1200),
                    new Service("quic", UDP, 443, 20, 1.5, 160, 1250),
                    new Service("dns", UDP, 53, 1, 0.2, 72, 140),
                    new Service("http", TCP, 80, 8, 1.4, 300, 1100),
                    new Service("ntp", UDP, 123, 1, 0.1, 76, 76),
                    new Service("icmp-echo", ICMP, 8 * 256, 3, 0.6, 84, 84),
                    new Service("ssh", TCP, 22, 30, 1.8, 90, 160),
                    new Service("imaps", TCP, 993, 10, 1.2, 110, 700),
                    new Service("smtp", TCP, 25, 14, 1.0, 600, 90),
                    new Service("sip", UDP, 5060, 2, 0.5, 700, 500),
                    new Service("rdp", TCP, 3389, 60, 1.5, 200, 900),
                    new Service("http-alt", TCP, 8080, 8, 1.3, 300, 1000),
                    new Service("openvpn", UDP, 1194, 40, 1.7, 600, 900),
                    new Service("syslog", UDP, 514, 3, 0.8, 180, 180),
                    new Service("snmp", UDP, 161, 1, 0.2, 90, 300),
                    new Service("bgp", TCP, 179, 4, 0.8, 80, 80),
                    new Service("mysql", TCP, 3306, 20, 1.2, 150, 900),
                    new Service("dot", TCP, 853, 6, 0.6, 120, 200),
                    new Service("icmp-unreach", ICMP, 3 * 256 + 3, 1, 0.1, 112, 112),
                    new Service("ldap", TCP, 389, 6, 0.8, 130, 400));

    public boolean isIcmp() {
        return protocol == ICMP || protocol == ICMPV6;
    }
}
