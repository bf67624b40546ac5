// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.packet;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class PacketParserTest {

    private static final String ETH = "020000000002" + "020000000001";

    private static final String IPV4_TCP =
            "4510002c1234400040063f9f"
                    + "c0000201"
                    + "c6336407" // 192.0.2.1 -> 198.51.100.7
                    + "d431"
                    + "01bb"
                    + "00000001"
                    + "00000000"
                    + "6012"
                    + "ffff"
                    + "00000000"
                    + "0204"
                    + "05b4";

    private final PacketSummary.Builder out = PacketSummary.builder();

    private static ByteBuffer hex(String s) {
        return ByteBuffer.wrap(HexFormat.of().parseHex(s));
    }

    @Test
    void parsesEthernetIpv4Tcp() {
        ParseResult r =
                PacketParser.parse(
                        hex(ETH + "0800" + IPV4_TCP),
                        PacketParser.LINKTYPE_ETHERNET,
                        5L,
                        58,
                        3,
                        out);
        assertThat(r).isEqualTo(ParseResult.OK);
        PacketSummary s = out.build();
        assertThat(s.timestampNanos()).isEqualTo(5L);
        assertThat(s.interfaceIndex()).isEqualTo(3);
        assertThat(s.dstMac()).isEqualTo(0x020000000002L);
        assertThat(s.srcMac()).isEqualTo(0x020000000001L);
        assertThat(s.ipVersion()).isEqualTo(4);
        assertThat(s.srcAddr()).isEqualTo(IpAddress.parse("192.0.2.1"));
        assertThat(s.dstAddr()).isEqualTo(IpAddress.parse("198.51.100.7"));
        assertThat(s.srcPort()).isEqualTo(54321);
        assertThat(s.dstPort()).isEqualTo(443);
        assertThat(s.protocol()).isEqualTo(6);
        assertThat(s.tcpFlags()).isEqualTo(0x12);
        assertThat(s.tos()).isEqualTo(0x10);
        assertThat(s.ttl()).isEqualTo(0x40);
        assertThat(s.ipLength()).isEqualTo(44);
        assertThat(s.wireLength()).isEqualTo(58);
        assertThat(s.outerVlan()).isZero();
        assertThat(s.fragment()).isFalse();
    }

    @Test
    void parsesQinQTags() {
        String frame = ETH + "88a8" + "0064" + "8100" + "20c8" + "0800" + IPV4_TCP;
        assertThat(PacketParser.parse(hex(frame), 1, 0, 0, 0, out)).isEqualTo(ParseResult.OK);
        assertThat(out.build().outerVlan()).isEqualTo(100);
        assertThat(out.build().innerVlan()).isEqualTo(200);
        assertThat(out.build().dstPort()).isEqualTo(443);
    }

    @Test
    void followsIpv6ExtensionHeadersToUdp() {
        String ipv6 =
                "6b80000000200001" // tc 0xb8, payload 32, next hop-by-hop, hop limit 1
                        + "20010db8000000000000000000000001"
                        + "20010db8000000000000000000000002"
                        + "3c00010400000000" // hop-by-hop -> dest opts
                        + "1100000000000000" // dest opts -> UDP
                        + "0035c00000100000" // UDP 53 -> 49152
                        + "0000000000000000";
        assertThat(PacketParser.parse(hex(ETH + "86dd" + ipv6), 1, 0, 0, 0, out))
                .isEqualTo(ParseResult.OK);
        PacketSummary s = out.build();
        assertThat(s.ipVersion()).isEqualTo(6);
        assertThat(s.srcAddr()).isEqualTo(IpAddress.parse("2001:db8::1"));
        assertThat(s.protocol()).isEqualTo(17);
        assertThat(s.srcPort()).isEqualTo(53);
        assertThat(s.dstPort()).isEqualTo(49152);
        assertThat(s.tos()).isEqualTo(0xb8);
        assertThat(s.ttl()).isEqualTo(1);
        assertThat(s.ipLength()).isEqualTo(72);
    }

    @Test
    void icmpTypeAndCodeGoToTheDestinationPort() {
        String icmp = "450000540000400040010000" + "c0000201" + "c0000202" + "0300abcd";
        assertThat(PacketParser.parse(hex(icmp), PacketParser.LINKTYPE_RAW, 0, 0, 0, out))
                .isEqualTo(ParseResult.OK);
        assertThat(out.build().dstPort()).isEqualTo(0x0300);
        assertThat(out.build().protocol()).isEqualTo(1);
    }

    @Test
    void greAndEspAreRecordedByProtocol() {
        String gre = "4500003000004000402f0000" + "c0000201" + "c0000202" + "00000800";
        String esp = "45000030000040004032" + "0000" + "c0000201" + "c0000202" + "00001000";
        assertThat(PacketParser.parse(hex(gre), PacketParser.LINKTYPE_IPV4, 0, 0, 0, out))
                .isEqualTo(ParseResult.OK);
        assertThat(out.build().protocol()).isEqualTo(47);
        assertThat(PacketParser.parse(hex(esp), PacketParser.LINKTYPE_IPV4, 0, 0, 0, out))
                .isEqualTo(ParseResult.OK);
        assertThat(out.build().protocol()).isEqualTo(50);
        assertThat(out.build().srcPort()).isZero();
    }

    @Test
    void nonFirstFragmentHasNoPorts() {
        String frag = "4500003000002001" + "4011" + "0000" + "c0000201" + "c0000202";
        assertThat(PacketParser.parse(hex(frag), PacketParser.LINKTYPE_IPV4, 0, 0, 0, out))
                .isEqualTo(ParseResult.OK);
        assertThat(out.build().fragment()).isTrue();
        assertThat(out.build().dstPort()).isZero();
    }

    @Test
    void classifiesMalformedFrames() {
        assertThat(PacketParser.parse(hex("0200"), 1, 0, 0, 0, out))
                .isEqualTo(ParseResult.TRUNCATED_LINK_HEADER);
        assertThat(PacketParser.parse(hex(ETH + "8100" + "00"), 1, 0, 0, 0, out))
                .isEqualTo(ParseResult.TRUNCATED_VLAN_TAG);
        assertThat(PacketParser.parse(hex(ETH + "0806" + "0001"), 1, 0, 0, 0, out))
                .isEqualTo(ParseResult.NOT_IP);
        assertThat(PacketParser.parse(hex(ETH + "0800" + "4500"), 1, 0, 0, 0, out))
                .isEqualTo(ParseResult.TRUNCATED_IP_HEADER);
        assertThat(
                        PacketParser.parse(
                                hex(ETH + "0800" + "6" + IPV4_TCP.substring(1)), 1, 0, 0, 0, out))
                .isEqualTo(ParseResult.BAD_IP_VERSION);
        assertThat(
                        PacketParser.parse(
                                hex(ETH + "0800" + "44" + IPV4_TCP.substring(2)), 1, 0, 0, 0, out))
                .isEqualTo(ParseResult.BAD_IP_HEADER_LENGTH);
        assertThat(
                        PacketParser.parse(
                                hex(ETH + "0800" + IPV4_TCP.substring(0, 50)), 1, 0, 0, 0, out))
                .isEqualTo(ParseResult.TRUNCATED_TRANSPORT_HEADER);
        assertThat(PacketParser.parse(hex(ETH), 147, 0, 0, 0, out))
                .isEqualTo(ParseResult.UNSUPPORTED_LINK_TYPE);
    }

    @Test
    void neverThrowsOnAnyTruncationOrCorruption() {
        byte[] frame = HexFormat.of().parseHex(ETH + "8100" + "0064" + "0800" + IPV4_TCP);
        java.util.Random random = new java.util.Random(7);
        for (int i = 0; i < 20_000; i++) {
            byte[] b = Arrays.copyOf(frame, random.nextInt(frame.length + 1));
            for (int k = 0; k < 3 && b.length > 0; k++) {
                b[random.nextInt(b.length)] = (byte) random.nextInt();
            }
            int linkType = new int[] {0, 1, 101, 113, 228, 229, 276}[random.nextInt(7)];
            assertThat(PacketParser.parse(ByteBuffer.wrap(b), linkType, 0, 0, 0, out)).isNotNull();
        }
    }

    @Test
    void flowHashIsTheSameInBothDirections() {
        PacketParser.parse(hex(ETH + "0800" + IPV4_TCP), 1, 0, 0, 0, out);
        PacketSummary forward = out.build();
        PacketSummary reverse =
                new PacketSummary(
                        1,
                        0,
                        0,
                        0,
                        0,
                        0,
                        4,
                        forward.dstAddr(),
                        forward.srcAddr(),
                        forward.dstPort(),
                        forward.srcPort(),
                        6,
                        0,
                        0,
                        0,
                        0,
                        0,
                        false);
        assertThat(reverse.flowHash()).isEqualTo(forward.flowHash());
        assertThat(out.flowHash()).isEqualTo(forward.flowHash());
        PacketSummary otherPort =
                new PacketSummary(
                        1,
                        0,
                        0,
                        0,
                        0,
                        0,
                        4,
                        forward.dstAddr(),
                        forward.srcAddr(),
                        forward.dstPort(),
                        forward.srcPort() + 1,
                        6,
                        0,
                        0,
                        0,
                        0,
                        0,
                        false);
        assertThat(otherPort.flowHash()).isNotEqualTo(forward.flowHash());
    }
}
