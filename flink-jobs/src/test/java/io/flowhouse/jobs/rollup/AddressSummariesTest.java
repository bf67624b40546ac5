// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Harness tests of the bounded talker summaries: firing at the window end per resolution, one
 * re-firing at the next watermark for late pieces, the finest window's lateness for every
 * resolution, a restore from a snapshot, and state and timers back to zero.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class AddressSummariesTest {

    private static final long MINUTE = 60_000L;
    private static final long T0 = 1_705_320_000_000L; // 2024-01-15 12:00:00 UTC
    private static final IpAddress EXPORTER = IpAddress.parse("192.0.2.1");
    private static final IpAddress A = IpAddress.parse("198.51.100.1");
    private static final IpAddress B = IpAddress.parse("198.51.100.2");
    private static final IpAddress C = IpAddress.parse("2001:db8::3");
    private static final OutputTag<RollupRow> ONE =
            new OutputTag<>("one", RollupRowTypeInfo.INSTANCE);
    private static final OutputTag<RollupRow> TEN =
            new OutputTag<>("ten", RollupRowTypeInfo.INSTANCE);
    private static final OutputTag<RollupRow> LATE =
            new OutputTag<>("late", RollupRowTypeInfo.INSTANCE);

    private static KeyedOneInputStreamOperatorTestHarness<RollupKey, RollupRow, Void> harness(
            OperatorSubtaskState snapshot) throws Exception {
        return harness(snapshot, operator());
    }

    private static AddressSummaries operator() {
        return new AddressSummaries(
                new long[] {MINUTE, 10 * MINUTE}, 2 * MINUTE, 2, 8, List.of(ONE, TEN), LATE);
    }

    private static KeyedOneInputStreamOperatorTestHarness<RollupKey, RollupRow, Void> harness(
            OperatorSubtaskState snapshot, AddressSummaries op) throws Exception {
        return harness(snapshot, op, false);
    }

    private static KeyedOneInputStreamOperatorTestHarness<RollupKey, RollupRow, Void> harness(
            OperatorSubtaskState snapshot, AddressSummaries op, boolean rocksDb) throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        op, new RollupKey.OfShard(1), RollupKeyTypeInfo.INSTANCE);
        if (rocksDb) {
            h.setStateBackend(new EmbeddedRocksDBStateBackend());
        }
        h.setup();
        if (snapshot != null) {
            h.initializeState(snapshot);
        }
        h.open();
        return h;
    }

    private static RollupRow talker(long window, IpAddress a, long bytes) {
        return new RollupRow(
                RollupKind.TALKER.code(),
                window,
                EXPORTER,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                a,
                IpAddress.UNSPECIFIED,
                bytes,
                1,
                1,
                0);
    }

    /** Side output rows as "window-offset-min address bytes", then cleared. */
    private static List<String> drain(
            KeyedOneInputStreamOperatorTestHarness<RollupKey, RollupRow, Void> h,
            OutputTag<RollupRow> tag) {
        var q = h.getSideOutput(tag);
        if (q == null) {
            return List.of();
        }
        List<String> out =
                q.stream()
                        .map(StreamRecord::getValue)
                        .map(
                                r ->
                                        (r.windowStart() - T0) / MINUTE
                                                + " "
                                                + r.srcAddr()
                                                + " "
                                                + r.bytes()
                                                + (r.bytesError() == 0 ? "" : "~"))
                        .toList();
        q.clear();
        return out;
    }

    @Test
    void firesPerResolutionRefiresOnceForLatePiecesAndClearsEverything() throws Exception {
        AddressSummaries op = operator();
        try (var h = harness(null, op)) {
            long w4 = T0 + 4 * MINUTE;
            h.processElement(talker(w4, A, 100), w4);
            h.processElement(talker(w4, B, 50), w4);
            h.processElement(talker(w4, C, 10), w4);
            h.processWatermark(w4 + MINUTE - 1);
            assertThat(drain(h, ONE)).containsExactly("4 198.51.100.1 100", "4 198.51.100.2 50");
            assertThat(drain(h, TEN)).isEmpty();

            // Late for 12:04 but within the 2 min allowance: nothing until the next watermark,
            // then one re-firing with the complete counts.
            h.processWatermark(w4 + MINUTE + 30_000);
            h.processElement(talker(w4, C, 60), w4);
            h.processElement(talker(w4, C, 35), w4);
            assertThat(drain(h, ONE)).isEmpty();
            h.processWatermark(w4 + MINUTE + 31_000);
            assertThat(drain(h, ONE)).containsExactly("4 2001:db8::3 105", "4 198.51.100.1 100");

            // 12:00 ended 3.5 min ago: past the 1-minute allowance, so late for 10 min too.
            h.processElement(talker(T0, A, 7), T0);
            assertThat(drain(h, LATE)).containsExactly("0 198.51.100.1 7");

            h.processWatermark(T0 + 10 * MINUTE - 1);
            assertThat(drain(h, TEN)).containsExactly("0 2001:db8::3 105", "0 198.51.100.1 100");
            assertThat(drain(h, ONE)).isEmpty();
            // A checkpoint writes the open summaries to keyed state; closing them clears both.
            assertThat(op.openSummaries()).isEqualTo(1); // 12:00-12:10; 12:04 closed at 12:07
            h.snapshot(1, 1);
            assertThat(h.numKeyedStateEntries()).isPositive();
            h.processWatermark(T0 + 12 * MINUTE - 1);
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
            assertThat(op.openSummaries()).isZero();
        }
    }

    @Test
    void aRestoredOperatorFiresWhatTheSnapshotHeld() throws Exception {
        OperatorSubtaskState snapshot;
        long w4 = T0 + 4 * MINUTE;
        try (var h = harness(null)) {
            h.processElement(talker(w4, A, 100), w4);
            h.processElement(talker(w4, B, 50), w4);
            snapshot = h.snapshot(1, 1);
        }
        AddressSummaries op = operator();
        try (var h = harness(snapshot, op)) {
            assertThat(op.openSummaries()).isZero();
            h.processElement(talker(w4, B, 70), w4);
            h.processWatermark(T0 + 10 * MINUTE - 1);
            assertThat(drain(h, ONE)).containsExactly("4 198.51.100.2 120", "4 198.51.100.1 100");
            assertThat(drain(h, TEN)).containsExactly("0 198.51.100.2 120", "0 198.51.100.1 100");
            h.processWatermark(T0 + 12 * MINUTE - 1);
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
            assertThat(op.openSummaries()).isZero();
        }
    }

    /**
     * Timers of a restored key fire from state alone, without a new piece for it; on the heap and
     * on RocksDB (where state holds serialized copies, written at the checkpoint).
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aRestoredKeyFiresWithoutNewPieces(boolean rocksDb) throws Exception {
        OperatorSubtaskState snapshot;
        long w4 = T0 + 4 * MINUTE;
        try (var h = harness(null, operator(), rocksDb)) {
            h.processElement(talker(w4, A, 100), w4);
            h.processWatermark(w4 + MINUTE - 1);
            drain(h, ONE);
            h.processElement(talker(w4, C, 300), w4); // late, in time: re-fires at the next mark
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness(snapshot, operator(), rocksDb)) {
            h.processWatermark(w4 + MINUTE);
            assertThat(drain(h, ONE)).containsExactly("4 2001:db8::3 300", "4 198.51.100.1 100");
            h.processWatermark(T0 + 10 * MINUTE - 1);
            assertThat(drain(h, TEN)).containsExactly("0 2001:db8::3 300", "0 198.51.100.1 100");
            h.processWatermark(T0 + 12 * MINUTE - 1);
            if (!rocksDb) { // the harness counts entries of the heap backend only
                assertThat(h.numKeyedStateEntries()).isZero();
            }
            assertThat(h.numEventTimeTimers()).isZero();
        }
    }

    @Test
    void aboveTheCapacityRowsCarryTheirError() throws Exception {
        try (var h = harness(null)) {
            long w = T0;
            for (int i = 1; i <= 20; i++) {
                IpAddress a = IpAddress.parse("203.0.113." + i);
                h.processElement(talker(w, a, i), w);
            }
            h.processElement(talker(w, A, 1_000), w);
            h.processWatermark(w + MINUTE - 1);
            // A came after 8 addresses filled the summary: it inherits the smallest count.
            List<String> rows = drain(h, ONE);
            assertThat(rows).hasSize(2);
            assertThat(rows.get(0)).startsWith("0 198.51.100.1 ").endsWith("~");
        }
    }
}
