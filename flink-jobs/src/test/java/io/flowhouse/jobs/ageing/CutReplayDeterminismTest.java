// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.packet.PacketSummary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Is cutting replay-deterministic near the memory bound? A run that fails right after a checkpoint
 * taken while the flow cache is at its bound, restored from that checkpoint and fed the same
 * packets again, must cut every flow where the uninterrupted run did: otherwise the flows emitted
 * after the checkpoint get other ids in the replay and the sinks count them twice.
 */
class CutReplayDeterminismTest {

    private static final int MAX_FLOWS = 100;

    /** Packets between two watermarks of the uninterrupted run. */
    private static final int WATERMARK_EVERY = 500;

    private static AgeingSettings settings(boolean bucketed) {
        return AgeingSettings.defaults()
                .withFlowTable(bucketed, 4096)
                .withTimeouts(
                        Duration.ofSeconds(120), Duration.ofSeconds(30), Duration.ofSeconds(10))
                .withMaxActiveFlows(MAX_FLOWS);
    }

    @ParameterizedTest(name = "bucketed table: {0}")
    @ValueSource(booleans = {false, true})
    void aRestoreNearTheMemoryBoundCutsTheSameFlows(boolean bucketed) throws Exception {
        AgeingSettings s = settings(bucketed);
        List<PacketSummary> trace = Packets.trace();
        List<FlowRecord> whole = run(s, trace, -1, WATERMARK_EVERY, false);
        assertThat(whole.stream().filter(f -> f.flowEndReason() == 5).count())
                .as("the bound trips")
                .isPositive();
        // Checkpoints at several points, each while the cache is near its bound.
        for (int at : new int[] {10_000, 21_000, 33_000}) {
            assertThat(run(s, trace, at, WATERMARK_EVERY, false))
                    .as("restored from a checkpoint after packet %d", at)
                    .containsExactlyInAnyOrderElementsOf(whole);
        }
    }

    /**
     * Without the memory bound, a flow's cut is a function of its own packets' times and its state
     * alone: the replay after a restore starts its watermark again from nothing (as the source
     * does) and gets it at other points of the stream (every 37 packets, as a slow replay, or every
     * 2,000, as a catch-up), and still cuts every flow where the uninterrupted run did, as long as
     * no packet is late. The trace is one capture in time order: none is.
     */
    @ParameterizedTest(name = "bucketed table: {0}")
    @ValueSource(booleans = {false, true})
    void onTimePacketsAreCutTheSameWhereverTheWatermarkComesAfterARestore(boolean bucketed)
            throws Exception {
        AgeingSettings s = settings(bucketed).withMaxActiveFlows(0);
        List<PacketSummary> trace = Packets.trace();
        List<FlowRecord> whole = run(s, trace, -1, WATERMARK_EVERY, false);
        assertThat(whole.stream().mapToLong(FlowRecord::packets).sum())
                .isEqualTo(Packets.TRACE_PACKETS);
        for (int at : new int[] {10_000, 21_000, 33_000}) {
            for (int every : new int[] {37, 2_000}) {
                assertThat(run(s, trace, at, every, true))
                        .as("restored after packet %d, a watermark every %d packets", at, every)
                        .containsExactlyInAnyOrderElementsOf(whole);
            }
        }
    }

    /**
     * Near the memory bound the watermark's timing shows: the count of cached flows falls when a
     * flow's timer fires, so a replay that gets its watermarks at other points (a catch-up gets
     * them further apart) admits or refuses other flows than the run before it. Measured here, not
     * fixed: the bound is load shedding, as in a probe whose table is full; the flows it cuts are
     * counted ({@code packet_flows_lack_of_resources_total}), and no packet is lost.
     */
    @ParameterizedTest(name = "bucketed table: {0}")
    @ValueSource(booleans = {false, true})
    void nearTheBoundTheWatermarkTimingDecidesTheCutsButNoPacketIsLost(boolean bucketed)
            throws Exception {
        AgeingSettings s = settings(bucketed);
        List<PacketSummary> trace = Packets.trace();
        List<FlowRecord> whole = run(s, trace, -1, WATERMARK_EVERY, false);
        List<FlowRecord> replay = run(s, trace, 21_000, 2_000, true);
        assertThat(replay.stream().mapToLong(FlowRecord::packets).sum())
                .isEqualTo(whole.stream().mapToLong(FlowRecord::packets).sum())
                .isEqualTo(Packets.TRACE_PACKETS);
        List<FlowRecord> onlyInReplay = new ArrayList<>(replay);
        onlyInReplay.removeAll(whole);
        System.out.printf(
                "near the bound (%d flows), restored after packet 21,000 with a watermark every"
                        + " 2,000 packets: %d flows, %d of them not in the uninterrupted run's"
                        + " %d%n",
                MAX_FLOWS, replay.size(), onlyInReplay.size(), whole.size());
    }

    /**
     * A late packet (behind the watermark) is the limit: whether its flow already ended depends on
     * how far the watermark got, which depends on how the source interleaved its partitions, and
     * that differs between a run and its replay. Here the same packets meet two watermark
     * schedules: the late packet starts a new flow in one and joins its flow in the other. No
     * packet is lost either way; cuts (and so ids) are replay-deterministic only while no packet is
     * late ({@code packets_late_total} stays 0; raise {@code max-out-of-orderness} otherwise).
     */
    @ParameterizedTest(name = "bucketed table: {0}")
    @ValueSource(booleans = {false, true})
    void aLatePacketMayBeCutDifferentlyOnReplayButIsNeverLost(boolean bucketed) throws Exception {
        AgeingSettings s = settings(bucketed);
        long t0 = 1_700_000_000_000L;
        PacketSummary p1 = Packets.udp(t0, "10.0.0.1", 1000, "10.0.0.2", 53, 100);
        PacketSummary p2 = Packets.udp(t0 + 10_000, "10.0.0.1", 1000, "10.0.0.2", 53, 100);
        PacketSummary other = Packets.udp(t0 + 100_000, "10.0.0.3", 1000, "10.0.0.4", 53, 100);
        PacketSummary late = Packets.udp(t0 + 20_000, "10.0.0.1", 1000, "10.0.0.2", 53, 100);
        List<FlowRecord> watermarkFirst;
        try (AgeingHarness h = AgeingHarness.open(s)) {
            h.push(p1);
            h.push(p2);
            h.push(other);
            h.watermark(t0 + 90_000);
            h.push(late);
            h.watermark(Long.MAX_VALUE);
            watermarkFirst = h.output();
        }
        List<FlowRecord> packetFirst;
        try (AgeingHarness h = AgeingHarness.open(s)) {
            h.push(p1);
            h.push(p2);
            h.push(other);
            h.push(late);
            h.watermark(t0 + 90_000);
            h.watermark(Long.MAX_VALUE);
            packetFirst = h.output();
        }
        assertThat(watermarkFirst).hasSize(3);
        assertThat(packetFirst).hasSize(2);
        assertThat(watermarkFirst.stream().mapToLong(FlowRecord::packets).sum())
                .isEqualTo(packetFirst.stream().mapToLong(FlowRecord::packets).sum())
                .isEqualTo(4);
    }

    /**
     * Ages the packets; when {@code checkpointAt >= 0}, takes a snapshot after that many packets,
     * throws away what the operator emitted after it (the failure) and goes on in a new operator
     * restored from it, fed again from that packet on.
     */
    private static List<FlowRecord> run(
            AgeingSettings s,
            List<PacketSummary> packets,
            int checkpointAt,
            int replayEvery,
            boolean restartWatermark)
            throws Exception {
        List<FlowRecord> out = new ArrayList<>();
        OperatorSubtaskState snapshot = null;
        long maxSeen = Long.MIN_VALUE;
        int from = 0;
        if (checkpointAt >= 0) {
            try (AgeingHarness h = AgeingHarness.open(s)) {
                for (int i = 0; i < checkpointAt; i++) {
                    maxSeen = step(h, packets.get(i), i, maxSeen, WATERMARK_EVERY);
                }
                assertThat(h.flows())
                        .as("cache near its bound at the checkpoint")
                        .isGreaterThan(MAX_FLOWS / 2);
                snapshot = h.snapshot(1);
                out.addAll(h.output());
                // Output after the checkpoint is lost with the failure.
                for (int i = checkpointAt;
                        i < Math.min(packets.size(), checkpointAt + 2_000);
                        i++) {
                    maxSeen = step(h, packets.get(i), i, maxSeen, WATERMARK_EVERY);
                }
            }
            from = checkpointAt;
            maxSeen = Long.MIN_VALUE;
            for (int i = 0; i < from && !restartWatermark; i++) {
                maxSeen = Math.max(maxSeen, packets.get(i).timestampNanos() / 1_000_000L);
            }
        }
        int every = checkpointAt >= 0 ? replayEvery : WATERMARK_EVERY;
        try (AgeingHarness h = AgeingHarness.open(s, snapshot)) {
            for (int i = from; i < packets.size(); i++) {
                maxSeen = step(h, packets.get(i), i - from, maxSeen, every);
            }
            h.watermark(Long.MAX_VALUE);
            out.addAll(h.output());
        }
        return out;
    }

    /** Pushes packet {@code i}; a watermark (1 s behind the newest packet) every {@code every}. */
    private static long step(AgeingHarness h, PacketSummary p, int i, long maxSeen, int every)
            throws Exception {
        h.push(p);
        long seen = Math.max(maxSeen, p.timestampNanos() / 1_000_000L);
        if ((i + 1) % every == 0) {
            h.watermark(seen - 1_000);
        }
        return seen;
    }
}
