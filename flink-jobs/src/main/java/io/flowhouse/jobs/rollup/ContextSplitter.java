// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * Splits an enriched flow over the windows it spans exactly as {@link FlowSplitter} does ({@link
 * FlowSplitter#shares}: the same shares per window, so the context rows and the plain rows of a
 * window add up to the same totals), and emits one piece per window for each context kind: the in
 * and the out interface with their names and boundaries, the country pair and the
 * boundary/protocol/AS combination. Every flow counts once in each kind (twice in INTERFACE: once
 * per direction, as in the plain rollups).
 */
public final class ContextSplitter implements FlatMapFunction<EnrichedFlow, ContextRow> {

    private static final long serialVersionUID = 1L;

    private final long resolutionMillis;

    public ContextSplitter(long resolutionMillis) {
        if (resolutionMillis <= 0) {
            throw new IllegalArgumentException(
                    "resolution " + resolutionMillis + " ms (expected: > 0)");
        }
        this.resolutionMillis = resolutionMillis;
    }

    @Override
    public void flatMap(EnrichedFlow e, Collector<ContextRow> out) {
        FlowRecord f = e.flow();
        FlowContext c = e.context();
        // Only the shares: the plain pieces (six per window) are not built.
        FlowSplitter.shares(f, resolutionMillis, (w, b, n, fl) -> emit(f, c, w, b, n, fl, out));
    }

    private static void emit(
            FlowRecord f,
            FlowContext c,
            long w,
            long b,
            long n,
            long fl,
            Collector<ContextRow> out) {
        IpAddress e = f.exporterAddress();
        InterfaceContext in = c.in() == null ? InterfaceContext.UNKNOWN : c.in();
        InterfaceContext o = c.out() == null ? InterfaceContext.UNKNOWN : c.out();
        int inB = in.boundary().ordinal();
        int outB = o.boundary().ordinal();
        out.collect(
                new ContextRow(
                        ContextRow.INTERFACE,
                        w,
                        e,
                        f.inputInterface(),
                        0,
                        text(in.name()),
                        inB,
                        0,
                        0,
                        0,
                        0,
                        "",
                        "",
                        b,
                        n,
                        fl,
                        0));
        out.collect(
                new ContextRow(
                        ContextRow.INTERFACE,
                        w,
                        e,
                        f.outputInterface(),
                        1,
                        text(o.name()),
                        0,
                        outB,
                        0,
                        0,
                        0,
                        "",
                        "",
                        b,
                        n,
                        fl,
                        0));
        out.collect(
                new ContextRow(
                        ContextRow.COUNTRY_PAIR,
                        w,
                        e,
                        0,
                        0,
                        "",
                        0,
                        0,
                        0,
                        0,
                        0,
                        text(c.srcCountry()),
                        text(c.dstCountry()),
                        b,
                        n,
                        fl,
                        0));
        out.collect(
                new ContextRow(
                        ContextRow.BOUNDARY_AS,
                        w,
                        e,
                        f.inputInterface(),
                        0,
                        "",
                        inB,
                        outB,
                        f.protocol(),
                        c.srcAs(),
                        c.dstAs(),
                        "",
                        "",
                        b,
                        n,
                        fl,
                        0));
    }

    private static String text(String s) {
        return s == null ? "" : s;
    }
}
