// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.clickhouse.rollup.RollupKind;
import io.flowhouse.sinks.clickhouse.rollup.RollupRow;
import io.flowhouse.sinks.clickhouse.rollup.RollupTables;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.util.OutputTag;

/**
 * The windowed rollups of a flow stream, per resolution:
 *
 * <pre>
 * flows -> FlowSplitter (pieces per window, exact split) -> event time = piece's window
 *   -> PieceCombiner (pieces of a bucket summed in the subtask until the next watermark/checkpoint)
 *   -> keyBy(bucket) -> tumbling window (allowed lateness; later pieces to a side output)
 *        .aggregate(SumCounters, EmitRollup)        interface / proto-port / AS-pair rows
 *   -> talker and conversation sums -> keyBy(exporter, kind) -> same window
 *        .aggregate(TopN, EmitRanking)              top-N rows ranked 1..N
 *   -> sink (flows_&lt;resolution&gt;)
 * </pre>
 *
 * Every window keeps only counters (three longs per bucket, N rows per ranking), never the flows.
 */
public final class RollupTopology {

    /** Pieces later than the allowed lateness, per resolution (the tag name ends in the label). */
    public static OutputTag<RollupRow> lateTag(Duration resolution) {
        return new OutputTag<>(
                "rollup-late-" + RollupTables.label(resolution), RollupRowTypeInfo.INSTANCE);
    }

    /** Where the rows of one resolution go. */
    @FunctionalInterface
    public interface SinkFactory extends Serializable {
        Sink<RollupRow> sinkFor(Duration resolution);
    }

    private RollupTopology() {}

    /** Adds the rollups of every resolution; returns the rows of each (same order as settings). */
    public static List<DataStream<RollupRow>> attach(
            DataStream<FlowRecord> flows, RollupSettings s, SinkFactory sinks) {
        return s.resolutions().stream()
                .map(
                        r -> {
                            DataStream<RollupRow> rows = rollup(flows, r, s);
                            if (sinks != null) {
                                String label = RollupTables.label(r);
                                rows.sinkTo(sinks.sinkFor(r))
                                        .uid("sink-clickhouse-rollup-" + label)
                                        .name("clickhouse " + RollupTables.tableName(r));
                            }
                            return rows;
                        })
                .toList();
    }

    /**
     * The streams of one resolution.
     *
     * @param rows bucket and top-N rows for the table
     * @param late pieces that came after the allowed lateness (already counted)
     */
    public record Streams(DataStream<RollupRow> rows, DataStream<RollupRow> late) {}

    /** The rows of one resolution. */
    public static DataStream<RollupRow> rollup(
            DataStream<FlowRecord> flows, Duration resolution, RollupSettings s) {
        return streams(flows, resolution, s).rows();
    }

    /** The rows and the late pieces of one resolution. */
    public static Streams streams(
            DataStream<FlowRecord> flows, Duration resolution, RollupSettings s) {
        String label = RollupTables.label(resolution);
        long delay = s.maxOutOfOrderness().toMillis();
        WatermarkStrategy<RollupRow> wm =
                WatermarkStrategy.<RollupRow>forGenerator(ctx -> new PieceWatermarks<>(delay))
                        .withTimestampAssigner((r, previous) -> r.windowStart());
        if (!s.idleness().isZero()) {
            wm = wm.withIdleness(s.idleness());
        }
        DataStream<RollupRow> pieces =
                flows.flatMap(new FlowSplitter(resolution.toMillis()), RollupRowTypeInfo.INSTANCE)
                        .uid("rollup-split-" + label)
                        .name("split " + label)
                        .assignTimestampsAndWatermarks(wm)
                        .uid("rollup-watermarks-" + label)
                        .name("rollup event time " + label);
        if (s.combineBuckets() > 0) {
            // Chained (Flink's default chaining strategy): no shuffle before the sums.
            PieceCombiner combiner =
                    new PieceCombiner(
                            resolution.toMillis(),
                            s.allowedLateness().toMillis(),
                            s.combineBuckets());
            pieces =
                    pieces.transform("combine " + label, RollupRowTypeInfo.INSTANCE, combiner)
                            .uid("rollup-combine-" + label);
        }
        OutputTag<RollupRow> late = lateTag(resolution);
        SingleOutputStreamOperator<RollupRow> sums =
                pieces.keyBy(new RollupKey.OfRow(), RollupKeyTypeInfo.INSTANCE)
                        .window(TumblingEventTimeWindows.of(resolution))
                        .allowedLateness(s.allowedLateness())
                        .sideOutputLateData(late)
                        .aggregate(
                                new SumCounters(),
                                new EmitRollup(),
                                RollupCountersTypeInfo.INSTANCE,
                                RollupCountersTypeInfo.INSTANCE,
                                RollupRowTypeInfo.INSTANCE)
                        .uid("rollup-sum-" + label)
                        .name("rollup " + label);
        DataStream<RollupRow> latePieces = sums.getSideOutput(late);
        latePieces
                .process(new CountLatePieces())
                .uid("rollup-late-" + label)
                .name("late pieces " + label);
        TypeInformation<List<RollupRow>> topType = Types.LIST(RollupRowTypeInfo.INSTANCE);
        DataStream<RollupRow> ranked =
                sums.filter(RollupTopology::isAddressSum)
                        .uid("rollup-address-sums-" + label)
                        .name("address sums " + label)
                        .keyBy(new RollupKey.OfRanking(), RollupKeyTypeInfo.INSTANCE)
                        .window(TumblingEventTimeWindows.of(resolution))
                        .allowedLateness(s.allowedLateness())
                        .aggregate(
                                new TopN(s.topN()),
                                new EmitRanking(),
                                topType,
                                topType,
                                RollupRowTypeInfo.INSTANCE)
                        .uid("rollup-top-" + label)
                        .name("top " + s.topN() + " " + label);
        DataStream<RollupRow> plain =
                sums.filter(r -> !isAddressSum(r))
                        .uid("rollup-plain-" + label)
                        .name("buckets " + label);
        return new Streams(plain.union(ranked), latePieces);
    }

    static boolean isAddressSum(RollupRow r) {
        return r.kind() == RollupKind.TALKER.code() || r.kind() == RollupKind.CONVERSATION.code();
    }
}
