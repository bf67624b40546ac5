// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import static io.flowhouse.jobs.ageing.Packets.tcp;
import static io.flowhouse.jobs.ageing.Packets.udp;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.packet.PacketSummary;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.Test;

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

    private static KeyedOneInputStreamOperatorTestHarness<PacketFlowKey, PacketSummary, FlowRecord>
            harness(AgeingSettings s) throws Exception {
        var h =
                ProcessFunctionTestHarnesses.forKeyedProcessFunction(
                        new FlowAgeingFunction(s),
                        new PacketFlowKeySelector(s.biflow()),
                        TypeInformation.of(PacketFlowKey.class));
        h.open();
        return h;
    }

    private static void push(
            KeyedOneInputStreamOperatorTestHarness<PacketFlowKey, PacketSummary, FlowRecord> h,
            PacketSummary p)
            throws Exception {
        h.processElement(p, p.timestampNanos() / 1_000_000L);
    }

    @Test
    void idleTimeoutEndsTheFlowAndClearsStateAndTimer() throws Exception {
        var h = harness(settings());
        try {
            push(h, udp(T0, "192.0.2.1", 5000, "198.51.100.1", 53, 60));
            push(h, udp(T0 + 1_000, "192.0.2.1", 5000, "198.51.100.1", 53, 80));
            assertThat(h.numKeyedStateEntries()).isEqualTo(1);
            assertThat(h.numEventTimeTimers()).isEqualTo(1);
            h.processWatermark(T0 + 30_999);
            assertThat(h.extractOutputValues()).isEmpty();
            h.processWatermark(T0 + 31_000);
            List<FlowRecord> out = h.extractOutputValues();
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
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
        } finally {
            h.close();
        }
    }

    @Test
    void activeTimeoutCutsALongFlowAndTheRestStartsANewOne() throws Exception {
        AgeingSettings s =
                settings()
                        .withTimeouts(Duration.ofSeconds(3), Duration.ofSeconds(10), Duration.ZERO);
        var h = harness(s);
        try {
            for (int i = 0; i < 5; i++) {
                push(h, udp(T0 + i * 1_000L, "192.0.2.1", 5000, "198.51.100.1", 514, 100));
                h.processWatermark(T0 + i * 1_000L);
            }
            // Packets at 0, 1, 2 s form the first flow (active timeout at 3 s); 3 and 4 the next.
            List<FlowRecord> first = h.extractOutputValues();
            assertThat(first).hasSize(1);
            assertThat(first.get(0).packets()).isEqualTo(3);
            assertThat(first.get(0).flowEndReason()).isEqualTo(FlowAgeingFunction.END_ACTIVE);
            h.processWatermark(Long.MAX_VALUE);
            List<FlowRecord> all = h.extractOutputValues();
            assertThat(all).hasSize(2);
            assertThat(all.get(1).packets()).isEqualTo(2);
            assertThat(all.get(1).flowStartMillis()).isEqualTo(T0 + 3_000);
            assertThat(all.stream().mapToLong(FlowRecord::bytes).sum()).isEqualTo(500);
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
        } finally {
            h.close();
        }
    }

    @Test
    void aPacketPastTheDeadlineEndsTheFlowWithoutWaitingForTheTimer() throws Exception {
        // What BATCH execution relies on: timers of a key fire only after all its packets.
        var h = harness(settings());
        try {
            push(h, udp(T0, "192.0.2.1", 5000, "198.51.100.1", 53, 60));
            push(h, udp(T0 + 45_000, "192.0.2.1", 5000, "198.51.100.1", 53, 60));
            List<FlowRecord> out = h.extractOutputValues();
            assertThat(out).hasSize(1);
            assertThat(out.get(0).flowEndReason()).isEqualTo(FlowAgeingFunction.END_IDLE);
            assertThat(h.numKeyedStateEntries()).isEqualTo(1);
            assertThat(h.numEventTimeTimers()).isEqualTo(1);
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.extractOutputValues()).hasSize(2);
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
        } finally {
            h.close();
        }
    }

    @Test
    void finEndsTheFlowAfterTheLingerWithTheClosingPackets() throws Exception {
        var h = harness(settings());
        try {
            push(h, tcp(T0, "192.0.2.1", 40000, "198.51.100.1", 443, SYN, 60));
            push(h, tcp(T0 + 100, "192.0.2.1", 40000, "198.51.100.1", 443, ACK, 1500));
            push(h, tcp(T0 + 200, "192.0.2.1", 40000, "198.51.100.1", 443, FIN | ACK, 52));
            push(h, tcp(T0 + 300, "192.0.2.1", 40000, "198.51.100.1", 443, ACK, 52));
            h.processWatermark(T0 + 10_199);
            assertThat(h.extractOutputValues()).isEmpty();
            h.processWatermark(T0 + 10_200);
            List<FlowRecord> out = h.extractOutputValues();
            assertThat(out).hasSize(1);
            assertThat(out.get(0).packets()).isEqualTo(4);
            assertThat(out.get(0).tcpFlags()).isEqualTo(SYN | ACK | FIN);
            assertThat(out.get(0).flowEndReason()).isEqualTo(FlowAgeingFunction.END_OF_FLOW);
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
        } finally {
            h.close();
        }
    }

    @Test
    void rstWithoutLingerEndsTheFlowAtOnce() throws Exception {
        AgeingSettings s =
                settings()
                        .withTimeouts(
                                Duration.ofSeconds(120), Duration.ofSeconds(30), Duration.ZERO);
        var h = harness(s);
        try {
            push(h, tcp(T0, "192.0.2.1", 40000, "198.51.100.1", 22, SYN, 60));
            push(h, tcp(T0 + 5, "192.0.2.1", 40000, "198.51.100.1", 22, RST, 40));
            List<FlowRecord> out = h.extractOutputValues();
            assertThat(out).hasSize(1);
            assertThat(out.get(0).packets()).isEqualTo(2);
            assertThat(out.get(0).flowEndReason()).isEqualTo(FlowAgeingFunction.END_OF_FLOW);
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
        } finally {
            h.close();
        }
    }

    @Test
    void memoryBoundExportsNewFlowsAtOnceWhenTheCacheIsFull() throws Exception {
        var h = harness(settings().withMaxActiveFlows(2));
        try {
            push(h, udp(T0, "192.0.2.1", 1, "198.51.100.1", 53, 60));
            push(h, udp(T0, "192.0.2.2", 1, "198.51.100.1", 53, 60));
            push(h, udp(T0 + 1, "192.0.2.3", 1, "198.51.100.1", 53, 70));
            List<FlowRecord> out = h.extractOutputValues();
            assertThat(out).hasSize(1);
            assertThat(out.get(0).srcAddr()).isEqualTo(IpAddress.parse("192.0.2.3"));
            assertThat(out.get(0).flowEndReason())
                    .isEqualTo(FlowAgeingFunction.END_LACK_OF_RESOURCES);
            assertThat(h.numKeyedStateEntries()).isEqualTo(2);
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.extractOutputValues()).hasSize(3);
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
            // Room again once the cached flows ended.
            push(h, udp(T0 + 100_000, "192.0.2.4", 1, "198.51.100.1", 53, 60));
            assertThat(h.numKeyedStateEntries()).isEqualTo(1);
        } finally {
            h.close();
        }
    }

    @Test
    void aFlowTheStateTtlDroppedGivesItsPlaceInTheMemoryBoundBack() throws Exception {
        AgeingSettings s = settings().withMaxActiveFlows(1);
        var h = harness(s);
        try {
            h.setStateTtlProcessingTime(0);
            push(h, udp(T0, "192.0.2.1", 1, "198.51.100.1", 53, 60));
            // The watermark stalls for longer than the TTL: the backstop drops the cached flow.
            h.setStateTtlProcessingTime(s.stateTtl().toMillis() + 1);
            h.processWatermark(T0 + 31_000);
            assertThat(h.extractOutputValues()).isEmpty();
            assertThat(h.numEventTimeTimers()).isZero();
            // The next flow is cached again, not exported at once for lack of resources.
            push(h, udp(T0 + 40_000, "192.0.2.2", 1, "198.51.100.1", 53, 70));
            assertThat(h.extractOutputValues()).isEmpty();
            assertThat(h.numEventTimeTimers()).isEqualTo(1);
            h.processWatermark(Long.MAX_VALUE);
            List<FlowRecord> out = h.extractOutputValues();
            assertThat(out).hasSize(1);
            assertThat(out.get(0).srcAddr()).isEqualTo(IpAddress.parse("192.0.2.2"));
            assertThat(out.get(0).flowEndReason()).isEqualTo(FlowAgeingFunction.END_IDLE);
            assertThat(h.numEventTimeTimers()).isZero();
        } finally {
            h.close();
        }
    }

    @Test
    void biflowPutsTheAnswerInTheReverseCountersOfTheInitiatorsFlow() throws Exception {
        var h = harness(settings().withBiflow(true));
        try {
            push(h, udp(T0, "198.51.100.9", 5353, "192.0.2.1", 53, 60));
            push(h, udp(T0 + 10, "192.0.2.1", 53, "198.51.100.9", 5353, 200));
            push(h, udp(T0 + 20, "198.51.100.9", 5353, "192.0.2.1", 53, 61));
            assertThat(h.numKeyedStateEntries()).isEqualTo(1);
            h.processWatermark(Long.MAX_VALUE);
            List<FlowRecord> out = h.extractOutputValues();
            assertThat(out).hasSize(1);
            FlowRecord f = out.get(0);
            assertThat(f.srcAddr()).isEqualTo(IpAddress.parse("198.51.100.9"));
            assertThat(f.srcPort()).isEqualTo(5353);
            assertThat(f.dstPort()).isEqualTo(53);
            assertThat(f.packets()).isEqualTo(2);
            assertThat(f.bytes()).isEqualTo(121);
            assertThat(f.reversePackets()).isEqualTo(1);
            assertThat(f.reverseBytes()).isEqualTo(200);
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
        } finally {
            h.close();
        }
    }

    @Test
    void uniflowKeepsEachDirectionApart() throws Exception {
        var h = harness(settings());
        try {
            push(h, udp(T0, "198.51.100.9", 5353, "192.0.2.1", 53, 60));
            push(h, udp(T0 + 10, "192.0.2.1", 53, "198.51.100.9", 5353, 200));
            assertThat(h.numKeyedStateEntries()).isEqualTo(2);
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.extractOutputValues()).hasSize(2);
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
        } finally {
            h.close();
        }
    }
}
