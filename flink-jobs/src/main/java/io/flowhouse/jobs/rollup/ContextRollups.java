// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueStateDescriptor;
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
 * flows_context_<resolution>}. As for the plain rows, a resolution that a finer one divides exactly
 * (1 h from 1 min) adds up the finer one's bucket results (a delta per firing) instead of splitting
 * the flows again; the others are summed from the flows' context pieces.
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
        attach(List.of(RollupInput.main(flows)), s, sinks, contextSinks);
    }

    /**
     * Adds the plain and the context rollups of several inputs of enriched flows, each split and
     * combined in its own chain ({@link RollupInput}).
     *
     * @param contextSinks where the context rows go, or null for none
     */
    public static void attach(
            List<RollupInput<EnrichedFlow>> inputs,
            RollupSettings s,
            RollupTopology.SinkFactory sinks,
            SinkFactory contextSinks) {
        List<DataStream<ContextRow>> rows = streams(inputs, s, sinks);
        for (int i = 0; i < rows.size(); i++) {
            Duration r = s.resolutions().get(i);
            if (contextSinks != null) {
                rows.get(i)
                        .sinkTo(contextSinks.contextSinkFor(r))
                        .uid("sink-clickhouse-rollup-context-" + RollupTables.label(r))
                        .name("clickhouse " + ContextRollupTables.tableName(r));
            }
        }
    }

    /**
     * Adds the plain rollups of enriched flows and returns the context rows of every resolution
     * (same order as settings). A resolution that a finer one divides exactly is derived from the
     * finer one's bucket results (deltas, as in {@link RollupTopology}); the others are summed from
     * the flows' context pieces.
     */
    static List<DataStream<ContextRow>> streams(
            DataStream<EnrichedFlow> flows, RollupSettings s, RollupTopology.SinkFactory sinks) {
        return streams(List.of(RollupInput.main(flows)), s, sinks);
    }

    /**
     * {@link #streams(DataStream, RollupSettings, RollupTopology.SinkFactory)} over several inputs:
     * the per-flow part (the split, and per resolution the context pieces' event time, combiner and
     * budget) once per input, in its chain; the inputs meet at each window's {@code keyBy}.
     */
    static List<DataStream<ContextRow>> streams(
            List<RollupInput<EnrichedFlow>> inputs,
            RollupSettings s,
            RollupTopology.SinkFactory sinks) {
        List<Duration> ascending = new ArrayList<>(s.resolutions());
        ascending.sort(Comparator.naturalOrder());
        Set<Duration> sources = new HashSet<>();
        List<Duration> roots = new ArrayList<>();
        for (Duration r : ascending) {
            Duration from = RollupTopology.source(r, ascending);
            if (from == null) {
                roots.add(r);
            } else {
                sources.add(from);
            }
        }
        // One operator per input takes each enriched flow once: the plain rollups' input and the
        // context pieces of every resolution computed from the flows come out of it.
        List<SingleOutputStreamOperator<FlowRecord>> splits = new ArrayList<>();
        List<RollupInput<FlowRecord>> plain = new ArrayList<>();
        for (RollupInput<EnrichedFlow> in : inputs) {
            SingleOutputStreamOperator<FlowRecord> split =
                    in.flows()
                            .process(
                                    new EnrichedRollupSplit(roots),
                                    TypeInformation.of(FlowRecord.class))
                            .uid(in.uid("rollup-enriched-as"))
                            .name(in.name("enriched AS, context pieces"));
            splits.add(split);
            plain.add(new RollupInput<>(split, in.suffix()));
        }
        RollupTopology.attach(plain, s, sinks);
        Map<Duration, SingleOutputStreamOperator<ContextRow>> built = new HashMap<>();
        for (Duration r : ascending) {
            Duration from = RollupTopology.source(r, ascending);
            OutputTag<ContextRow> deltas = sources.contains(r) ? deltaTag(r) : null;
            if (from == null) {
                List<RollupInput<ContextRow>> pieces = new ArrayList<>();
                for (int i = 0; i < inputs.size(); i++) {
                    pieces.add(
                            new RollupInput<>(
                                    splits.get(i).getSideOutput(EnrichedRollupSplit.tag(r)),
                                    inputs.get(i).suffix()));
                }
                built.put(r, sums(pieces, r, s, deltas));
            } else {
                built.put(r, derived(built.get(from).getSideOutput(deltaTag(from)), r, s, deltas));
            }
        }
        List<DataStream<ContextRow>> out = new ArrayList<>();
        for (Duration r : s.resolutions()) {
            out.add(built.get(r));
        }
        return out;
    }

    /** What the context windows of a resolution add, per firing, for coarser resolutions. */
    static OutputTag<ContextRow> deltaTag(Duration resolution) {
        return new OutputTag<>(
                "rollup-context-delta-" + RollupTables.label(resolution),
                ContextRowTypeInfo.INSTANCE);
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
                List.of(
                        RollupInput.main(
                                flows.flatMap(new ContextSplitter(resolution.toMillis()), type)
                                        .uid("rollup-context-split-" + label)
                                        .name("split context " + label))),
                resolution,
                s,
                null);
    }

    /**
     * The context rows of one resolution summed from its pieces (late pieces counted): event time,
     * combiner and budget per input, in the input's chain; the inputs meet at the {@code keyBy}.
     *
     * @param deltas side output of the per-firing differences for a coarser resolution, or null
     */
    private static SingleOutputStreamOperator<ContextRow> sums(
            List<RollupInput<ContextRow>> pieces,
            Duration resolution,
            RollupSettings s,
            OutputTag<ContextRow> deltas) {
        String label = RollupTables.label(resolution);
        TypeInformation<ContextRow> type = ContextRowTypeInfo.INSTANCE;
        OutputTag<ContextRow> late = new OutputTag<>("rollup-context-late-" + label, type);
        List<DataStream<ContextRow>> budgeted = new ArrayList<>();
        for (RollupInput<ContextRow> in : pieces) {
            budgeted.add(budgeted(in, resolution, s));
        }
        SingleOutputStreamOperator<ContextRow> sums =
                RollupInput.union(budgeted)
                        .keyBy(ContextRow::key, ContextKeyTypeInfo.INSTANCE)
                        .window(TumblingEventTimeWindows.of(resolution))
                        .allowedLateness(s.allowedLateness())
                        .sideOutputLateData(late)
                        .aggregate(
                                new SumCounters<>(),
                                new Emit(deltas),
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

    /**
     * One input's context pieces of a resolution, timed, combined and bounded: one-input operators
     * without state, chained to the input's producer. Each passes on its input's watermark and
     * idleness.
     */
    private static DataStream<ContextRow> budgeted(
            RollupInput<ContextRow> in, Duration resolution, RollupSettings s) {
        String label = RollupTables.label(resolution);
        TypeInformation<ContextRow> type = ContextRowTypeInfo.INSTANCE;
        DataStream<ContextRow> timed =
                in.flows()
                        .transform(
                                in.name("rollup context event time " + label),
                                type,
                                new PieceEventTime<>(
                                        s.maxOutOfOrderness().toMillis(), ContextRow::windowStart))
                        .uid(in.uid("rollup-context-watermarks-" + label));
        if (s.combineBuckets() > 0) {
            // Chained, and before the budget: a flow makes four pieces per window, the buckets
            // are few, so the budget and the shuffle see one row per bucket and flush. Over the
            // bound, the buckets kept are the first of the flush, not of the flows.
            timed =
                    timed.transform(
                                    in.name("combine context " + label),
                                    type,
                                    new ContextCombiner(
                                            resolution.toMillis(),
                                            s.allowedLateness().toMillis(),
                                            s.combineBuckets()))
                            .uid(in.uid("rollup-context-combine-" + label));
        }
        return timed.transform(
                        in.name("context bucket budget " + label),
                        type,
                        BucketBudget.ofContext(
                                resolution.toMillis(),
                                s.allowedLateness().toMillis(),
                                s.maxBucketsPerExporter()))
                .uid(in.uid("rollup-context-bucket-budget-" + label));
    }

    /**
     * The context rows of a resolution derived from a finer one's deltas: no event time, budget or
     * combiner of its own (the finer resolution's pieces went through them; a delta is one bucket
     * of one finer window, already bounded), and never late (see {@link RollupTopology}). New
     * operators, not those that summed this resolution from the flows: their state must not be
     * restored here, the finer windows send their counts again.
     */
    private static SingleOutputStreamOperator<ContextRow> derived(
            DataStream<ContextRow> deltas,
            Duration resolution,
            RollupSettings s,
            OutputTag<ContextRow> coarser) {
        String label = RollupTables.label(resolution);
        return deltas.keyBy(ContextRow::key, ContextKeyTypeInfo.INSTANCE)
                .window(TumblingEventTimeWindows.of(resolution))
                .allowedLateness(s.allowedLateness())
                .aggregate(
                        new SumCounters<>(),
                        new Emit(coarser),
                        RollupCountersTypeInfo.INSTANCE,
                        RollupCountersTypeInfo.INSTANCE,
                        ContextRowTypeInfo.INSTANCE)
                .uid("rollup-context-derived-buckets-" + label)
                .name("rollup context (derived) " + label);
    }

    /**
     * A window's counters as a row; a late firing carries the complete new counts. With a delta
     * tag, every firing also sends what changed since the bucket's previous firing there (first
     * firing: the full counts; a re-firing that changed nothing: none), as {@link EmitRollup} does
     * for the plain rows; the counts already sent are kept per bucket until the window is cleared.
     */
    static final class Emit
            extends ProcessWindowFunction<RollupCounters, ContextRow, ContextRow.Key, TimeWindow> {
        private static final long serialVersionUID = 1L;

        static final ValueStateDescriptor<RollupCounters> EMITTED =
                new ValueStateDescriptor<>(
                        "rollup-context-emitted", RollupCountersTypeInfo.INSTANCE);

        private final OutputTag<ContextRow> deltas;

        Emit(OutputTag<ContextRow> deltas) {
            this.deltas = deltas;
        }

        @Override
        public void process(
                ContextRow.Key k,
                Context ctx,
                Iterable<RollupCounters> sums,
                Collector<ContextRow> out)
                throws Exception {
            RollupCounters c = sums.iterator().next();
            long b = c.bytes;
            long p = c.packets;
            long f = c.flows;
            long start = ctx.window().getStart();
            out.collect(k.row(start, b, p, f, b + p + f));
            if (deltas == null) {
                return;
            }
            RollupCounters d = EmitRollup.delta(ctx.windowState().getState(EMITTED), b, p, f);
            if (d != null) {
                ctx.output(deltas, k.row(start, d.bytes, d.packets, d.flows, 0));
            }
        }

        @Override
        public void clear(Context ctx) {
            if (deltas != null) {
                ctx.windowState().getState(EMITTED).clear();
            }
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
