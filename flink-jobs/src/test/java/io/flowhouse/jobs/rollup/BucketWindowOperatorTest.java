// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.triggers.EventTimeTrigger;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.streaming.runtime.operators.windowing.WindowOperatorBuilder;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.Test;

/**
 * The bucket windows with one timer per bucket ({@link BucketWindowOperator}) against Flink's
 * window operator as {@code .window(tumbling).allowedLateness(..).aggregate(..)} builds it, on the
 * same random pieces (on time, late within the allowed lateness, beyond it; watermarks in random
 * steps): the same rows with the same versions, the same deltas and late pieces, in the same order
 * per bucket (across buckets firing at the same time the order follows the timer queue, which holds
 * other timers); fewer timers (one per bucket, not two before the window's end); no timer and no
 * state left at the end; and a snapshot of either restores into the other with the same output from
 * there on (restored into Flink's operator, a window that got no piece after the restore would keep
 * its state: that operator registers the cleanup timer per piece).
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class BucketWindowOperatorTest {

    private static final long MINUTE = 60_000L;
    private static final long T0 = 1_705_320_000_000L; // 2024-01-15 12:00:00 UTC
    private static final Duration LATENESS = Duration.ofMinutes(3);
    private static final OutputTag<RollupRow> LATE =
            new OutputTag<>("late", RollupRowTypeInfo.INSTANCE);
    private static final OutputTag<RollupRow> DELTAS =
            new OutputTag<>("deltas", RollupRowTypeInfo.INSTANCE);

    private static OneInputStreamOperator<RollupRow, RollupRow> standard() {
        WindowOperatorBuilder<RollupRow, RollupKey, TimeWindow> b =
                new WindowOperatorBuilder<>(
                        TumblingEventTimeWindows.of(Duration.ofMillis(MINUTE)),
                        EventTimeTrigger.create(),
                        new ExecutionConfig(),
                        RollupRowTypeInfo.INSTANCE,
                        new RollupKey.OfRow(),
                        RollupKeyTypeInfo.INSTANCE);
        b.allowedLateness(LATENESS);
        b.sideOutputLateData(LATE);
        return b.aggregate(
                new SumCounters<RollupRow>(),
                new EmitRollup(DELTAS),
                RollupCountersTypeInfo.INSTANCE);
    }

    private static OneInputStreamOperator<RollupRow, RollupRow> oneTimer() {
        return BucketWindowOperator.of(
                Duration.ofMillis(MINUTE), LATENESS, LATE, new EmitRollup(DELTAS));
    }

    private static KeyedOneInputStreamOperatorTestHarness<RollupKey, RollupRow, RollupRow> harness(
            OneInputStreamOperator<RollupRow, RollupRow> op, OperatorSubtaskState snapshot)
            throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        op, new RollupKey.OfRow(), RollupKeyTypeInfo.INSTANCE);
        h.setup();
        if (snapshot != null) {
            h.initializeState(snapshot);
        }
        h.open();
        return h;
    }

    /** One step of the input: a piece (with its event time) or a watermark. */
    private record Step(RollupRow piece, long time) {}

    private static List<Step> steps(long seed, int n) {
        SplittableRandom r = new SplittableRandom(seed);
        IpAddress exporter = IpAddress.parse("192.0.2.1");
        List<Step> out = new ArrayList<>();
        long watermark = T0;
        for (int i = 0; i < n; i++) {
            if (r.nextInt(8) == 0) {
                watermark += r.nextLong(90_000);
                out.add(new Step(null, watermark));
                continue;
            }
            // Windows from 6 minutes behind the watermark (beyond the lateness) to 2 ahead.
            long start = ((watermark - T0) / MINUTE - 6 + r.nextInt(9)) * MINUTE + T0;
            long time = start + r.nextLong(MINUTE);
            long bytes = 1 + r.nextInt(1_500);
            RollupRow piece =
                    new RollupRow(
                            RollupKind.INTERFACE.code(),
                            start,
                            exporter,
                            r.nextInt(6),
                            r.nextInt(2),
                            0,
                            0,
                            0,
                            0,
                            0,
                            IpAddress.UNSPECIFIED,
                            IpAddress.UNSPECIFIED,
                            bytes,
                            1,
                            1,
                            0,
                            0);
            out.add(new Step(piece, time));
        }
        out.add(new Step(null, Long.MAX_VALUE));
        return out;
    }

    /**
     * What an operator made, per output and bucket (key and window): rows, deltas and late pieces
     * with their timestamps, in the order made.
     */
    private static Map<String, List<String>> run(
            KeyedOneInputStreamOperatorTestHarness<RollupKey, RollupRow, RollupRow> h,
            List<Step> steps,
            long[] maxTimers)
            throws Exception {
        for (Step s : steps) {
            if (s.piece() == null) {
                h.processWatermark(s.time());
            } else {
                h.processElement(s.piece(), s.time());
            }
            maxTimers[0] = Math.max(maxTimers[0], h.numEventTimeTimers());
        }
        Map<String, List<String>> out = new TreeMap<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> rec) {
                add(out, "row", rec.getTimestamp(), (RollupRow) rec.getValue());
            }
        }
        for (StreamRecord<RollupRow> rec : h.getSideOutput(DELTAS)) {
            add(out, "delta", rec.getTimestamp(), rec.getValue());
        }
        var late = h.getSideOutput(LATE);
        for (StreamRecord<RollupRow> rec :
                late == null ? List.<StreamRecord<RollupRow>>of() : late) {
            add(out, "late", rec.getTimestamp(), rec.getValue());
        }
        return out;
    }

    private static void add(Map<String, List<String>> out, String what, long time, RollupRow r) {
        String bucket = what + " " + new RollupKey.OfRow().getKey(r) + " " + r.windowStart();
        out.computeIfAbsent(bucket, b -> new ArrayList<>()).add(time + " " + r);
    }

    @Test
    void sameRowsDeltasAndLatePiecesWithFewerTimers() throws Exception {
        for (long seed = 1; seed <= 5; seed++) {
            List<Step> steps = steps(seed, 4_000);
            long[] standardTimers = {0};
            long[] oneTimers = {0};
            Map<String, List<String>> expected;
            Map<String, List<String>> actual;
            try (var h = harness(standard(), null)) {
                expected = run(h, steps, standardTimers);
            }
            try (var h = harness(oneTimer(), null)) {
                actual = run(h, steps, oneTimers);
                assertThat(h.numEventTimeTimers()).isZero();
                assertThat(h.numKeyedStateEntries()).isZero();
            }
            assertThat(expected.keySet()).anyMatch(s -> s.startsWith("late "));
            assertThat(expected.keySet()).anyMatch(s -> s.startsWith("delta "));
            assertThat(expected.values()).anyMatch(rows -> rows.size() > 1); // late re-firings
            assertThat(actual).isEqualTo(expected);
            // A bucket before its window's end has one timer here, two there; after it, one in
            // both.
            assertThat(oneTimers[0]).isPositive().isLessThan(standardTimers[0]);
        }
    }

    @Test
    void snapshotsRestoreBothWays() throws Exception {
        List<Step> steps = steps(42, 4_000);
        List<Step> first = steps.subList(0, 2_000);
        List<Step> rest = steps.subList(2_000, steps.size());
        long[] ignored = {0};
        for (boolean fromStandard : new boolean[] {true, false}) {
            OperatorSubtaskState snapshot;
            try (var h = harness(fromStandard ? standard() : oneTimer(), null)) {
                run(h, first, ignored);
                snapshot = h.snapshot(1L, 0L);
            }
            Map<String, List<String>> expected;
            Map<String, List<String>> actual;
            try (var h = harness(standard(), snapshot)) {
                expected = run(h, rest, ignored);
            }
            try (var h = harness(oneTimer(), snapshot)) {
                actual = run(h, rest, ignored);
                assertThat(h.numEventTimeTimers()).isZero();
                assertThat(h.numKeyedStateEntries()).isZero();
            }
            assertThat(actual).as("restored from %s", fromStandard).isEqualTo(expected);
        }
    }
}
