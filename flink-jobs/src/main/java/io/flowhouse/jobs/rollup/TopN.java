// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.common.functions.AggregateFunction;

/**
 * Keeps the N largest (by bytes) per-address sums of one window and exporter. The input is already
 * summed per talker or conversation (one row per address per firing), so the accumulator never
 * holds more than N + 1 rows. A late firing upstream sends a talker's new, larger sum: it replaces
 * the talker's earlier entry, and since sums only grow, the kept N stay the true top N.
 */
public final class TopN implements AggregateFunction<RollupRow, List<RollupRow>, List<RollupRow>> {

    private static final long serialVersionUID = 1L;

    /** Larger bytes first; ties broken by address so the ranking is deterministic. */
    static final Comparator<RollupRow> ORDER =
            Comparator.comparingLong(RollupRow::bytes)
                    .reversed()
                    .thenComparing(RollupRow::srcAddr)
                    .thenComparing(RollupRow::dstAddr);

    private final int n;

    public TopN(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("top N " + n + " (expected: >= 1)");
        }
        this.n = n;
    }

    @Override
    public List<RollupRow> createAccumulator() {
        return new ArrayList<>(n + 1);
    }

    @Override
    public List<RollupRow> add(RollupRow r, List<RollupRow> acc) {
        for (int i = 0; i < acc.size(); i++) {
            RollupRow e = acc.get(i);
            if (e.srcAddr().equals(r.srcAddr()) && e.dstAddr().equals(r.dstAddr())) {
                if (r.version() >= e.version()) {
                    acc.set(i, r);
                }
                return acc;
            }
        }
        if (acc.size() < n) {
            acc.add(r);
            return acc;
        }
        int smallest = 0;
        for (int i = 1; i < acc.size(); i++) {
            if (ORDER.compare(acc.get(i), acc.get(smallest)) > 0) {
                smallest = i;
            }
        }
        if (ORDER.compare(r, acc.get(smallest)) < 0) {
            acc.set(smallest, r);
        }
        return acc;
    }

    @Override
    public List<RollupRow> getResult(List<RollupRow> acc) {
        List<RollupRow> sorted = new ArrayList<>(acc);
        sorted.sort(ORDER);
        return sorted;
    }

    @Override
    public List<RollupRow> merge(List<RollupRow> a, List<RollupRow> b) {
        for (RollupRow r : b) {
            add(r, a);
        }
        return a;
    }
}
