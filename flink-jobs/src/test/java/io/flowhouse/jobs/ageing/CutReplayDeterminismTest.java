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
        List<FlowRecord> whole = run(s, trace, -1);
        assertThat(whole.stream().filter(f -> f.flowEndReason() == 5).count())
                .as("the bound trips")
                .isPositive();
        // Checkpoints at several points, each while the cache is near its bound.
        for (int at : new int[] {10_000, 21_000, 33_000}) {
            assertThat(run(s, trace, at))
                    .as("restored from a checkpoint after packet %d", at)
                    .containsExactlyInAnyOrderElementsOf(whole);
        }
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
            AgeingSettings s, List<PacketSummary> packets, int checkpointAt) throws Exception {
        List<FlowRecord> out = new ArrayList<>();
        OperatorSubtaskState snapshot = null;
        long maxSeen = Long.MIN_VALUE;
        int from = 0;
        if (checkpointAt >= 0) {
            try (AgeingHarness h = AgeingHarness.open(s)) {
                for (int i = 0; i < checkpointAt; i++) {
                    maxSeen = step(h, packets.get(i), i, maxSeen);
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
                    maxSeen = step(h, packets.get(i), i, maxSeen);
                }
            }
            from = checkpointAt;
            maxSeen = Long.MIN_VALUE;
            for (int i = 0; i < from; i++) {
                maxSeen = Math.max(maxSeen, packets.get(i).timestampNanos() / 1_000_000L);
            }
        }
        try (AgeingHarness h = AgeingHarness.open(s, snapshot)) {
            for (int i = from; i < packets.size(); i++) {
                maxSeen = step(h, packets.get(i), i, maxSeen);
            }
            h.watermark(Long.MAX_VALUE);
            out.addAll(h.output());
        }
        return out;
    }

    private static long step(AgeingHarness h, PacketSummary p, int i, long maxSeen)
            throws Exception {
        h.push(p);
        long seen = Math.max(maxSeen, p.timestampNanos() / 1_000_000L);
        if ((i + 1) % 500 == 0) {
            h.watermark(seen - 1_000);
        }
        return seen;
    }
}
