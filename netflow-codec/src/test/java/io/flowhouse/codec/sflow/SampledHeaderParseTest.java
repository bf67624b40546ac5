// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.CaptureDatagrams;
import io.flowhouse.codec.packet.PacketParser;
import io.flowhouse.codec.packet.PacketSummary;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link SampledHeader} parses the sampled frame itself, from the decoder's array; {@link
 * PacketParser} is the codec's parser for frames. This holds the two to the same fields, on every
 * sampled header of both sFlow captures, on hand-made frames that reach the branches the captures
 * do not (QinQ, IPv4 options and fragments, IPv6 extension headers, ICMP, SCTP), and on mutated and
 * truncated copies of all of them.
 */
class SampledHeaderParseTest {

    private static final HexFormat HEX = HexFormat.of();

    private static final String ETH = "020000000002020000000001";

    private static final String IPV4_TCP =
            "4510002c1234400040063f9fc0000201c6336407d43101bb00000001000000006012ffff000000000204";

    private static final String IPV6_HEAD =
            "6a1000000020" // version, class, flow label, payload length
                    + "%s" // next header
                    + "40"
                    + "20010db8000000000000000000000001"
                    + "20010db8000000000000000000000002";

    /** Hand-made frames: header protocol (1 Ethernet, 11 IPv4, 12 IPv6) and bytes. */
    private static final Object[][] MADE = {
        {1, ETH + "0800" + IPV4_TCP},
        {1, ETH + "8100" + "2064" + "0800" + IPV4_TCP},
        {1, ETH + "88a8" + "0064" + "8100" + "00c8" + "9100" + "012c" + "0800" + IPV4_TCP},
        // IPv4 with options (IHL 6), UDP
        {11, "460000300000000040110000c0000201c633640701020304d43100350010ffff"},
        // IPv4 later fragment: no ports
        {11, "4500003000002001400600000a0000010a000002d43101bb0000000100000000"},
        // IPv4 ICMP echo
        {11, "4500001c000000004001f7ce0a0000010a0000020800f7ff00000000"},
        // IPv4 SCTP, UDP-Lite
        {11, "4500003000000000408400000a0000010a00000213882710000000000000000000000000"},
        {11, "4500003000000000408800000a0000010a00000213882710000000000000000000000000"},
        // IPv4 GRE: protocol only
        {11, "4500003000000000402f00000a0000010a000002000008000000000000000000"},
        // IPv6 TCP, UDP, ICMPv6
        {12, IPV6_HEAD.formatted("06") + "d43101bb00000001000000005002ffff00000000"},
        {12, IPV6_HEAD.formatted("11") + "d431003500100000"},
        {12, IPV6_HEAD.formatted("3a") + "80000000"},
        // hop-by-hop, routing, destination options, then UDP
        {
            12,
            IPV6_HEAD.formatted("00")
                    + "2b00000000000000"
                    + "3c01000000000000"
                    + "0000000000000000"
                    + "1100000000000000"
                    + "d431003500100000"
        },
        // AH then TCP; fragment (first, then a later one)
        {12, IPV6_HEAD.formatted("33") + "0601000000000000" + "d43101bb00000001000000005002"},
        {12, IPV6_HEAD.formatted("2c") + "1100000100000000" + "d431003500100000"},
        {12, IPV6_HEAD.formatted("2c") + "1100000800000000" + "d431003500100000"},
        // nine extension headers: more than the parser follows
        {12, IPV6_HEAD.formatted("00") + "0000000000000000".repeat(9) + "d4310035"},
        {1, ETH + "86dd" + IPV6_HEAD.formatted("11") + "d431003500100000"},
        {1, ETH + "0806" + "0001080006040001"},
    };

    /** Byte values that steer the parse: ethertypes, versions, IHLs, next headers, protocols. */
    private static final int[] STEERING = {
        0x00, 0x01, 0x06, 0x08, 0x11, 0x20, 0x2b, 0x2c, 0x33, 0x3a, 0x3c, 0x40, 0x45, 0x46, 0x4f,
        0x60, 0x81, 0x84, 0x86, 0x87, 0x88, 0x91, 0xa8, 0xdd, 0xff
    };

    @Test
    void sameFieldsAsPacketParserOnRealMadeAndMutatedHeaders() throws IOException {
        List<int[]> protocols = new ArrayList<>();
        List<byte[]> frames = new ArrayList<>();
        for (String capture :
                new String[] {"sflow-ovs-rate10.pcap", "sflow-pmacct-rate1.pcap.gz"}) {
            for (CaptureDatagrams.Datagram d : CaptureDatagrams.datagrams(capture)) {
                sampledHeaders(d.payload(), protocols, frames);
            }
        }
        int real = frames.size();
        assertThat(real).isEqualTo(4215 + 42173);
        for (Object[] m : MADE) {
            protocols.add(new int[] {(Integer) m[0]});
            frames.add(HEX.parseHex((String) m[1]));
        }
        for (int i = 0; i < frames.size(); i++) {
            check(protocols.get(i)[0], frames.get(i));
        }
        Random rnd = new Random(20);
        for (int i = 0; i < 400_000; i++) {
            // Half real headers, half made ones, so that the rare branches get mutated often.
            int k = rnd.nextBoolean() ? rnd.nextInt(real) : real + rnd.nextInt(MADE.length);
            byte[] f = frames.get(k).clone();
            for (int n = 1 + rnd.nextInt(4); n > 0 && f.length > 0; n--) {
                int at = rnd.nextInt(Math.min(f.length, rnd.nextBoolean() ? 80 : f.length));
                f[at] =
                        (byte)
                                (rnd.nextBoolean()
                                        ? STEERING[rnd.nextInt(STEERING.length)]
                                        : rnd.nextInt());
            }
            if (rnd.nextInt(3) == 0) {
                f = Arrays.copyOf(f, rnd.nextInt(f.length + 1));
            }
            int protocol = protocols.get(k)[0];
            if (rnd.nextInt(8) == 0) {
                protocol = new int[] {1, 11, 12}[rnd.nextInt(3)];
            }
            check(protocol, f);
        }
    }

    private static void check(int protocol, byte[] frame) {
        PacketSummary.Builder p = PacketSummary.builder();
        int linkType =
                protocol == 1
                        ? PacketParser.LINKTYPE_ETHERNET
                        : protocol == 11 ? PacketParser.LINKTYPE_IPV4 : PacketParser.LINKTYPE_IPV6;
        PacketParser.parse(ByteBuffer.wrap(frame), linkType, 0L, 0, 0, p);
        byte[] body =
                SflowBytes.of()
                        .u32(protocol)
                        .u32(1500)
                        .u32(4)
                        .u32(frame.length)
                        .bytes(frame)
                        .toBytes();
        // The record inside a larger array, with bytes after it that a read past its end would
        // pick up.
        byte[] b = new byte[8 + body.length + 128];
        Arrays.fill(b, (byte) 0x5a);
        System.arraycopy(body, 0, b, 8, body.length);
        FlowSampleState s = new FlowSampleState();
        s.reset();
        // What an earlier sampled_ipv4 record or sampled header may have left: the parse clears it.
        s.srcMac = s.dstMac = s.srcHi = s.srcLo = s.dstHi = s.dstLo = -1L;
        s.headerVlan = s.ipVersion = s.srcPort = s.dstPort = s.protocol = s.tcpFlags = s.tos = -1;
        ProblemTally t = new ProblemTally();
        t.reset();
        SampledHeader.read(b, 8, body.length, s, t);
        long[] ours = {
            s.srcMac,
            s.dstMac,
            s.headerVlan,
            s.ipVersion,
            s.srcHi,
            s.srcLo,
            s.dstHi,
            s.dstLo,
            s.srcPort,
            s.dstPort,
            s.protocol,
            s.tcpFlags,
            s.tos
        };
        long[] parser = {
            p.srcMac(),
            p.dstMac(),
            p.outerVlan(),
            p.ipVersion(),
            p.srcHi(),
            p.srcLo(),
            p.dstHi(),
            p.dstLo(),
            p.srcPort(),
            p.dstPort(),
            p.protocol(),
            p.tcpFlags(),
            p.tos()
        };
        if (frame.length == 0) {
            // An empty header is not parsed: what earlier records gave stays.
            Arrays.fill(parser, -1L);
        }
        assertThat(ours)
                .as("header protocol %d, frame %s", protocol, HEX.formatHex(frame))
                .containsExactly(parser);
        assertThat(s.frameLength).isEqualTo(1500);
        assertThat(s.stripped).isEqualTo(4);
    }

    /** Appends the sampled headers of a datagram's flow samples (the captures are well formed). */
    private static void sampledHeaders(byte[] d, List<int[]> protocols, List<byte[]> frames) {
        ByteBuffer b = ByteBuffer.wrap(d);
        int p = 8 + (b.getInt(4) == 1 ? 4 : 16) + 12;
        int samples = b.getInt(p);
        p += 4;
        for (int i = 0; i < samples; i++) {
            int format = b.getInt(p);
            int length = b.getInt(p + 4);
            int body = p + 8;
            if (format == FlowSample.FORMAT || format == FlowSample.EXPANDED_FORMAT) {
                int q =
                        body
                                + (format == FlowSample.FORMAT
                                        ? FlowSample.SIZE
                                        : FlowSample.EXPANDED_SIZE);
                int records = b.getInt(q - 4);
                for (int r = 0; r < records; r++) {
                    int rf = b.getInt(q);
                    int rl = b.getInt(q + 4);
                    if (rf == SampledHeader.FORMAT) {
                        protocols.add(new int[] {b.getInt(q + 8)});
                        int n = b.getInt(q + 20);
                        frames.add(Arrays.copyOfRange(d, q + 24, q + 24 + n));
                    }
                    q += 8 + ((rl + 3) & ~3);
                }
            }
            p = body + ((length + 3) & ~3);
        }
    }
}
