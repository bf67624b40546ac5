// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.flow.SflowFields;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The sFlow sample ageing's memory bound on the operator: at the bound a sample of a new flow is
 * written at once as a flow of its own (end reason 5) and counted, samples of held flows still add
 * up, every sample is in some row, the place is given back when a flow ends, and the count comes
 * back from a checkpoint.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class SflowSampleAgeingBoundTest {

    private static final long T0 = 1_705_320_000_000L;
    private static final long IDLE = 30_000L;
    private static final long ACTIVE = 120_000L;

    private static FlowRecord sample(int dstPort, long bytes, long received) {
        SflowFields x =
                new SflowFields(
                        IpAddress.parse("192.0.2.1"),
                        0,
                        1,
                        0,
                        1,
                        0,
                        3,
                        1000,
                        0,
                        0,
                        3,
                        0,
                        4,
                        0,
                        0,
                        0,
                        IpAddress.UNSPECIFIED,
                        0,
                        0);
        return FlowRecord.builder()
                .version(FlowRecord.VERSION_SFLOW5)
                .exporterAddress(IpAddress.parse("192.0.2.1"))
                .timeReceivedMillis(received)
                .srcAddr(IpAddress.parse("198.51.100.1"))
                .dstAddr(IpAddress.parse("203.0.113.7"))
                .protocol(6)
                .srcPort(40_000)
                .dstPort(dstPort)
                .samplingRate(1000)
                .bytes(bytes)
                .packets(1)
                .sflow(x)
                .build();
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, FlowRecord, FlowRecord> harness(
            SflowSampleAgeing.AgeSamples f, OperatorSubtaskState restore) throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(f),
                        new SflowSampleAgeing.SampleFlowKey(),
                        Types.STRING);
        if (restore != null) {
            h.initializeState(restore);
        }
        h.open();
        return h;
    }

    @Test
    void atTheBoundNewFlowsAreCutEarlyAndEverySampleIsKept() throws Exception {
        SflowSampleAgeing.AgeSamples f =
                new SflowSampleAgeing.AgeSamples(IDLE, ACTIVE, 2, Duration.ofHours(2));
        OperatorSubtaskState snapshot;
        try (var h = harness(f, null)) {
            // Two flows held, three more cut at once; samples of held flows still add up.
            for (int port = 1; port <= 5; port++) {
                h.processElement(sample(port, 100, T0 + port), T0 + port);
            }
            h.processElement(sample(1, 50, T0 + 10), T0 + 10);
            List<FlowRecord> cut = h.extractOutputValues();
            assertThat(cut).extracting(FlowRecord::dstPort).containsExactlyInAnyOrder(3, 4, 5);
            assertThat(cut)
                    .allSatisfy(
                            r -> {
                                assertThat(r.flowEndReason())
                                        .isEqualTo(SflowSampleAgeing.END_LACK_OF_RESOURCES);
                                assertThat(r.packets()).isEqualTo(1);
                            });
            assertThat(f.activeFlows()).isEqualTo(2);
            snapshot = h.snapshot(1, T0 + 20);
        }
        // The count comes back from the checkpoint: still at the bound.
        SflowSampleAgeing.AgeSamples g =
                new SflowSampleAgeing.AgeSamples(IDLE, ACTIVE, 2, Duration.ofHours(2));
        try (var h = harness(g, snapshot)) {
            assertThat(g.activeFlows()).isEqualTo(2);
            h.processElement(sample(6, 100, T0 + 30), T0 + 30);
            assertThat(h.extractOutputValues()).extracting(FlowRecord::dstPort).containsExactly(6);
            // The held flows end at their idle timeout and give their places back.
            h.processWatermark(new Watermark(T0 + 30 + IDLE + 1));
            List<FlowRecord> out = h.extractOutputValues();
            assertThat(out).extracting(FlowRecord::dstPort).containsExactlyInAnyOrder(6, 1, 2);
            assertThat(out.stream().filter(r -> r.dstPort() == 1).findFirst().orElseThrow())
                    .satisfies(
                            r -> {
                                assertThat(r.packets()).isEqualTo(2);
                                assertThat(r.bytes()).isEqualTo(150);
                                assertThat(r.flowEndReason()).isZero();
                            });
            assertThat(g.activeFlows()).isZero();
            h.processElement(sample(7, 100, T0 + 2 * IDLE), T0 + 2 * IDLE);
            assertThat(g.activeFlows()).isEqualTo(1);
        }
    }
}
