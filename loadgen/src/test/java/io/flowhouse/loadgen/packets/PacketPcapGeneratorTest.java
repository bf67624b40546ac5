// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.packets;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.packet.PacketParser;
import io.flowhouse.codec.packet.PacketSummary;
import io.flowhouse.codec.packet.ParseResult;
import io.flowhouse.codec.pcap.PcapReader;
import io.flowhouse.codec.pcap.PcapWriter;
import io.flowhouse.loadgen.profile.TrafficProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The synthetic packet trace, read back with the codec's pcap reader and packet parser and grouped
 * by 5-tuple, gives exactly the flows the generator promised.
 */
class PacketPcapGeneratorTest {

    private static final long START = 1_700_000_000_000L;

    @TempDir Path dir;

    private record Key(IpAddress src, IpAddress dst, int protocol, int srcPort, int dstPort) {}

    private static final class Acc {
        long packets;
        long bytes;
        int flags;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        int tos;
        long lastTime = Long.MIN_VALUE;
    }

    @Test
    void packetsRebuildTheExpectedFlows() throws Exception {
        Path file = dir.resolve("packets.pcap");
        PacketPcapGenerator gen = new PacketPcapGenerator(TrafficProfile.defaults(), 3, 500);
        List<FlowRecord> expected;
        PacketPcapGenerator.Totals totals;
        try (PcapWriter w = PcapWriter.create(file, true)) {
            expected = new java.util.ArrayList<>();
            totals = gen.write(w, 1_500, START, expected);
        }
        assertThat(expected).hasSize(1_500);

        Map<Key, Acc> flows = new HashMap<>();
        PacketSummary.Builder b = PacketSummary.builder();
        long packets = 0;
        long bytes = 0;
        long previous = Long.MIN_VALUE;
        try (PcapReader r = PcapReader.open(file)) {
            while (r.next()) {
                ParseResult res =
                        PacketParser.parse(
                                r.packet(),
                                r.packetLinkType(),
                                r.timestampNanos(),
                                r.originalLength(),
                                0,
                                b);
                assertThat(res).isEqualTo(ParseResult.OK);
                PacketSummary p = b.build();
                assertThat(p.timestampNanos()).as("time order").isGreaterThanOrEqualTo(previous);
                previous = p.timestampNanos();
                packets++;
                bytes += p.ipLength();
                Acc a =
                        flows.computeIfAbsent(
                                new Key(
                                        p.srcAddr(),
                                        p.dstAddr(),
                                        p.protocol(),
                                        p.srcPort(),
                                        p.dstPort()),
                                k -> new Acc());
                if (a.lastTime != Long.MIN_VALUE) {
                    assertThat(p.timestampNanos() - a.lastTime)
                            .isLessThanOrEqualTo(
                                    PacketPcapGenerator.MAX_PACKET_GAP_MILLIS * 1_000_000L);
                }
                assertThat((a.flags & 0x05)).as("nothing after FIN/RST").isZero();
                a.lastTime = p.timestampNanos();
                a.packets++;
                a.bytes += p.ipLength();
                a.flags |= p.tcpFlags();
                a.first = Math.min(a.first, p.timestampNanos() / 1_000_000L);
                a.last = Math.max(a.last, p.timestampNanos() / 1_000_000L);
                a.tos = p.tos();
            }
        }
        assertThat(packets).isEqualTo(totals.packets());
        assertThat(bytes).isEqualTo(totals.bytes());
        assertThat(flows).hasSize(1_500);
        long ipv6 = 0;
        for (FlowRecord f : expected) {
            Acc a =
                    flows.get(
                            new Key(
                                    f.srcAddr(),
                                    f.dstAddr(),
                                    f.protocol(),
                                    f.srcPort(),
                                    f.dstPort()));
            assertThat(a).as("flow %s", f).isNotNull();
            assertThat(a.packets).isEqualTo(f.packets());
            assertThat(a.bytes).isEqualTo(f.bytes());
            assertThat(a.flags).isEqualTo(f.tcpFlags());
            assertThat(a.tos).isEqualTo(f.tos());
            assertThat(a.first).isEqualTo(f.flowStartMillis());
            assertThat(a.last).isEqualTo(f.flowEndMillis());
            assertThat(f.flowEndMillis() - f.flowStartMillis())
                    .isLessThanOrEqualTo(PacketPcapGenerator.MAX_DURATION_MILLIS);
            if (f.ipVersion() == 6) {
                ipv6++;
            }
        }
        assertThat(ipv6).isEqualTo(totals.ipv6Flows()).isPositive();
        assertThat(totals.tcpFlows() + totals.udpFlows() + totals.icmpFlows()).isEqualTo(1_500);
        assertThat(Files.size(file))
                .isLessThan(packets * (16 + PacketPcapGenerator.SNAP_LENGTH) + 25);
    }

    @Test
    void sameSeedSameFile() throws Exception {
        Path a = dir.resolve("a.pcap");
        Path b = dir.resolve("b.pcap");
        new PacketPcapGenerator(TrafficProfile.defaults(), 9).write(a, 300, START);
        new PacketPcapGenerator(TrafficProfile.defaults(), 9).write(b, 300, START);
        assertThat(Files.readAllBytes(a)).isEqualTo(Files.readAllBytes(b));
    }
}
