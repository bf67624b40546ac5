// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.packets;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.pcap.PcapWriter;
import io.flowhouse.loadgen.generate.FlowGenerator;
import io.flowhouse.loadgen.profile.TrafficProfile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Writes a synthetic packet trace for the capture path: the generator's flows turned back into the
 * packets they summarize, interleaved in time order, Ethernet frames cut at a snap length with the
 * original length kept. Each flow has a unique 5-tuple while it is active, packet gaps under
 * {@value #MAX_PACKET_GAP_MILLIS} ms and at most {@value #MAX_DURATION_MILLIS} ms of duration, and
 * TCP FIN or RST only on its last packet, so a flow cache with usual timeouts (idle >= 15 s, active
 * >= 60 s) rebuilds exactly the flows in {@link Totals}.
 *
 * <p>Byte counts are at IP level (what NetFlow exporters count), not frame length.
 */
public final class PacketPcapGenerator {

    /** Longest gap between two packets of a flow. */
    public static final long MAX_PACKET_GAP_MILLIS = 5_000;

    /** Longest flow. */
    public static final long MAX_DURATION_MILLIS = 30_000;

    /** Captured bytes per packet (headers fit; payload is cut, as with tcpdump -s 128). */
    public static final int SNAP_LENGTH = 128;

    private static final long SRC_MAC = 0x0200_0000_0001L;
    private static final long DST_MAC = 0x0200_0000_0002L;
    private static final int TCP_FIN = 0x01;
    private static final int TCP_SYN = 0x02;
    private static final int TCP_RST = 0x04;
    private static final int TCP_PSH = 0x08;
    private static final int TCP_ACK = 0x10;

    private final FlowGenerator generator;
    private final double flowsPerSecond;

    public PacketPcapGenerator(TrafficProfile profile, long seed) {
        this(profile, seed, 1_000);
    }

    /**
     * @param flowsPerSecond rate at which new flows start in the trace
     */
    public PacketPcapGenerator(TrafficProfile profile, long seed, double flowsPerSecond) {
        this.generator = new FlowGenerator(profile, seed);
        this.flowsPerSecond = flowsPerSecond > 0 ? flowsPerSecond : 1_000;
    }

    /** The totals a flow cache must rebuild from the trace. */
    public record Totals(
            long flows,
            long packets,
            long bytes,
            long frameBytes,
            long ipv4Flows,
            long ipv6Flows,
            long tcpFlows,
            long udpFlows,
            long icmpFlows,
            long firstPacketNanos,
            long lastPacketNanos) {

        public String format(Path file) {
            return String.format(
                    Locale.ROOT,
                    "packets pcap %s: flows %d (ipv4 %d, ipv6 %d; tcp %d, udp %d, icmp %d)"
                            + "  packets %d  bytes %d (IP level)  frame bytes %d  span %.3f s",
                    file,
                    flows,
                    ipv4Flows,
                    ipv6Flows,
                    tcpFlows,
                    udpFlows,
                    icmpFlows,
                    packets,
                    bytes,
                    frameBytes,
                    (lastPacketNanos - firstPacketNanos) / 1e9);
        }

        public String toJson() {
            return String.format(
                    Locale.ROOT,
                    "{\n  \"flows\": %d,\n  \"packets\": %d,\n  \"bytes\": %d,\n"
                            + "  \"frame_bytes\": %d,\n  \"ipv4_flows\": %d,\n"
                            + "  \"ipv6_flows\": %d,\n  \"tcp_flows\": %d,\n  \"udp_flows\": %d,\n"
                            + "  \"icmp_flows\": %d,\n  \"first_packet_nanos\": %d,\n"
                            + "  \"last_packet_nanos\": %d\n}\n",
                    flows,
                    packets,
                    bytes,
                    frameBytes,
                    ipv4Flows,
                    ipv6Flows,
                    tcpFlows,
                    udpFlows,
                    icmpFlows,
                    firstPacketNanos,
                    lastPacketNanos);
        }
    }

    /** Writes {@code flows} flows starting at {@code startMillis} into {@code file}. */
    public Totals write(Path file, long flows, long startMillis) throws IOException {
        try (PcapWriter w = PcapWriter.create(file, true)) {
            return write(w, flows, startMillis, null);
        }
    }

    /**
     * Writes into {@code w}; when {@code expected} is not null, adds each flow as the capture path
     * should rebuild it (times from first to last packet, TCP flags as the union of the packets').
     */
    public Totals write(PcapWriter w, long flows, long startMillis, List<FlowRecord> expected)
            throws IOException {
        PriorityQueue<Cursor> active = new PriorityQueue<>();
        Map<Key, Long> busyUntil = new HashMap<>();
        ByteBuffer frame = ByteBuffer.allocate(SNAP_LENGTH + 64);
        long packets = 0;
        long bytes = 0;
        long frameBytes = 0;
        long[] byFamily = new long[2];
        long[] byProto = new long[3];
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long startNanos = startMillis * 1_000_000L;
        double spacingNanos = 1e9 / flowsPerSecond;
        long next = 0;
        int ipId = 0;
        while (next < flows || !active.isEmpty()) {
            long nextStart = startNanos + (long) (next * spacingNanos);
            if (next < flows && (active.isEmpty() || nextStart <= active.peek().timeNanos)) {
                Cursor c = newFlow(next, nextStart, busyUntil);
                active.add(c);
                if (expected != null) {
                    expected.add(c.expected());
                }
                byFamily[c.flow.ipVersion() == 6 ? 1 : 0]++;
                byProto[c.flow.protocol() == 6 ? 0 : c.flow.protocol() == 17 ? 1 : 2]++;
                next++;
                continue;
            }
            Cursor c = active.poll();
            frame.clear();
            Frames.PacketSpec spec = c.packet();
            int captured = Frames.packet(frame, SRC_MAC, DST_MAC, spec, ipId++, SNAP_LENGTH);
            frame.flip();
            w.write(c.timeNanos, frame, Frames.ETHERNET_HEADER + spec.ipLength());
            packets++;
            bytes += spec.ipLength();
            frameBytes += Frames.ETHERNET_HEADER + spec.ipLength();
            first = Math.min(first, c.timeNanos);
            last = Math.max(last, c.timeNanos);
            if (c.advance()) {
                active.add(c);
            }
        }
        return new Totals(
                flows,
                packets,
                bytes,
                frameBytes,
                byFamily[0],
                byFamily[1],
                byProto[0],
                byProto[1],
                byProto[2],
                first == Long.MAX_VALUE ? 0 : first,
                last == Long.MIN_VALUE ? 0 : last);
    }

    /** A flow that starts at {@code startNanos} with a 5-tuple no active flow uses. */
    private Cursor newFlow(long index, long startNanos, Map<Key, Long> busyUntil) {
        long startMillis = Math.floorDiv(startNanos, 1_000_000L);
        busyUntil.values().removeIf(until -> until < startNanos);
        for (int attempt = 0; ; attempt++) {
            FlowRecord f = generator.flow(attempt, index, startMillis, true);
            long duration =
                    Math.min(
                            Math.min(f.flowEndMillis() - f.flowStartMillis(), MAX_DURATION_MILLIS),
                            (f.packets() - 1) * MAX_PACKET_GAP_MILLIS);
            Key key = new Key(f.srcAddr(), f.dstAddr(), f.protocol(), f.srcPort(), f.dstPort());
            if (busyUntil.containsKey(key)) {
                continue;
            }
            // Keep the key busy a while after the flow ends, so an idle timeout closes it first.
            busyUntil.put(key, startNanos + (duration + 60_000L) * 1_000_000L);
            return new Cursor(f, startNanos, duration * 1_000_000L);
        }
    }

    private record Key(IpAddress src, IpAddress dst, int protocol, int srcPort, int dstPort) {}

    /** The packets of one flow, produced one by one. */
    private static final class Cursor implements Comparable<Cursor> {
        final FlowRecord flow;
        final long startNanos;
        final long durationNanos;
        final long count;
        final long baseSize;
        final long remainder;
        long k;
        long timeNanos;

        Cursor(FlowRecord flow, long startNanos, long durationNanos) {
            this.flow = flow;
            this.startNanos = startNanos;
            this.durationNanos = durationNanos;
            this.count = flow.packets();
            this.baseSize = flow.bytes() / count;
            this.remainder = flow.bytes() % count;
            this.timeNanos = startNanos;
        }

        Frames.PacketSpec packet() {
            int size = (int) (baseSize + (k < remainder ? 1 : 0));
            return new Frames.PacketSpec(
                    flow.srcAddr(),
                    flow.dstAddr(),
                    flow.protocol(),
                    flow.srcPort(),
                    flow.dstPort(),
                    flagsOf(k),
                    flow.tos(),
                    size,
                    (int) k);
        }

        /** TCP flags of packet k: SYN first, FIN/RST last, the rest of the flow's flags between. */
        int flagsOf(long i) {
            if (flow.protocol() != 6) {
                return 0;
            }
            int all = flow.tcpFlags();
            if (count == 1) {
                return all;
            }
            int end = all & (TCP_FIN | TCP_RST);
            int mid = all & (TCP_PSH | TCP_ACK);
            if (i == 0 && (all & TCP_SYN) != 0) {
                return TCP_SYN;
            }
            if (i == count - 1 && end != 0) {
                return end | (all & TCP_ACK);
            }
            return mid != 0 ? mid : all & ~(TCP_FIN | TCP_RST);
        }

        FlowRecord expected() {
            int union = 0;
            for (long i = 0; i < Math.min(count, 3); i++) {
                union |= flagsOf(i);
            }
            union |= flagsOf(count - 1);
            long startMillis = startNanos / 1_000_000L;
            return flow.toBuilder()
                    .version(0)
                    .tcpFlags(union)
                    .flowStartMillis(startMillis)
                    .flowEndMillis((startNanos + durationNanos) / 1_000_000L)
                    .nextHop(IpAddress.UNSPECIFIED)
                    .srcAs(0)
                    .dstAs(0)
                    .srcPrefixLen(0)
                    .dstPrefixLen(0)
                    .inputInterface(0)
                    .outputInterface(0)
                    .srcMac(SRC_MAC)
                    .dstMac(DST_MAC)
                    .flowEndReason(0)
                    .direction(-1)
                    .build();
        }

        /** Moves to the next packet; false when the flow is done. */
        boolean advance() {
            k++;
            if (k >= count) {
                return false;
            }
            timeNanos = startNanos + (count == 1 ? 0 : durationNanos * k / (count - 1));
            return true;
        }

        @Override
        public int compareTo(Cursor o) {
            return Long.compare(timeNanos, o.timeNanos);
        }
    }

    /** A copy of the flows the trace holds, for tests. */
    public List<FlowRecord> expectedFlows(PcapWriter w, long flows, long startMillis)
            throws IOException {
        List<FlowRecord> out = new ArrayList<>();
        write(w, flows, startMillis, out);
        return out;
    }
}
