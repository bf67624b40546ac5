// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.windowing.triggers.EventTimeTrigger;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.streaming.runtime.operators.windowing.WindowOperatorBuilder;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The ranking windows on a real window operator (harness): one ranking when the watermark passes
 * the window end, and for any number of late rows one more ranking at the next watermark (Flink's
 * event-time trigger, for contrast, ranks again per late row); rows beyond the allowed lateness
 * make none; the pending late firing survives a snapshot and restore.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class RowWindowsTest {

    private static final long MINUTE = 60_000L;
    private static final long T0 = 1_705_320_000_000L; // 2024-01-15 12:00:00 UTC
    private static final IpAddress EXPORTER = IpAddress.parse("192.0.2.1");
    private static final int TOP = 3;

    private static KeyedOneInputStreamOperatorTestHarness<RollupKey, RollupRow, RollupRow> harness(
            Trigger<Object, TimeWindow> trigger, OperatorSubtaskState snapshot) throws Exception {
        TypeInformation<List<RollupRow>> topType = Types.LIST(RollupRowTypeInfo.INSTANCE);
        WindowOperatorBuilder<RollupRow, RollupKey, TimeWindow> b =
                new WindowOperatorBuilder<>(
                        new RowWindows(MINUTE),
                        trigger,
                        new ExecutionConfig(),
                        RollupRowTypeInfo.INSTANCE,
                        new RollupKey.OfRanking(),
                        RollupKeyTypeInfo.INSTANCE);
        b.allowedLateness(Duration.ofMinutes(2));
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        b.aggregate(new TopN(TOP), new EmitRanking(), topType),
                        new RollupKey.OfRanking(),
                        RollupKeyTypeInfo.INSTANCE);
        h.setup();
        if (snapshot != null) {
            h.initializeState(snapshot);
        }
        h.open();
        return h;
    }

    /** A talker row of window T0 as AddressSummaries sends it, stamped with its firing time. */
    private static void talker(
            KeyedOneInputStreamOperatorTestHarness<RollupKey, RollupRow, RollupRow> h,
            int host,
            long bytes,
            long firedAt)
            throws Exception {
        talker(h, host, bytes, 1, firedAt);
    }

    private static void talker(
            KeyedOneInputStreamOperatorTestHarness<RollupKey, RollupRow, RollupRow> h,
            int host,
            long bytes,
            long packets,
            long firedAt)
            throws Exception {
        RollupRow r =
                new RollupRow(
                        RollupKind.TALKER.code(),
                        T0,
                        EXPORTER,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        IpAddress.parse("198.51.100." + host),
                        IpAddress.UNSPECIFIED,
                        bytes,
                        packets,
                        1,
                        bytes + packets + 1);
        h.processElement(r, firedAt);
    }

    /** The output as "rank:host:bytes", then cleared. */
    private static List<String> drain(
            KeyedOneInputStreamOperatorTestHarness<RollupKey, RollupRow, RollupRow> h) {
        List<String> out =
                h.extractOutputValues().stream()
                        .peek(r -> assertThat(r.kind()).isEqualTo(RollupKind.TOP_TALKER.code()))
                        .peek(r -> assertThat(r.windowStart()).isEqualTo(T0))
                        .map(
                                r ->
                                        r.rank()
                                                + ":"
                                                + r.srcAddr().toString().substring(11)
                                                + ":"
                                                + r.bytes())
                        .toList();
        h.getOutput().clear();
        return out;
    }

    /** Five talkers on time, then all five again late with 100 more bytes each. */
    private static void onTimeThenFiveLate(
            KeyedOneInputStreamOperatorTestHarness<RollupKey, RollupRow, RollupRow> h)
            throws Exception {
        for (int host = 1; host <= 5; host++) {
            talker(h, host, host * 10L, T0 + MINUTE);
        }
        h.processWatermark(T0 + MINUTE - 1);
        assertThat(drain(h)).containsExactly("1:5:50", "2:4:40", "3:3:30");
        for (int host = 1; host <= 5; host++) {
            talker(h, host, 100 + host * 10L, T0 + MINUTE + 30_000);
        }
    }

    @Test
    void lateRowsMakeOneRankingAtTheNextWatermark() throws Exception {
        try (var h = harness(WatermarkBatchedTrigger.create(), null)) {
            onTimeThenFiveLate(h);
            assertThat(drain(h)).isEmpty();
            h.processWatermark(T0 + MINUTE + 30_000);
            assertThat(drain(h)).containsExactly("1:5:150", "2:4:140", "3:3:130");
            h.processWatermark(T0 + 2 * MINUTE);
            assertThat(drain(h)).isEmpty();
        }
    }

    /**
     * A late row gives rank 2 to a talker with more bytes but far fewer packets. The table keeps,
     * per rank, the row of the highest version (the one written last among equals), so the versions
     * at each rank must not shrink; with bytes + packets + flows they would have (1,501 then
     * 1,003), leaving host 1 at ranks 2 and 3 and host 3 nowhere.
     */
    @Test
    void aRanksVersionNeverShrinksSoTheTableKeepsTheLatestRanking() throws Exception {
        try (var h = harness(WatermarkBatchedTrigger.create(), null)) {
            talker(h, 1, 1_000, 500, T0 + MINUTE);
            talker(h, 2, 5_000, 10, T0 + MINUTE);
            h.processWatermark(T0 + MINUTE - 1);
            talker(h, 3, 1_001, 1, T0 + MINUTE + 30_000);
            h.processWatermark(T0 + MINUTE + 30_000);
            java.util.Map<Integer, RollupRow> table = new java.util.TreeMap<>();
            for (RollupRow r : h.extractOutputValues()) {
                table.merge(
                        r.rank(),
                        r,
                        (kept, next) -> next.version() >= kept.version() ? next : kept);
            }
            assertThat(table.values())
                    .extracting(r -> r.srcAddr().toString(), RollupRow::bytes)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("198.51.100.2", 5_000L),
                            org.assertj.core.groups.Tuple.tuple("198.51.100.3", 1_001L),
                            org.assertj.core.groups.Tuple.tuple("198.51.100.1", 1_000L));
        }
    }

    @Test
    void theEventTimeTriggerRanksAgainPerLateRow() throws Exception {
        try (var h = harness(EventTimeTrigger.create(), null)) {
            onTimeThenFiveLate(h);
            assertThat(drain(h)).hasSize(5 * TOP).endsWith("1:5:150", "2:4:140", "3:3:130");
        }
    }

    @Test
    void rowsBeyondTheLatenessMakeNoRankingAndStateIsCleared() throws Exception {
        try (var h = harness(WatermarkBatchedTrigger.create(), null)) {
            onTimeThenFiveLate(h);
            h.processWatermark(T0 + 3 * MINUTE); // past the window end plus 2 min lateness
            assertThat(drain(h)).containsExactly("1:5:150", "2:4:140", "3:3:130");
            talker(h, 6, 1_000, T0 + 3 * MINUTE);
            h.processWatermark(T0 + 4 * MINUTE);
            assertThat(drain(h)).isEmpty();
            assertThat(h.numEventTimeTimers()).isZero();
            assertThat(h.numKeyedStateEntries()).isZero();
        }
    }

    @Test
    void aPendingLateFiringSurvivesRestore() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness(WatermarkBatchedTrigger.create(), null)) {
            onTimeThenFiveLate(h);
            snapshot = h.snapshot(1L, T0 + 2 * MINUTE);
        }
        try (var h = harness(WatermarkBatchedTrigger.create(), snapshot)) {
            h.processWatermark(T0 + MINUTE + 30_000);
            assertThat(drain(h)).containsExactly("1:5:150", "2:4:140", "3:3:130");
        }
    }
}
