// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.FlowRecord;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.util.OutputTag;

/**
 * The windowed rollups of a flow stream. The finest resolution (and any resolution that no finer
 * one divides) is computed from the flows:
 *
 * <pre>
 * flows -> FlowSplitter (pieces per window, exact split; pieces of windows already closed by the
 *   watermark counted as late and not sent on: {@link SplitOpenWindows}) -> event time = piece's window,
 *   watermark = the flows' (receive time per partition) - max out-of-orderness ({@link PieceEventTime})
 *   -> PieceCombiner (pieces of a bucket summed in the subtask until the next watermark/checkpoint)
 *   -> bucket pieces: keyBy(bucket) -> tumbling window (allowed lateness; later pieces to a side
 *        output) .aggregate(SumCounters, EmitRollup)    interface / proto-port / AS-pair rows
 *   -> talker and conversation pieces: keyBy(exporter, kind, address shard) -> AddressSummaries
 *        (a bounded Space-Saving summary per window, for this and every derived resolution)
 *        -> each shard's top N -> keyBy(exporter, kind) -> window of the row's own window
 *        .aggregate(TopN, EmitRanking)                top-N rows ranked 1..N
 *   -> sink (flows_&lt;resolution&gt;)
 * </pre>
 *
 * <p>With several inputs ({@link RollupInput}: the decoded flows, the aged sFlow samples, the
 * packet flows) everything before the first {@code keyBy} (split, event time, bucket budget,
 * combiner) is built once per input and chained to the input's producer; the pieces of all inputs
 * meet at the {@code keyBy}, which shuffles anyway. A union of the flows before the split would
 * give the split two input edges, so it could chain to neither producer and every flow would be
 * serialized to reach it. The windows' watermark is the least of all inputs', as before.
 *
 * <p>A coarser resolution that a finer one divides exactly (1 h from 1 min) is derived from the
 * finer one's window results instead of from the flows again: the finer bucket window also emits a
 * <em>delta</em> per firing (first firing: its counts; a late re-firing: only what it added, see
 * {@link EmitRollup}), and the deltas go through the coarser resolution's {@code keyBy(bucket)},
 * window and top N as above. A delta's event time is the end of its finer window, inside the
 * coarser window; the coarser window re-fires with its complete new counts and a higher version, as
 * with pieces. Sums stay exact: each coarser bucket is the sum of its finer buckets' deltas, and a
 * finer bucket's deltas add up to its final counts.
 *
 * <p>Lateness: a delta is never late for the coarser window. The finer window accepts a piece only
 * while {@code watermark < finer end - 1 + allowed lateness}, the coarser window ends at or after
 * the finer one, and the coarser operator's watermark (the least of the finer subtasks') is never
 * ahead of the finer one's; so while a finer bucket is still open, the coarser one is too. The one
 * difference to computing from the flows: a piece later than the finer resolution's allowed
 * lateness is dropped (counted as late) for the derived resolutions as well, where from the flows a
 * coarser window would still have taken it.
 *
 * <p>Every window keeps only counters (three longs per bucket, plus three for the counts already
 * sent where a coarser resolution derives from it; a bounded summary per exporter, kind and shard
 * for the talkers and conversations; N rows per ranking), never the flows, and no state grows with
 * the number of distinct addresses.
 */
public final class RollupTopology {

    /** Pieces later than the allowed lateness, per resolution (the tag name ends in the label). */
    public static OutputTag<RollupRow> lateTag(Duration resolution) {
        return new OutputTag<>(
                "rollup-late-" + RollupTables.label(resolution), RollupRowTypeInfo.INSTANCE);
    }

    /** What the bucket windows of a resolution add, per firing, for coarser resolutions. */
    static OutputTag<RollupRow> deltaTag(Duration resolution) {
        return new OutputTag<>(
                "rollup-delta-" + RollupTables.label(resolution), RollupRowTypeInfo.INSTANCE);
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
        return attach(List.of(RollupInput.main(flows)), s, sinks);
    }

    /**
     * Adds the rollups of every resolution over several inputs, each split and combined in its own
     * chain ({@link RollupInput}); returns the rows of each resolution (same order as settings).
     */
    public static List<DataStream<RollupRow>> attach(
            List<RollupInput<FlowRecord>> inputs, RollupSettings s, SinkFactory sinks) {
        List<Streams> all = streams(inputs, s, true);
        List<DataStream<RollupRow>> rows = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            Duration r = s.resolutions().get(i);
            DataStream<RollupRow> out = all.get(i).rows();
            if (sinks != null) {
                String label = RollupTables.label(r);
                out.sinkTo(sinks.sinkFor(r))
                        .uid("sink-clickhouse-rollup-" + label)
                        .name("clickhouse " + RollupTables.tableName(r));
            }
            rows.add(out);
        }
        return rows;
    }

    /**
     * The streams of one resolution.
     *
     * @param rows bucket and top-N rows for the table
     * @param late pieces that came after the allowed lateness (already counted); for a derived
     *     resolution, those of the resolution computed from the flows that it derives from
     */
    public record Streams(DataStream<RollupRow> rows, DataStream<RollupRow> late) {}

    /**
     * The finer resolution that {@code resolution} is derived from: the coarsest of the others that
     * divides it exactly, or null (computed from the flows).
     */
    static Duration source(Duration resolution, List<Duration> resolutions) {
        long r = resolution.toMillis();
        Duration best = null;
        for (Duration f : resolutions) {
            long m = f.toMillis();
            if (m < r && r % m == 0 && (best == null || m > best.toMillis())) {
                best = f;
            }
        }
        return best;
    }

    /** The streams of every resolution (same order as settings), coarser ones derived. */
    public static List<Streams> streams(DataStream<FlowRecord> flows, RollupSettings s) {
        return streams(flows, s, true);
    }

    /**
     * {@link #streams(DataStream, RollupSettings)}; with {@code splitDropsLate} false the splitter
     * sends every piece on and only the windows drop late ones (to compare the two).
     */
    static List<Streams> streams(
            DataStream<FlowRecord> flows, RollupSettings s, boolean splitDropsLate) {
        return streams(List.of(RollupInput.main(flows)), s, splitDropsLate);
    }

    /** {@link #streams(DataStream, RollupSettings, boolean)} over several inputs. */
    static List<Streams> streams(
            List<RollupInput<FlowRecord>> inputs, RollupSettings s, boolean splitDropsLate) {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("no input (expected: at least one)");
        }
        List<Duration> ascending = new ArrayList<>(s.resolutions());
        ascending.sort(Comparator.naturalOrder());
        Set<Duration> sources = new HashSet<>();
        for (Duration r : ascending) {
            Duration from = source(r, ascending);
            if (from != null) {
                sources.add(from);
            }
        }
        Map<Duration, Level> built = new HashMap<>();
        Map<Duration, FromFlows> roots = new HashMap<>();
        for (Duration r : ascending) {
            Duration from = source(r, ascending);
            OutputTag<RollupRow> deltas = sources.contains(r) ? deltaTag(r) : null;
            Level level;
            if (from == null) {
                FromFlows root = fromFlows(inputs, r, s, deltas, splitDropsLate);
                roots.put(r, root);
                level = new Level(root.sums(), FROM_FLOWS, r);
            } else {
                Level finer = built.get(from);
                DataStream<RollupRow> in = finer.sums().getSideOutput(deltaTag(from));
                level = new Level(sum(in, r, s, deltas, DERIVED, null), DERIVED, finer.root());
            }
            built.put(r, level);
        }
        Map<Duration, DataStream<RollupRow>> addressRows = new HashMap<>();
        Map<Duration, DataStream<RollupRow>> late = new HashMap<>();
        for (Map.Entry<Duration, FromFlows> e : roots.entrySet()) {
            Duration root = e.getKey();
            List<Duration> chain = new ArrayList<>();
            for (Duration r : ascending) {
                if (built.get(r).root().equals(root)) {
                    chain.add(r);
                }
            }
            late.put(root, addressSummaries(e.getValue(), root, chain, s, addressRows));
        }
        List<Streams> out = new ArrayList<>();
        for (Duration r : s.resolutions()) {
            Level level = built.get(r);
            out.add(new Streams(rows(level, r, s, addressRows.get(r)), late.get(level.root())));
        }
        return out;
    }

    /** The rows of one resolution, computed from the flows. */
    public static DataStream<RollupRow> rollup(
            DataStream<FlowRecord> flows, Duration resolution, RollupSettings s) {
        return streams(flows, resolution, s).rows();
    }

    /** The rows and the late pieces of one resolution, computed from the flows. */
    public static Streams streams(
            DataStream<FlowRecord> flows, Duration resolution, RollupSettings s) {
        return streams(flows, s.withResolutions(List.of(resolution))).get(0);
    }

    /**
     * A resolution's bucket sums.
     *
     * @param root the resolution computed from the flows that this one is (or derives from)
     */
    private record Level(
            SingleOutputStreamOperator<RollupRow> sums, String uidPrefix, Duration root) {}

    /**
     * What a resolution computed from the flows adds: its talker pieces and late pieces (those the
     * splitter kept back, already counted, and those the bucket windows dropped).
     */
    private record FromFlows(
            SingleOutputStreamOperator<RollupRow> sums,
            DataStream<RollupRow> addressPieces,
            DataStream<RollupRow> lateAtSplit,
            DataStream<RollupRow> lateBuckets) {}

    /** Uid prefix of the operators that compute a resolution from the flows. */
    private static final String FROM_FLOWS = "rollup-";

    /**
     * Uid prefix of the operators of a derived resolution: their input and state differ from those
     * that computed it from the flows, so a savepoint's state of the latter is not restored in
     * them.
     */
    private static final String DERIVED = "rollup-derived-";

    /**
     * The bucket sums of a resolution computed from the flows: the per-flow part once per input, in
     * the input's chain ({@link #pieces}), the pieces of every input unioned at the {@code keyBy}.
     */
    private static FromFlows fromFlows(
            List<RollupInput<FlowRecord>> inputs,
            Duration resolution,
            RollupSettings s,
            OutputTag<RollupRow> deltas,
            boolean splitDropsLate) {
        List<DataStream<RollupRow>> bucketPieces = new ArrayList<>();
        List<DataStream<RollupRow>> addressPieces = new ArrayList<>();
        List<DataStream<RollupRow>> lateAtSplit = new ArrayList<>();
        for (RollupInput<FlowRecord> in : inputs) {
            Pieces p = pieces(in, resolution, s, splitDropsLate);
            bucketPieces.add(p.buckets());
            addressPieces.add(p.addresses());
            lateAtSplit.add(p.lateAtSplit());
        }
        OutputTag<RollupRow> late = lateTag(resolution);
        SingleOutputStreamOperator<RollupRow> sums =
                sum(RollupInput.union(bucketPieces), resolution, s, deltas, FROM_FLOWS, late);
        return new FromFlows(
                sums,
                RollupInput.union(addressPieces),
                RollupInput.union(lateAtSplit),
                sums.getSideOutput(late));
    }

    /**
     * One input's pieces of a resolution, before the shuffle.
     *
     * @param buckets interface, proto-port and AS-pair pieces, combined
     * @param addresses talker and conversation pieces, combined
     * @param lateAtSplit pieces of windows already closed, kept back (and counted) by the split
     */
    private record Pieces(
            DataStream<RollupRow> buckets,
            DataStream<RollupRow> addresses,
            DataStream<RollupRow> lateAtSplit) {}

    /**
     * The per-flow part of a resolution for one input: split, piece event time, bucket budget and
     * combiner, then the bucket and talker pieces apart. Every operator here is a one-input
     * operator with Flink's default chaining strategy and no state, so the whole part runs in the
     * input's chain (decode's for the decoded flows): no flow is serialized. The split judges
     * lateness by this input's watermark, the budget counts this input's buckets; each passes on
     * its input's watermark and idleness, so a quiet input does not hold back the windows.
     */
    private static Pieces pieces(
            RollupInput<FlowRecord> in,
            Duration resolution,
            RollupSettings s,
            boolean splitDropsLate) {
        String label = RollupTables.label(resolution);
        long delay = s.maxOutOfOrderness().toMillis();
        OutputTag<RollupRow> lateAtSplit =
                new OutputTag<>("rollup-late-split-" + label, RollupRowTypeInfo.INSTANCE);
        SingleOutputStreamOperator<RollupRow> split =
                in.flows()
                        .transform(
                                in.name("split " + label),
                                RollupRowTypeInfo.INSTANCE,
                                new SplitOpenWindows(
                                        resolution.toMillis(),
                                        delay,
                                        s.allowedLateness().toMillis(),
                                        lateAtSplit,
                                        splitDropsLate))
                        .uid(in.uid("rollup-split-" + label));
        DataStream<RollupRow> pieces =
                split.transform(
                                in.name("rollup event time " + label),
                                RollupRowTypeInfo.INSTANCE,
                                PieceEventTime.ofRows(delay))
                        .uid(in.uid("rollup-watermarks-" + label))
                        .transform(
                                in.name("bucket budget " + label),
                                RollupRowTypeInfo.INSTANCE,
                                BucketBudget.ofRows(
                                        resolution.toMillis(),
                                        s.allowedLateness().toMillis(),
                                        s.maxBucketsPerExporter()))
                        .uid(in.uid("rollup-bucket-budget-" + label));
        if (s.combineBuckets() > 0) {
            // Chained (Flink's default chaining strategy): no shuffle before the sums.
            PieceCombiner combiner =
                    new PieceCombiner(
                            resolution.toMillis(),
                            s.allowedLateness().toMillis(),
                            s.combineBuckets());
            pieces =
                    pieces.transform(
                                    in.name("combine " + label),
                                    RollupRowTypeInfo.INSTANCE,
                                    combiner)
                            .uid(in.uid("rollup-combine-" + label));
        }
        DataStream<RollupRow> bucketPieces =
                pieces.filter(r -> !isAddressSum(r))
                        .uid(in.uid("rollup-bucket-pieces-" + label))
                        .name(in.name("bucket pieces " + label));
        DataStream<RollupRow> addressPieces =
                pieces.filter(RollupTopology::isAddressSum)
                        .uid(in.uid("rollup-address-pieces-" + label))
                        .name(in.name("talker pieces " + label));
        return new Pieces(bucketPieces, addressPieces, split.getSideOutput(lateAtSplit));
    }

    /**
     * The talker and conversation summaries of a resolution computed from the flows and of every
     * resolution derived from it, in one keyed operator ({@link AddressSummaries}); fills {@code
     * rows} with the per-shard top rows of each resolution and returns every late piece of the
     * root: those the splitter kept back (counted there) and the bucket and talker pieces the
     * windows dropped (counted here).
     */
    private static DataStream<RollupRow> addressSummaries(
            FromFlows root,
            Duration resolution,
            List<Duration> chain,
            RollupSettings s,
            Map<Duration, DataStream<RollupRow>> rows) {
        String label = RollupTables.label(resolution);
        long[] sizes = new long[chain.size()];
        List<OutputTag<RollupRow>> tags = new ArrayList<>();
        StringBuilder labels = new StringBuilder();
        for (int i = 0; i < chain.size(); i++) {
            sizes[i] = chain.get(i).toMillis();
            String l = RollupTables.label(chain.get(i));
            tags.add(new OutputTag<>("rollup-top-rows-" + l, RollupRowTypeInfo.INSTANCE));
            labels.append(i == 0 ? "" : ",").append(l);
        }
        OutputTag<RollupRow> lateTalkers =
                new OutputTag<>("rollup-late-talkers-" + label, RollupRowTypeInfo.INSTANCE);
        SingleOutputStreamOperator<Void> summaries =
                root.addressPieces()
                        .keyBy(new RollupKey.OfShard(s.topShards()), RollupKeyTypeInfo.INSTANCE)
                        .transform(
                                "talker summaries " + labels,
                                Types.VOID,
                                new AddressSummaries(
                                        sizes,
                                        s.allowedLateness().toMillis(),
                                        s.topN(),
                                        s.topCapacityPerShard(),
                                        tags,
                                        lateTalkers))
                        .uid("rollup-talker-summaries-" + label);
        for (int i = 0; i < chain.size(); i++) {
            rows.put(chain.get(i), summaries.getSideOutput(tags.get(i)));
        }
        DataStream<RollupRow> late = root.lateBuckets().union(summaries.getSideOutput(lateTalkers));
        late.process(new CountLatePieces())
                .uid("rollup-late-" + label)
                .name("late pieces " + label);
        return root.lateAtSplit().union(late);
    }

    /**
     * The bucket windows of a resolution over pieces or a finer resolution's deltas.
     *
     * @param deltas side output for a coarser resolution, or null
     * @param uidPrefix {@link #FROM_FLOWS} or {@link #DERIVED}
     * @param late side output of pieces beyond the allowed lateness, or null (deltas are never
     *     late)
     */
    private static SingleOutputStreamOperator<RollupRow> sum(
            DataStream<RollupRow> in,
            Duration resolution,
            RollupSettings s,
            OutputTag<RollupRow> deltas,
            String uidPrefix,
            OutputTag<RollupRow> late) {
        String label = RollupTables.label(resolution);
        // The window operator that .window(tumbling).aggregate(..) builds, with one timer per
        // bucket at a time instead of two.
        return in.keyBy(new RollupKey.OfRow(), RollupKeyTypeInfo.INSTANCE)
                .transform(
                        "rollup window " + label,
                        RollupRowTypeInfo.INSTANCE,
                        BucketWindowOperator.of(
                                resolution, s.allowedLateness(), late, new EmitRollup(deltas)))
                .uid(uidPrefix + "sum-" + label)
                .name((late == null ? "rollup (derived) " : "rollup ") + label);
    }

    /**
     * Bucket rows plus the top N of the talker and conversation rows (the top rows of every shard
     * of the address space, ranked together per window, exporter and kind).
     */
    private static DataStream<RollupRow> rows(
            Level level, Duration resolution, RollupSettings s, DataStream<RollupRow> talkers) {
        String prefix = level.uidPrefix();
        String label = RollupTables.label(resolution);
        TypeInformation<List<RollupRow>> topType = Types.LIST(RollupRowTypeInfo.INSTANCE);
        DataStream<RollupRow> ranked =
                talkers.keyBy(new RollupKey.OfRanking(), RollupKeyTypeInfo.INSTANCE)
                        .window(new RowWindows(resolution.toMillis()))
                        .allowedLateness(s.allowedLateness())
                        .aggregate(
                                new TopN(s.topN()),
                                new EmitRanking(),
                                topType,
                                topType,
                                RollupRowTypeInfo.INSTANCE)
                        .uid(prefix + "rank-" + label)
                        .name("top " + s.topN() + " " + label);
        // The filter also drops talker buckets restored from a savepoint of a version that kept
        // them in the bucket windows.
        DataStream<RollupRow> plain =
                level.sums()
                        .filter(r -> !isAddressSum(r))
                        .uid(prefix + "plain-" + label)
                        .name("buckets " + label);
        return plain.union(ranked);
    }

    static boolean isAddressSum(RollupRow r) {
        return r.kind() == RollupKind.TALKER.code() || r.kind() == RollupKind.CONVERSATION.code();
    }
}
