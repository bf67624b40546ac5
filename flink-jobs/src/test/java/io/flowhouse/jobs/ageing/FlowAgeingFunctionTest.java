// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import static io.flowhouse.jobs.ageing.Packets.tcp;
import static io.flowhouse.jobs.ageing.Packets.udp;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.packet.PacketSummary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Harness tests: every way a flow ends, and state and timers back to zero after each. */
class FlowAgeingFunctionTest {

    private static final long T0 = 1_705_320_000_000L; // 2024-01-15T12:00:00Z
    private static final int FIN = 0x01;
    private static final int SYN = 0x02;
    private static final int RST = 0x04;
    private static final int ACK = 0x10;

    private static AgeingSettings settings() {
        return AgeingSettings.defaults()
                .withTimeouts(
                        Duration.ofSeconds(120), Duration.ofSeconds(30), Duration.ofSeconds(10));
    }

    /** The keyed or the bucketed table; 8 buckets, so that flows share them. */
    static AgeingHarness harness(AgeingSettings s, boolean bucketed) throws Exception {
        return AgeingHarness.open(s.withFlowTable(bucketed, 8));
    }

    @ParameterizedTest(name = "bucketed table: {0}")
    @ValueSource(booleans = {false, true})
    void idleTimeoutEndsTheFlowAndClearsStateAndTimer(boolean bucketed) throws Exception {
        var h = harness(settings(), bucketed);
        try {
            h.push(udp(T0, "192.0.2.1", 5000, "198.51.100.1", 53, 60));
            h.push(udp(T0 + 1_000, "192.0.2.1", 5000, "198.51.100.1", 53, 80));
            assertThat(h.flows()).isEqualTo(1);
            assertThat(h.timers()).isEqualTo(1);
            h.watermark(T0 + 30_999);
            assertThat(h.output()).isEmpty();
            h.watermark(T0 + 31_000);
            List<FlowRecord> out = h.output();
            assertThat(out).hasSize(1);
            FlowRecord f = out.get(0);
            assertThat(f.packets()).isEqualTo(2);
            assertThat(f.bytes()).isEqualTo(140);
            assertThat(f.flowStartMillis()).isEqualTo(T0);
            assertThat(f.flowEndMillis()).isEqualTo(T0 + 1_000);
            assertThat(f.timeReceivedMillis()).isEqualTo(T0 + 1_000);
            assertThat(f.flowEndReason()).isEqualTo(FlowAgeingFunction.END_IDLE);
            assertThat(f.version()).isZero();
            assertThat(f.srcAddr()).isEqualTo(IpAddress.parse("192.0.2.1"));
            assertThat(f.dstPort()).isEqualTo(53);
            assertThat(f.protocol()).isEqualTo(17);
            assertThat(f.inputInterface()).isEqualTo(1);
            assertThat(f.observationDomainId()).isEqualTo(1);
            assertThat(f.exporterAddress()).isEqualTo(IpAddress.parse("127.0.0.1"));
            assertThat(h.stateEntries()).isZero();
            assertThat(h.timers()).isZero();
        } finally {
            h.close();
        }
    }

    @ParameterizedTest(name = "bucketed table: {0}")
    @ValueSource(booleans = {false, true})
    void activeTimeoutCutsALongFlowAndTheRestStartsANewOne(boolean bucketed) throws Exception {
        AgeingSettings s =
                settings()
                        .withTimeouts(Duration.ofSeconds(3), Duration.ofSeconds(10), Duration.ZERO);
        var h = harness(s, bucketed);
        try {
            for (int i = 0; i < 5; i++) {
                h.push(udp(T0 + i * 1_000L, "192.0.2.1", 5000, "198.51.100.1", 514, 100));
                h.watermark(T0 + i * 1_000L);
            }
            // Packets at 0, 1, 2 s form the first flow (active timeout at 3 s); 3 and 4 the next.
            List<FlowRecord> first = h.output();
            assertThat(first).hasSize(1);
            assertThat(first.get(0).packets()).isEqualTo(3);
            assertThat(first.get(0).flowEndReason()).isEqualTo(FlowAgeingFunction.END_ACTIVE);
            h.watermark(Long.MAX_VALUE);
            List<FlowRecord> all = h.output();
            assertThat(all).hasSize(2);
            assertThat(all.get(1).packets()).isEqualTo(2);
            assertThat(all.get(1).flowStartMillis()).isEqualTo(T0 + 3_000);
            assertThat(all.stream().mapToLong(FlowRecord::bytes).sum()).isEqualTo(500);
            assertThat(h.stateEntries()).isZero();
            assertThat(h.timers()).isZero();
        } finally {
            h.close();
        }
    }

    @ParameterizedTest(name = "bucketed table: {0}")
    @ValueSource(booleans = {false, true})
    void aPacketPastTheDeadlineEndsTheFlowWithoutWaitingForTheTimer(boolean bucketed)
            throws Exception {
        // What BATCH execution relies on: timers of a key fire only after all its packets.
        var h = harness(settings(), bucketed);
        try {
            h.push(udp(T0, "192.0.2.1", 5000, "198.51.100.1", 53, 60));
            h.push(udp(T0 + 45_000, "192.0.2.1", 5000, "198.51.100.1", 53, 60));
            List<FlowRecord> out = h.output();
            assertThat(out).hasSize(1);
            assertThat(out.get(0).flowEndReason()).isEqualTo(FlowAgeingFunction.END_IDLE);
            assertThat(h.flows()).isEqualTo(1);
            assertThat(h.timers()).isEqualTo(1);
            h.watermark(Long.MAX_VALUE);
            assertThat(h.output()).hasSize(2);
            assertThat(h.stateEntries()).isZero();
            assertThat(h.timers()).isZero();
        } finally {
            h.close();
        }
    }

    @ParameterizedTest(name = "bucketed table: {0}")
    @ValueSource(booleans = {false, true})
    void finEndsTheFlowAfterTheLingerWithTheClosingPackets(boolean bucketed) throws Exception {
        var h = harness(settings(), bucketed);
        try {
            h.push(tcp(T0, "192.0.2.1", 40000, "198.51.100.1", 443, SYN, 60));
            h.push(tcp(T0 + 100, "192.0.2.1", 40000, "198.51.100.1", 443, ACK, 1500));
            h.push(tcp(T0 + 200, "192.0.2.1", 40000, "198.51.100.1", 443, FIN | ACK, 52));
            h.push(tcp(T0 + 300, "192.0.2.1", 40000, "198.51.100.1", 443, ACK, 52));
            h.watermark(T0 + 10_199);
            assertThat(h.output()).isEmpty();
            h.watermark(T0 + 10_200);
            List<FlowRecord> out = h.output();
            assertThat(out).hasSize(1);
            assertThat(out.get(0).packets()).isEqualTo(4);
            assertThat(out.get(0).tcpFlags()).isEqualTo(SYN | ACK | FIN);
            assertThat(out.get(0).flowEndReason()).isEqualTo(FlowAgeingFunction.END_OF_FLOW);
            assertThat(h.stateEntries()).isZero();
            assertThat(h.timers()).isZero();
        } finally {
            h.close();
        }
    }

    @ParameterizedTest(name = "bucketed table: {0}")
    @ValueSource(booleans = {false, true})
    void rstWithoutLingerEndsTheFlowAtOnce(boolean bucketed) throws Exception {
        AgeingSettings s =
                settings()
                        .withTimeouts(
                                Duration.ofSeconds(120), Duration.ofSeconds(30), Duration.ZERO);
        var h = harness(s, bucketed);
        try {
            h.push(tcp(T0, "192.0.2.1", 40000, "198.51.100.1", 22, SYN, 60));
            h.push(tcp(T0 + 5, "192.0.2.1", 40000, "198.51.100.1", 22, RST, 40));
            List<FlowRecord> out = h.output();
            assertThat(out).hasSize(1);
            assertThat(out.get(0).packets()).isEqualTo(2);
            assertThat(out.get(0).flowEndReason()).isEqualTo(FlowAgeingFunction.END_OF_FLOW);
            assertThat(h.stateEntries()).isZero();
            assertThat(h.timers()).isZero();
        } finally {
            h.close();
        }
    }

    @ParameterizedTest(name = "bucketed table: {0}")
    @ValueSource(booleans = {false, true})
    void memoryBoundExportsNewFlowsAtOnceWhenTheCacheIsFull(boolean bucketed) throws Exception {
        // One bucket: the bucketed table's bound per bucket is then the whole bound.
        var h = AgeingHarness.open(settings().withMaxActiveFlows(2).withFlowTable(bucketed, 1));
        try {
            h.push(udp(T0, "192.0.2.1", 1, "198.51.100.1", 53, 60));
            h.push(udp(T0, "192.0.2.2", 1, "198.51.100.1", 53, 60));
            h.push(udp(T0 + 1, "192.0.2.3", 1, "198.51.100.1", 53, 70));
            List<FlowRecord> out = h.output();
            assertThat(out).hasSize(1);
            assertThat(out.get(0).srcAddr()).isEqualTo(IpAddress.parse("192.0.2.3"));
            assertThat(out.get(0).flowEndReason())
                    .isEqualTo(FlowAgeingFunction.END_LACK_OF_RESOURCES);
            assertThat(h.flows()).isEqualTo(2);
            // Past both flows' idle deadline (30 s), not at the end of the input: a packet after
            // that would be late and dropped.
            h.watermark(T0 + 60_000);
            assertThat(h.output()).hasSize(3);
            assertThat(h.stateEntries()).isZero();
            assertThat(h.timers()).isZero();
            // Room again once the cached flows ended.
            h.push(udp(T0 + 100_000, "192.0.2.4", 1, "198.51.100.1", 53, 60));
            assertThat(h.flows()).isEqualTo(1);
        } finally {
            h.close();
        }
    }

    /**
     * The bucketed table's bound is per bucket (2 flows of 16 in 8 buckets), counted from the
     * bucket's table at the packet: a flow whose deadline the packet's time has passed ends there
     * and then, as its timer would, and gives its place back before any watermark comes.
     */
    @Test
    void theBucketedBoundIsPerBucketAndCountsOnlyFlowsThePacketTimeHasNotEnded() throws Exception {
        AgeingSettings s = settings().withMaxActiveFlows(16).withFlowTable(true, 8);
        assertThat(BucketedFlowAgeingFunction.bucketBound(16, 8)).isEqualTo(2);
        assertThat(BucketedFlowAgeingFunction.bucketBound(17, 8)).isEqualTo(3);
        assertThat(BucketedFlowAgeingFunction.bucketBound(0, 8)).isZero();
        PacketBucketSelector buckets = new PacketBucketSelector(false, 8);
        // Four flows of one bucket.
        List<PacketSummary> firsts = new ArrayList<>();
        int bucket = -1;
        for (int port = 1; firsts.size() < 4; port++) {
            PacketSummary p = udp(T0, "192.0.2.1", port, "198.51.100.1", 53, 60);
            int b = buckets.getKey(p);
            if (bucket < 0) {
                bucket = b;
            }
            if (b == bucket) {
                firsts.add(p);
            }
        }
        try (AgeingHarness h = AgeingHarness.open(s)) {
            h.push(firsts.get(0));
            h.push(firsts.get(1));
            h.push(firsts.get(2));
            assertThat(h.output()).hasSize(1);
            assertThat(h.output().get(0).flowEndReason())
                    .isEqualTo(FlowAgeingFunction.END_LACK_OF_RESOURCES);
            // 31 s later (idle 30 s), no watermark yet: the two cached flows end at this packet,
            // and its flow is cached.
            PacketSummary later = firsts.get(3);
            h.push(
                    PacketSummary.builder()
                            .from(later)
                            .timestampNanos(later.timestampNanos() + 31_000_000_000L)
                            .build());
            List<FlowRecord> out = h.output();
            assertThat(out).hasSize(3);
            assertThat(out.subList(1, 3))
                    .allMatch(f -> f.flowEndReason() == FlowAgeingFunction.END_IDLE);
            assertThat(h.flows()).isEqualTo(1);
            h.watermark(Long.MAX_VALUE);
            assertThat(h.output()).hasSize(4);
        }
    }

    @ParameterizedTest(name = "bucketed table: {0}")
    @ValueSource(booleans = {false, true})
    void aFlowTheStateTtlDroppedGivesItsPlaceInTheMemoryBoundBack(boolean bucketed)
            throws Exception {
        AgeingSettings s = settings().withMaxActiveFlows(1).withFlowTable(bucketed, 1);
        var h = AgeingHarness.open(s);
        try {
            h.setStateTtlProcessingTime(0);
            h.push(udp(T0, "192.0.2.1", 1, "198.51.100.1", 53, 60));
            // The watermark stalls for longer than the TTL: the backstop drops the cached flow.
            h.setStateTtlProcessingTime(s.stateTtl().toMillis() + 1);
            h.watermark(T0 + 31_000);
            assertThat(h.output()).isEmpty();
            assertThat(h.timers()).isZero();
            // The next flow is cached again, not exported at once for lack of resources.
            h.push(udp(T0 + 40_000, "192.0.2.2", 1, "198.51.100.1", 53, 70));
            assertThat(h.output()).isEmpty();
            assertThat(h.timers()).isEqualTo(1);
            h.watermark(Long.MAX_VALUE);
            List<FlowRecord> out = h.output();
            assertThat(out).hasSize(1);
            assertThat(out.get(0).srcAddr()).isEqualTo(IpAddress.parse("192.0.2.2"));
            assertThat(out.get(0).flowEndReason()).isEqualTo(FlowAgeingFunction.END_IDLE);
            assertThat(h.timers()).isZero();
        } finally {
            h.close();
        }
    }

    @ParameterizedTest(name = "bucketed table: {0}")
    @ValueSource(booleans = {false, true})
    void biflowPutsTheAnswerInTheReverseCountersOfTheInitiatorsFlow(boolean bucketed)
            throws Exception {
        var h = harness(settings().withBiflow(true), bucketed);
        try {
            h.push(udp(T0, "198.51.100.9", 5353, "192.0.2.1", 53, 60));
            h.push(udp(T0 + 10, "192.0.2.1", 53, "198.51.100.9", 5353, 200));
            h.push(udp(T0 + 20, "198.51.100.9", 5353, "192.0.2.1", 53, 61));
            assertThat(h.flows()).isEqualTo(1);
            h.watermark(Long.MAX_VALUE);
            List<FlowRecord> out = h.output();
            assertThat(out).hasSize(1);
            FlowRecord f = out.get(0);
            assertThat(f.srcAddr()).isEqualTo(IpAddress.parse("198.51.100.9"));
            assertThat(f.srcPort()).isEqualTo(5353);
            assertThat(f.dstPort()).isEqualTo(53);
            assertThat(f.packets()).isEqualTo(2);
            assertThat(f.bytes()).isEqualTo(121);
            assertThat(f.reversePackets()).isEqualTo(1);
            assertThat(f.reverseBytes()).isEqualTo(200);
            assertThat(h.stateEntries()).isZero();
            assertThat(h.timers()).isZero();
        } finally {
            h.close();
        }
    }

    @ParameterizedTest(name = "bucketed table: {0}")
    @ValueSource(booleans = {false, true})
    void uniflowKeepsEachDirectionApart(boolean bucketed) throws Exception {
        var h = harness(settings(), bucketed);
        try {
            h.push(udp(T0, "198.51.100.9", 5353, "192.0.2.1", 53, 60));
            h.push(udp(T0 + 10, "192.0.2.1", 53, "198.51.100.9", 5353, 200));
            assertThat(h.flows()).isEqualTo(2);
            h.watermark(Long.MAX_VALUE);
            assertThat(h.output()).hasSize(2);
            assertThat(h.stateEntries()).isZero();
            assertThat(h.timers()).isZero();
        } finally {
            h.close();
        }
    }
}
