// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The per-flow work of the rollups with enrichment on, in one operator: each enriched flow goes out
 * once with the AS numbers of its context (to the plain rollups) and, for each resolution, as its
 * context pieces ({@link ContextSplitter}) on that resolution's side output ({@link #tag}). One
 * operator per input ({@link RollupInput}), chained to the input's producer (decode for the decoded
 * flows), so each enriched flow is handed to the rollups once and never serialized before them.
 */
public final class EnrichedRollupSplit extends ProcessFunction<EnrichedFlow, FlowRecord> {

    private static final long serialVersionUID = 1L;

    private final List<Duration> resolutions;
    private transient List<Splitting> splits;

    public EnrichedRollupSplit(List<Duration> resolutions) {
        this.resolutions = List.copyOf(resolutions);
    }

    /** The side output of the context pieces of {@code resolution}. */
    public static OutputTag<ContextRow> tag(Duration resolution) {
        return new OutputTag<>(
                "rollup-context-pieces-" + RollupTables.label(resolution),
                TypeInformation.of(ContextRow.class));
    }

    /** One resolution's splitter, writing to its side output. */
    private static final class Splitting implements Collector<ContextRow> {
        final ContextSplitter splitter;
        final OutputTag<ContextRow> tag;
        Context ctx;

        Splitting(Duration resolution) {
            this.splitter = new ContextSplitter(resolution.toMillis());
            this.tag = tag(resolution);
        }

        @Override
        public void collect(ContextRow row) {
            ctx.output(tag, row);
        }

        @Override
        public void close() {}
    }

    @Override
    public void processElement(EnrichedFlow e, Context ctx, Collector<FlowRecord> out) {
        if (splits == null) {
            splits = new ArrayList<>();
            for (Duration r : resolutions) {
                splits.add(new Splitting(r));
            }
        }
        out.collect(ContextRollups.withStoredAs(e));
        for (Splitting s : splits) {
            s.ctx = ctx;
            s.splitter.flatMap(e, s);
        }
    }
}
