// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.flow.IpAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * Harness tests of the local pre-aggregation: sums per bucket, everything out before each
 * watermark, each checkpoint barrier, on idleness and at the end of input; late pieces one by one.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class PieceCombinerTest {

    private static final long MINUTE = 60_000L;
    private static final long T0 = 1_705_320_000_000L; // 2024-01-15 12:00:00 UTC
    private static final IpAddress EXPORTER = IpAddress.parse("192.0.2.1");

    private static OneInputStreamOperatorTestHarness<RollupRow, RollupRow> harness(
            long lateness, int buckets) throws Exception {
        OneInputStreamOperatorTestHarness<RollupRow, RollupRow> h =
                new OneInputStreamOperatorTestHarness<>(
                        new PieceCombiner(MINUTE, lateness, buckets));
        h.open();
        return h;
    }

    private static RollupRow piece(long window, long iface, long bytes, long flows) {
        return new RollupRow(
                RollupKind.INTERFACE.code(),
                window,
                EXPORTER,
                iface,
                0,
                0,
                0,
                0,
                0,
                0,
                IpAddress.UNSPECIFIED,
                IpAddress.UNSPECIFIED,
                bytes,
                bytes / 100,
                flows,
                0);
    }

    private static void add(OneInputStreamOperatorTestHarness<RollupRow, RollupRow> h, RollupRow r)
            throws Exception {
        h.processElement(r, r.windowStart());
    }

    /** Rows emitted so far, sorted by window and interface; watermarks as "W" + timestamp. */
    private static List<String> output(OneInputStreamOperatorTestHarness<RollupRow, RollupRow> h) {
        List<String> out = new ArrayList<>();
        List<RollupRow> batch = new ArrayList<>();
        ConcurrentLinkedQueue<Object> q = h.getOutput();
        for (Object o : q) {
            if (o instanceof StreamRecord<?> sr) {
                RollupRow r = (RollupRow) sr.getValue();
                assertThat(sr.getTimestamp()).isEqualTo(r.windowStart());
                batch.add(r);
            } else if (o instanceof Watermark w) {
                flushSorted(batch, out);
                out.add("W" + (w.getTimestamp() - T0));
            }
        }
        flushSorted(batch, out);
        q.clear();
        return out;
    }

    private static void flushSorted(List<RollupRow> batch, List<String> out) {
        batch.sort(
                Comparator.comparingLong(RollupRow::windowStart)
                        .thenComparingLong(RollupRow::iface));
        for (RollupRow r : batch) {
            out.add(
                    (r.windowStart() - T0) / MINUTE
                            + "m if"
                            + r.iface()
                            + " b"
                            + r.bytes()
                            + " p"
                            + r.packets()
                            + " f"
                            + r.flows());
        }
        batch.clear();
    }

    @Test
    void sumsPiecesOfABucketAndSendsThemBeforeTheWatermark() throws Exception {
        try (var h = harness(10 * MINUTE, 1000)) {
            add(h, piece(T0, 1, 1000, 1));
            add(h, piece(T0, 1, 500, 0));
            add(h, piece(T0, 2, 300, 1));
            add(h, piece(T0 + MINUTE, 1, 200, 1));
            assertThat(output(h)).isEmpty();
            h.processWatermark(new Watermark(T0 + 30_000));
            assertThat(output(h))
                    .containsExactly(
                            "0m if1 b1500 p15 f1",
                            "0m if2 b300 p3 f1",
                            "1m if1 b200 p2 f1",
                            "W30000");
            add(h, piece(T0 + MINUTE, 1, 100, 1));
            h.processWatermark(new Watermark(T0 + 40_000));
            assertThat(output(h)).containsExactly("1m if1 b100 p1 f1", "W40000");
        }
    }

    @Test
    void checkpointBarrierEmptiesTheBufferSoNothingIsInFlightOrInState() throws Exception {
        try (var h = harness(10 * MINUTE, 1000)) {
            add(h, piece(T0, 1, 1000, 1));
            add(h, piece(T0, 1, 1000, 1));
            h.prepareSnapshotPreBarrier(1L);
            assertThat(output(h)).containsExactly("0m if1 b2000 p20 f2");
            var snapshot = h.snapshot(1L, T0);
            add(h, piece(T0, 1, 7, 1));
            h.prepareSnapshotPreBarrier(2L);
            assertThat(output(h)).containsExactly("0m if1 b7 p0 f1");
            // Nothing buffered is lost on restore: the combiner keeps no state.
            try (var restored =
                    new OneInputStreamOperatorTestHarness<RollupRow, RollupRow>(
                            new PieceCombiner(MINUTE, 10 * MINUTE, 1000))) {
                restored.initializeState(snapshot);
                restored.open();
                restored.endInput();
                assertThat(output(restored)).isEmpty();
            }
        }
    }

    @Test
    void piecesPastTheLatenessPassOneByOneSoTheWindowCountsEach() throws Exception {
        try (var h = harness(2 * MINUTE, 1000)) {
            h.processWatermark(new Watermark(T0 + 3 * MINUTE - 1)); // window 0 closes for good
            output(h);
            add(h, piece(T0, 1, 10, 1));
            add(h, piece(T0, 1, 20, 1));
            // window 1 (ends 2 min) is within the 2-minute lateness: combined
            add(h, piece(T0 + MINUTE, 1, 30, 1));
            add(h, piece(T0 + MINUTE, 1, 40, 1));
            assertThat(output(h)).containsExactly("0m if1 b10 p0 f1", "0m if1 b20 p0 f1");
            h.endInput();
            assertThat(output(h)).containsExactly("1m if1 b70 p0 f2");
        }
    }

    @Test
    void fullBufferAndIdleInputAlsoEmptyIt() throws Exception {
        try (var h = harness(10 * MINUTE, 2)) {
            add(h, piece(T0, 1, 100, 1));
            add(h, piece(T0, 1, 100, 1));
            assertThat(output(h)).isEmpty();
            add(h, piece(T0, 2, 100, 1)); // second bucket: full
            assertThat(output(h)).containsExactly("0m if1 b200 p2 f2", "0m if2 b100 p1 f1");
            add(h, piece(T0, 3, 100, 1));
            h.processWatermarkStatus(WatermarkStatus.IDLE);
            assertThat(output(h)).containsExactly("0m if3 b100 p1 f1");
        }
    }

    @Test
    void sumsEqualTheInputExactly() throws Exception {
        try (var h = harness(10 * MINUTE, 100)) {
            long bytes = 0;
            long flows = 0;
            for (int i = 0; i < 10_000; i++) {
                long b = 1 + (i * 7919L) % 100_000;
                long f = i % 3 == 0 ? 1 : 0;
                add(h, piece(T0 + (i % 5) * MINUTE, i % 11, b, f));
                bytes += b;
                flows += f;
                if (i % 997 == 0) {
                    h.processWatermark(new Watermark(T0 + i));
                }
            }
            h.prepareSnapshotPreBarrier(1L);
            long outBytes = 0;
            long outFlows = 0;
            int rows = 0;
            for (RollupRow r : h.extractOutputValues()) {
                outBytes += r.bytes();
                outFlows += r.flows();
                rows++;
            }
            assertThat(outBytes).isEqualTo(bytes);
            assertThat(outFlows).isEqualTo(flows);
            assertThat(rows).isLessThan(10_000 / 5);
        }
    }

    /**
     * Pieces drawn from few values of every bucket field (so each field alone tells some buckets
     * apart, and the old key's 31-polynomial hash collided often) are summed exactly as grouping
     * them by all their bucket fields does.
     */
    @Test
    void sumsThePiecesOfEqualBucketFieldsAndNoOthers() throws Exception {
        IpAddress[] addrs = {
            EXPORTER,
            IpAddress.parse("192.0.2.2"),
            IpAddress.parse("2001:db8::1"),
            IpAddress.parse("2001:db8::1:0:0:1"),
            IpAddress.UNSPECIFIED
        };
        SplittableRandom rnd = new SplittableRandom(5);
        Map<List<Object>, long[]> expected = new HashMap<>();
        // 2^9 x 3 x 3 buckets, about four pieces each, one flush (at the end).
        try (var h = harness(10 * MINUTE, 100_000)) {
            for (int i = 0; i < 20_000; i++) {
                RollupRow r =
                        new RollupRow(
                                1 + rnd.nextInt(2),
                                T0 + rnd.nextInt(2) * MINUTE,
                                addrs[rnd.nextInt(2)],
                                rnd.nextInt(2),
                                rnd.nextInt(2),
                                rnd.nextInt(2) * 6,
                                rnd.nextInt(2) * 31,
                                64_500 + rnd.nextInt(2),
                                64_500 + rnd.nextInt(2) * 31,
                                0,
                                addrs[2 + rnd.nextInt(3)],
                                addrs[2 + rnd.nextInt(3)],
                                1 + rnd.nextInt(1000),
                                1 + rnd.nextInt(10),
                                rnd.nextInt(2),
                                0);
                add(h, r);
                long[] sums = expected.computeIfAbsent(bucketKey(r), k -> new long[3]);
                sums[0] += r.bytes();
                sums[1] += r.packets();
                sums[2] += r.flows();
            }
            h.endInput();
            Map<List<Object>, long[]> actual = new HashMap<>();
            for (RollupRow r : h.extractOutputValues()) {
                List<Object> key = bucketKey(r);
                assertThat(actual.put(key, new long[] {r.bytes(), r.packets(), r.flows()}))
                        .as("one row per bucket")
                        .isNull();
            }
            assertThat(actual).hasSameSizeAs(expected);
            expected.forEach((k, v) -> assertThat(actual.get(k)).as("%s", k).containsExactly(v));
        }
    }

    @Test
    void rejectsBadSettings() {
        assertThatThrownBy(() -> new PieceCombiner(0, 0, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PieceCombiner(MINUTE, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PieceCombiner(MINUTE, 0, BucketTable.MAX_BUCKETS + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Every key field of a piece: pieces with equal keys are one bucket. */
    private static List<Object> bucketKey(RollupRow r) {
        return List.of(
                r.kind(),
                r.windowStart(),
                r.exporter(),
                r.iface(),
                r.direction(),
                r.protocol(),
                r.port(),
                r.srcAs(),
                r.dstAs(),
                r.srcAddr(),
                r.dstAddr());
    }
}
