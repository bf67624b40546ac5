// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import java.util.List;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * One input of the rollups: a stream of flows from one producer (decode, the sFlow sample ageing,
 * the packet flow ageing). The rollups build their per-flow part (split, piece event time, bucket
 * budget, combiner) once per input, in the input's own chain, and union the pieces only at the
 * {@code keyBy} into the windows: an operator with two input edges starts a chain of its own, so a
 * union of the flows would serialize every flow and ship it to the split.
 *
 * @param flows the flows
 * @param suffix what tells this input's operators (uids and names) from those of the others; empty
 *     for the main input (the decoded flows), whose operators keep the uids of a single input
 */
public record RollupInput<T>(DataStream<T> flows, String suffix) {

    public RollupInput {
        if (!suffix.isEmpty() && !suffix.matches("[a-z0-9-]+")) {
            throw new IllegalArgumentException(
                    "suffix '" + suffix + "' (expected: empty or [a-z0-9-]+)");
        }
    }

    /** The main input: its operators have the uids and names of a single input. */
    public static <T> RollupInput<T> main(DataStream<T> flows) {
        return new RollupInput<>(flows, "");
    }

    /** {@code base}, or {@code base-suffix} for another input. */
    String uid(String base) {
        return suffix.isEmpty() ? base : base + "-" + suffix;
    }

    /** {@code base}, or {@code base (suffix)} for another input. */
    String name(String base) {
        return suffix.isEmpty() ? base : base + " (" + suffix + ")";
    }

    /** The union of the streams (one stream stays itself: no union in the graph). */
    static <T> DataStream<T> union(List<DataStream<T>> streams) {
        DataStream<T> out = streams.get(0);
        for (DataStream<T> s : streams.subList(1, streams.size())) {
            out = out.union(s);
        }
        return out;
    }
}
