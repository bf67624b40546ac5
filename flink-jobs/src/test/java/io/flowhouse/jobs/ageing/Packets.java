// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.packet.PacketParser;
import io.flowhouse.codec.packet.PacketSummary;
import io.flowhouse.codec.packet.ParseResult;
import io.flowhouse.codec.pcap.PcapReader;
import io.flowhouse.testkit.TestDataDir;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Packet summaries for tests: hand-made ones and the shared synthetic trace. */
public final class Packets {

    /** The synthetic trace's ground truth (testdata README): packets and IP bytes. */
    public static final long TRACE_PACKETS = 42_173L;

    public static final long TRACE_BYTES = 31_011_641L;

    public static final String TRACE = "packets-synthetic.pcap";

    private Packets() {}

    /** Every packet of the synthetic trace, parsed as the capture agent does (interface 1). */
    public static List<PacketSummary> trace() throws IOException {
        List<PacketSummary> out = new ArrayList<>(50_000);
        PacketSummary.Builder b = PacketSummary.builder();
        try (PcapReader r = PcapReader.open(TestDataDir.file(TRACE))) {
            while (r.next()) {
                ParseResult res =
                        PacketParser.parse(
                                r.packet(),
                                r.packetLinkType(),
                                r.timestampNanos(),
                                r.originalLength(),
                                1,
                                b);
                if (res == ParseResult.OK) {
                    out.add(b.build());
                }
            }
        }
        return out;
    }

    /** A TCP/UDP packet at {@code millis} (epoch ms), IP length {@code len}. */
    public static PacketSummary packet(
            long millis,
            String src,
            int srcPort,
            String dst,
            int dstPort,
            int protocol,
            int tcpFlags,
            int len) {
        return new PacketSummary(
                millis * 1_000_000L,
                1,
                0,
                0,
                0x0200_0000_0001L,
                0x0200_0000_0002L,
                src.contains(":") ? 6 : 4,
                IpAddress.parse(src),
                IpAddress.parse(dst),
                srcPort,
                dstPort,
                protocol,
                0,
                64,
                tcpFlags,
                len,
                len + 14,
                false);
    }

    public static PacketSummary udp(long millis, String src, int sp, String dst, int dp, int len) {
        return packet(millis, src, sp, dst, dp, 17, 0, len);
    }

    public static PacketSummary tcp(
            long millis, String src, int sp, String dst, int dp, int flags, int len) {
        return packet(millis, src, sp, dst, dp, 6, flags, len);
    }
}
