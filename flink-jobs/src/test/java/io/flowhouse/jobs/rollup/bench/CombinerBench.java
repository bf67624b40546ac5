// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup.bench;

import io.flowhouse.jobs.enrich.EnrichedFlow;
import io.flowhouse.jobs.rollup.BucketBudget;
import io.flowhouse.jobs.rollup.ContextCombiner;
import io.flowhouse.jobs.rollup.ContextRow;
import io.flowhouse.jobs.rollup.ContextSplitter;
import io.flowhouse.jobs.rollup.FlowSplitter;
import io.flowhouse.jobs.rollup.PieceCombiner;
import io.flowhouse.jobs.rollup.RollupConfigKeys;
import io.flowhouse.jobs.rollup.RollupRow;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.flink.runtime.event.WatermarkEvent;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Component benchmark (not a test) of the rollups' local sums and bucket budget alone, with a flush
 * cadence that does not depend on the machine's load (unlike {@link ContextRollupBench}, whose
 * watermarks come every 200 ms of wall time, so a loaded machine makes smaller flushes). The
 * 1-minute pieces of {@link ContextRollupBench}'s flows (plain: {@link FlowSplitter}, context:
 * {@link ContextSplitter}) are made once, then each round pushes them through a fresh operator in
 * Flink's one-input test harness on this thread: {@link PieceCombiner} and {@link ContextCombiner}
 * emptied by a checkpoint barrier every {@code flush} flows' worth of pieces, and {@link
 * BucketBudget#ofRows}. The operator's output is swapped for one that only counts (the harness's
 * own copies every row with the reflective serializer, which costs more than the operators). It
 * prints this thread's CPU nanoseconds per piece, per operator and round.
 *
 * <pre>
 * java -Xmx2g -cp target/test-classes:target/classes:$(cat /tmp/fj.cp) \
 *     io.flowhouse.jobs.rollup.bench.CombinerBench 300000 4000 5
 * </pre>
 *
 * Arguments: flows (default 300,000), flows per flush (4,000), rounds (5).
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
public final class CombinerBench {

    private static final long MINUTE = Duration.ofMinutes(1).toMillis();

    private CombinerBench() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 300_000;
        int flush = args.length > 1 ? Integer.parseInt(args[1]) : 4_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        List<RollupRow> rows = new ArrayList<>();
        List<ContextRow> context = new ArrayList<>();
        FlowSplitter plain = new FlowSplitter(MINUTE);
        ContextSplitter enriched = new ContextSplitter(MINUTE);
        for (int i = 0; i < n; i++) {
            EnrichedFlow e = ContextRollupBench.flow(i, n);
            plain.flatMap(e.flow(), into(rows));
            enriched.flatMap(e, into(context));
        }
        System.out.printf(
                Locale.ROOT,
                "flows %,d: %,d plain pieces, %,d context pieces; a flush every %,d flows%n",
                n,
                rows.size(),
                context.size(),
                flush);
        int maxBuckets = RollupConfigKeys.COMBINE_BUCKETS.defaultValue();
        int budget = RollupConfigKeys.MAX_BUCKETS_PER_EXPORTER.defaultValue();
        long lateness = RollupConfigKeys.ALLOWED_LATENESS.defaultValue().toMillis();
        for (int r = 0; r < rounds; r++) {
            double plainNanos =
                    run(
                            new PieceCombiner(MINUTE, lateness, maxBuckets),
                            rows,
                            (long) flush * rows.size() / n);
            double contextNanos =
                    run(
                            new ContextCombiner(MINUTE, lateness, maxBuckets),
                            context,
                            (long) flush * context.size() / n);
            double budgetNanos =
                    run(BucketBudget.ofRows(MINUTE, lateness, budget), rows, Long.MAX_VALUE);
            System.out.printf(
                    Locale.ROOT,
                    "round %d  ns per piece: plain combiner %.1f  context combiner %.1f  "
                            + "plain budget %.1f  load %.1f%n",
                    r,
                    plainNanos,
                    contextNanos,
                    budgetNanos,
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }

    private static <T> Collector<T> into(List<T> list) {
        return new Collector<>() {
            @Override
            public void collect(T record) {
                list.add(record);
            }

            @Override
            public void close() {}
        };
    }

    /** Counts the rows, drops everything. */
    private static final class Discard<T> implements Output<StreamRecord<T>> {
        long rows;

        @Override
        public void collect(StreamRecord<T> record) {
            rows++;
        }

        @Override
        public <X> void collect(OutputTag<X> tag, StreamRecord<X> record) {
            rows++;
        }

        @Override
        public void emitWatermark(Watermark mark) {}

        @Override
        public void emitWatermarkStatus(WatermarkStatus status) {}

        @Override
        public void emitLatencyMarker(LatencyMarker marker) {}

        @Override
        public void emitRecordAttributes(RecordAttributes attributes) {}

        @Override
        public void emitWatermark(WatermarkEvent event) {}

        @Override
        public void close() {}
    }

    /** This thread's CPU ns per piece, a checkpoint barrier every {@code perFlush} pieces. */
    private static <T> double run(
            OneInputStreamOperator<T, T> operator, List<T> pieces, long perFlush) throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        try (OneInputStreamOperatorTestHarness<T, T> h =
                new OneInputStreamOperatorTestHarness<>(operator)) {
            h.open();
            Discard<T> out = new Discard<>();
            Field output = AbstractStreamOperator.class.getDeclaredField("output");
            output.setAccessible(true);
            output.set(operator, out);
            long checkpoint = 0;
            long t0 = mx.getCurrentThreadCpuTime();
            // Straight into the operator: the harness's own processElement costs more than a
            // combiner's look-up.
            StreamRecord<T> record = new StreamRecord<>(null);
            for (int i = 1; i <= pieces.size(); i++) {
                operator.processElement(record.replace(pieces.get(i - 1), 0L));
                if (i % perFlush == 0) {
                    h.prepareSnapshotPreBarrier(++checkpoint);
                }
            }
            h.endInput();
            long cpu = mx.getCurrentThreadCpuTime() - t0;
            if (out.rows == 0) {
                throw new IllegalStateException("no output");
            }
            return (double) cpu / pieces.size();
        }
    }
}
