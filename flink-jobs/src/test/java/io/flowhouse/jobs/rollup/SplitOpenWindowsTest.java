// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.Test;

/**
 * Harness tests of the splitter that knows the watermark: pieces of windows closed by the watermark
 * (held back by the out-of-orderness, plus the allowed lateness) go to the side output and are
 * counted; the others are the plain splitter's pieces, unchanged.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class SplitOpenWindowsTest {

    private static final long MINUTE = 60_000L;
    private static final long T0 = 1_705_320_000_000L; // 2024-01-15 12:00:00 UTC
    private static final long DELAY = 10_000L;
    private static final long LATENESS = 2 * MINUTE;
    private static final OutputTag<RollupRow> LATE =
            new OutputTag<>("late", RollupRowTypeInfo.INSTANCE);

    private static FlowRecord flow(long start, long end, long bytes) {
        return FlowRecord.builder()
                .version(10)
                .exporterAddress(IpAddress.parse("192.0.2.10"))
                .flowStartMillis(start)
                .flowEndMillis(end)
                .timeReceivedMillis(end)
                .srcAddr(IpAddress.parse("198.51.100.1"))
                .dstAddr(IpAddress.parse("203.0.113.7"))
                .protocol(6)
                .dstPort(443)
                .inputInterface(1)
                .outputInterface(2)
                .bytes(bytes)
                .packets(bytes / 100)
                .build();
    }

    private static OneInputStreamOperatorTestHarness<FlowRecord, RollupRow> harness(
            boolean dropLate) throws Exception {
        var h =
                new OneInputStreamOperatorTestHarness<>(
                        new SplitOpenWindows(MINUTE, DELAY, LATENESS, LATE, dropLate));
        h.open();
        return h;
    }

    private static List<RollupRow> plain(FlowRecord f) {
        List<RollupRow> all = new ArrayList<>();
        new FlowSplitter(MINUTE).flatMap(f, new ListCollector<>(all));
        return all;
    }

    private static List<RollupRow> late(OneInputStreamOperatorTestHarness<?, RollupRow> h) {
        var q = h.getSideOutput(LATE);
        return q == null ? List.of() : q.stream().map(StreamRecord::getValue).toList();
    }

    @Test
    void piecesOfClosedWindowsGoToTheSideOutputAndAreCounted() throws Exception {
        // 12:00:30-12:04:30: five 1-minute windows, 12:00 to 12:04.
        FlowRecord f = flow(T0 + 30_000, T0 + 4 * MINUTE + 30_000, 4_000);
        try (var h = harness(true)) {
            // The windows' watermark: 12:05:10 - 10 s = 12:05. A window is closed when its end
            // - 1 ms + 2 min <= 12:05: 12:00, 12:01 and 12:02 (12:02:59.999 + 2 min < 12:05).
            h.processWatermark(new Watermark(T0 + 5 * MINUTE + DELAY));
            h.processElement(f, f.timeReceivedMillis());
            List<RollupRow> open = h.extractOutputValues();
            List<RollupRow> late = late(h);
            assertThat(late)
                    .hasSize(18)
                    .extracting(RollupRow::windowStart)
                    .containsOnly(T0, T0 + MINUTE, T0 + 2 * MINUTE);
            assertThat(open)
                    .hasSize(12)
                    .extracting(RollupRow::windowStart)
                    .containsOnly(T0 + 3 * MINUTE, T0 + 4 * MINUTE);
            List<RollupRow> both = new ArrayList<>(late);
            both.addAll(open);
            assertThat(both).containsExactlyInAnyOrderElementsOf(plain(f));
            assertThat(((SplitOpenWindows) h.getOperator()).latePieces()).isEqualTo(18);
        }
    }

    @Test
    void theWindowEndingAtTheWatermarkIsClosedTheNextOneIsNot() throws Exception {
        FlowRecord f = flow(T0 + 30_000, T0 + MINUTE + 30_000, 600);
        try (var h = harness(true)) {
            // 12:00 closes at 12:00:59.999 + 2 min: the windows' watermark exactly there.
            h.processWatermark(new Watermark(T0 + MINUTE - 1 + LATENESS + DELAY));
            h.processElement(f, f.timeReceivedMillis());
            assertThat(late(h)).hasSize(6).allMatch(r -> r.windowStart() == T0);
            assertThat(h.extractOutputValues())
                    .hasSize(6)
                    .allMatch(r -> r.windowStart() == T0 + MINUTE);
        }
    }

    @Test
    void nothingIsLateBeforeTheFirstWatermarkOrWhenNotDropping() throws Exception {
        FlowRecord f = flow(T0, T0 + 3 * MINUTE, 3_000);
        try (var h = harness(true)) {
            h.processElement(f, f.timeReceivedMillis());
            assertThat(late(h)).isEmpty();
            assertThat(h.extractOutputValues()).containsExactlyElementsOf(plain(f));
        }
        try (var h = harness(false)) {
            h.processWatermark(new Watermark(T0 + 60 * MINUTE));
            h.processElement(f, f.timeReceivedMillis());
            assertThat(late(h)).isEmpty();
            assertThat(h.extractOutputValues()).containsExactlyElementsOf(plain(f));
        }
    }

    @Test
    void aFlowOfTenYearsMakesAtMostTheBoundOfWindows() throws Exception {
        long tenYears = 3_650L * 24 * 60 * MINUTE;
        FlowRecord f = flow(T0 - tenYears, T0, 1_000_000);
        try (var h = harness(true)) {
            h.processWatermark(new Watermark(T0 + DELAY));
            h.processElement(f, f.timeReceivedMillis());
            // 1,440 windows before the end's and the end's; all but the last three closed.
            assertThat(late(h).size() + h.extractOutputValues().size())
                    .isEqualTo(6 * (int) (FlowSplitter.MAX_WINDOWS + 1));
            assertThat(h.extractOutputValues()).hasSize(6 * 3);
        }
    }
}
