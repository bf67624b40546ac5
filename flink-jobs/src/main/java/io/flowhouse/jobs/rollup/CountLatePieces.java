// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the flow pieces that came later than the allowed lateness ({@code
 * flowhouse_rollup_late_pieces_total} and {@code flowhouse_rollup_late_bytes_total}) and logs at
 * most once a minute. The raw flows table still has them; only the rollup misses them.
 */
public final class CountLatePieces extends ProcessFunction<RollupRow, Void> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(CountLatePieces.class);

    private transient Counter pieces;
    private transient Counter bytes;
    private transient long lastLog;

    @Override
    public void open(OpenContext ctx) {
        var g = getRuntimeContext().getMetricGroup().addGroup("flowhouse");
        pieces = g.counter("rollup_late_pieces_total");
        bytes = g.counter("rollup_late_bytes_total");
    }

    @Override
    public void processElement(RollupRow r, Context ctx, Collector<Void> out) {
        pieces.inc();
        bytes.inc(r.bytes());
        long now = System.currentTimeMillis();
        if (now - lastLog >= 60_000L) {
            lastLog = now;
            LOG.warn(
                    "flow piece for window {} came after the allowed lateness; {} so far",
                    r.windowStart(),
                    pieces.getCount());
        }
    }
}
