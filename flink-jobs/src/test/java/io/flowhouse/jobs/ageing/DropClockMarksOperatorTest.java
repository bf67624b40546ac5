// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.packet.PacketClockMark;
import io.flowhouse.codec.packet.PacketSummary;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The packets path's first step drops the agent's clock marks and, when its input ends (a drained
 * stop), sends the final watermark even after the input went idle: the source task drops its own
 * while idle, and the open packet flows would then never end.
 */
@SuppressWarnings("try") // the harness's close() throws Exception
class DropClockMarksOperatorTest {

    @Test
    void dropsClockMarksAndKeepsPackets() throws Exception {
        PacketSummary packet = Packets.udp(1_000, "192.0.2.1", 1000, "198.51.100.1", 53, 80);
        PacketSummary mark =
                new PacketClockMark(PacketClockMark.Kind.TICK, 2_000_000_000L, 1).summary();
        try (OneInputStreamOperatorTestHarness<PacketSummary, PacketSummary> h =
                new OneInputStreamOperatorTestHarness<>(new DropClockMarksOperator())) {
            h.open();
            h.processElement(new StreamRecord<>(packet, 1_000));
            h.processElement(new StreamRecord<>(mark, 2_000));
            assertThat(h.extractOutputValues()).containsExactly(packet);
        }
    }

    @Test
    void theEndOfTheInputSendsTheFinalWatermarkAfterIdleness() throws Exception {
        try (OneInputStreamOperatorTestHarness<PacketSummary, PacketSummary> h =
                new OneInputStreamOperatorTestHarness<>(new DropClockMarksOperator())) {
            h.open();
            h.processWatermark(new Watermark(1_000));
            h.processWatermarkStatus(WatermarkStatus.IDLE);
            h.endInput();
            List<Object> out = new ArrayList<>(h.getOutput());
            assertThat(out).last().isEqualTo(Watermark.MAX_WATERMARK);
            int idle = out.lastIndexOf(WatermarkStatus.IDLE);
            assertThat(idle).isNotNegative();
            assertThat(out.subList(idle, out.size())).contains(WatermarkStatus.ACTIVE);
        }
    }

    @Test
    void theFinalWatermarkGoesOutOnceWhenTheSourceSentIt() throws Exception {
        try (OneInputStreamOperatorTestHarness<PacketSummary, PacketSummary> h =
                new OneInputStreamOperatorTestHarness<>(new DropClockMarksOperator())) {
            h.open();
            h.processWatermark(Watermark.MAX_WATERMARK);
            h.endInput();
            assertThat(h.getOutput().stream().filter(Watermark.MAX_WATERMARK::equals).count())
                    .isEqualTo(1);
        }
    }
}
