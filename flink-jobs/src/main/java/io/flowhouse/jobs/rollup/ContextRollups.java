// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import java.io.Serializable;
import java.time.Duration;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The rollups of enriched flows: the plain rollups ({@link RollupTopology}) of the flows with the
 * AS numbers the enrich stage chose (those {@code flows} stores), and the context rollups ({@link
 * ContextRow}: interface names and boundaries, country pairs, boundary/protocol/AS) into {@code
 * flows_context_<resolution>}. Each resolution's context rows are summed from the flows (not
 * derived from a finer one): their buckets are few (interfaces, country pairs, the AS pairs times
 * boundaries and protocols), as the plain interface and AS-pair buckets are.
 */
public final class ContextRollups {

    private ContextRollups() {}

    /** Where the context rows of one resolution go. */
    @FunctionalInterface
    public interface SinkFactory extends Serializable {
        Sink<ContextRow> contextSinkFor(Duration resolution);
    }

    /** The context of a flow that was not enriched (packet flows): as {@code flows} stores it. */
    public static FlowContext none(FlowRecord f) {
        return new FlowContext(
                Attributes.NONE,
                InterfaceContext.UNKNOWN,
                InterfaceContext.UNKNOWN,
                "",
                "",
                f.srcAs(),
                f.dstAs(),
                Attributes.NONE,
                Attributes.NONE);
    }

    /**
     * Adds the plain and the context rollups of enriched flows.
     *
     * @param contextSinks where the context rows go, or null for none
     */
    public static void attach(
            DataStream<EnrichedFlow> flows,
            RollupSettings s,
            RollupTopology.SinkFactory sinks,
            SinkFactory contextSinks) {
        // One operator takes each enriched flow once: the plain rollups' input and the context
        // pieces of every resolution come out of it.
        SingleOutputStreamOperator<FlowRecord> plain =
                flows.process(
                                new EnrichedRollupSplit(s.resolutions()),
                                TypeInformation.of(FlowRecord.class))
                        .uid("rollup-enriched-as")
                        .name("enriched AS, context pieces");
        RollupTopology.attach(plain, s, sinks);
        for (Duration r : s.resolutions()) {
            DataStream<ContextRow> rows =
                    sums(plain.getSideOutput(EnrichedRollupSplit.tag(r)), r, s);
            if (contextSinks != null) {
                rows.sinkTo(contextSinks.contextSinkFor(r))
                        .uid("sink-clickhouse-rollup-context-" + RollupTables.label(r))
                        .name("clickhouse " + ContextRollupTables.tableName(r));
            }
        }
    }

    /** The flow with the AS numbers of its context. */
    static FlowRecord withStoredAs(EnrichedFlow e) {
        FlowRecord f = e.flow();
        FlowContext c = e.context();
        if (f.srcAs() == c.srcAs() && f.dstAs() == c.dstAs()) {
            return f;
        }
        return f.toBuilder().srcAs(c.srcAs()).dstAs(c.dstAs()).build();
    }

    /** The context rows of one resolution (late pieces counted, not written). */
    public static DataStream<ContextRow> rows(
            DataStream<EnrichedFlow> flows, Duration resolution, RollupSettings s) {
        String label = RollupTables.label(resolution);
        TypeInformation<ContextRow> type = ContextRowTypeInfo.INSTANCE;
        return sums(
                flows.flatMap(new ContextSplitter(resolution.toMillis()), type)
                        .uid("rollup-context-split-" + label)
                        .name("split context " + label),
                resolution,
                s);
    }

    /** The context rows of one resolution summed from its pieces (late pieces counted). */
    private static DataStream<ContextRow> sums(
            DataStream<ContextRow> pieces, Duration resolution, RollupSettings s) {
        String label = RollupTables.label(resolution);
        TypeInformation<ContextRow> type = ContextRowTypeInfo.INSTANCE;
        OutputTag<ContextRow> late = new OutputTag<>("rollup-context-late-" + label, type);
        DataStream<ContextRow> timed =
                pieces.transform(
                                "rollup context event time " + label,
                                type,
                                new PieceEventTime<>(
                                        s.maxOutOfOrderness().toMillis(), ContextRow::windowStart))
                        .uid("rollup-context-watermarks-" + label);
        if (s.combineBuckets() > 0) {
            // Chained, and before the budget: a flow makes four pieces per window, the buckets
            // are few, so the budget and the shuffle see one row per bucket and flush. Over the
            // bound, the buckets kept are the first of the flush, not of the flows.
            timed =
                    timed.transform(
                                    "combine context " + label,
                                    type,
                                    new ContextCombiner(
                                            resolution.toMillis(),
                                            s.allowedLateness().toMillis(),
                                            s.combineBuckets()))
                            .uid("rollup-context-combine-" + label);
        }
        DataStream<ContextRow> budgeted =
                timed.transform(
                                "context bucket budget " + label,
                                type,
                                BucketBudget.ofContext(
                                        resolution.toMillis(),
                                        s.allowedLateness().toMillis(),
                                        s.maxBucketsPerExporter()))
                        .uid("rollup-context-bucket-budget-" + label);
        SingleOutputStreamOperator<ContextRow> sums =
                budgeted.keyBy(ContextRow::key, ContextKeyTypeInfo.INSTANCE)
                        .window(TumblingEventTimeWindows.of(resolution))
                        .allowedLateness(s.allowedLateness())
                        .sideOutputLateData(late)
                        .aggregate(
                                new SumCounters<>(),
                                new Emit(),
                                RollupCountersTypeInfo.INSTANCE,
                                RollupCountersTypeInfo.INSTANCE,
                                type)
                        // Not "rollup-context-sum-": its keys had the reflective serializer.
                        .uid("rollup-context-buckets-" + label)
                        .name("rollup context " + label);
        sums.getSideOutput(late)
                .process(new CountLate())
                .uid("rollup-context-late-" + label)
                .name("late context pieces " + label);
        return sums;
    }

    /** A window's counters as a row; a late firing carries the complete new counts. */
    static final class Emit
            extends ProcessWindowFunction<RollupCounters, ContextRow, ContextRow.Key, TimeWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void process(
                ContextRow.Key k,
                Context ctx,
                Iterable<RollupCounters> sums,
                Collector<ContextRow> out) {
            RollupCounters c = sums.iterator().next();
            out.collect(
                    k.row(
                            ctx.window().getStart(),
                            c.bytes,
                            c.packets,
                            c.flows,
                            c.bytes + c.packets + c.flows));
        }
    }

    /**
     * Counts context pieces later than the allowed lateness ({@code
     * flowhouse_rollup_context_late_pieces_total}); the raw table still has them.
     */
    static final class CountLate extends ProcessFunction<ContextRow, Void> {
        private static final long serialVersionUID = 1L;
        private transient Counter pieces;

        @Override
        public void open(OpenContext ctx) {
            pieces =
                    getRuntimeContext()
                            .getMetricGroup()
                            .addGroup("flowhouse")
                            .counter("rollup_context_late_pieces_total");
        }

        @Override
        public void processElement(ContextRow r, Context ctx, Collector<Void> out) {
            pieces.inc();
        }
    }
}
