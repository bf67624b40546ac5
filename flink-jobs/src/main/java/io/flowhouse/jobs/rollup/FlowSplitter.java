// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import java.math.BigInteger;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * Splits a flow over the windows of one resolution in proportion to its time overlap with each, and
 * emits one contribution per window and rollup kind (interface in, interface out, protocol and
 * port, AS pair, talker, conversation). A 10-minute flow thus counts in ten 1-minute buckets. The
 * split is exact: the window ending at time t gets {@code floor(total * (t - start) / duration)}
 * minus what earlier windows got, so the pieces always add up to the flow's counters. A flow counts
 * as one flow in the window of its end. Running before the windows keeps them incremental.
 */
public final class FlowSplitter implements FlatMapFunction<FlowRecord, RollupRow> {

    private static final long serialVersionUID = 1L;

    /**
     * Most windows one flow is spread over. A flow longer than this many windows (an exporter clock
     * or uptime bug: real exporters cut flows at their active timeout) is treated as starting that
     * many windows before its end, so one bad record cannot emit millions of pieces.
     */
    static final long MAX_WINDOWS = 1_440;

    private final long resolutionMillis;

    public FlowSplitter(long resolutionMillis) {
        if (resolutionMillis <= 0) {
            throw new IllegalArgumentException(
                    "resolution " + resolutionMillis + " ms (expected: > 0)");
        }
        this.resolutionMillis = resolutionMillis;
    }

    @Override
    public void flatMap(FlowRecord f, Collector<RollupRow> out) {
        split(f, Long.MIN_VALUE, 0, out, out);
    }

    /**
     * Splits a flow as {@link #flatMap} does, but sends the pieces of windows that are closed for
     * good to {@code late}: a window is closed when its end - 1 + {@code allowedLatenessMillis} is
     * at or before {@code watermark}, the rule by which Flink's event-time windows drop a late
     * element (the same rule as {@link PieceCombiner}). The open windows' pieces are the same as
     * from {@link #flatMap}: the shares are computed over the whole flow either way.
     */
    void split(
            FlowRecord f,
            long watermark,
            long allowedLatenessMillis,
            Collector<RollupRow> open,
            Collector<RollupRow> late) {
        shares(
                f,
                resolutionMillis,
                (w, b, p, flows) ->
                        emit(
                                f,
                                w,
                                b,
                                p,
                                flows,
                                closed(w, allowedLatenessMillis, watermark) ? late : open));
    }

    /** One window's share of a flow. */
    @FunctionalInterface
    interface Shares {
        void share(long windowStart, long bytes, long packets, long flows);
    }

    /**
     * Walks the windows of {@code resolutionMillis} that {@code f} overlaps, oldest first, and
     * gives each its exact share (flows: 1 in the window of the flow's end, 0 before): the split
     * every rollup kind uses, plain or context, so their totals agree.
     */
    static void shares(FlowRecord f, long resolutionMillis, Shares out) {
        long scale = Math.max(1L, f.samplingRate());
        long bytes = scaled(f.bytes() + f.reverseBytes(), scale);
        long packets = scaled(f.packets() + f.reversePackets(), scale);
        long end = f.flowEndMillis() > 0 ? f.flowEndMillis() : f.timeReceivedMillis();
        long start = f.flowStartMillis() > 0 ? Math.min(f.flowStartMillis(), end) : end;
        start = Math.max(start, end - MAX_WINDOWS * resolutionMillis);
        long duration = end - start;
        long windowStart = Math.floorDiv(start, resolutionMillis) * resolutionMillis;
        long givenBytes = 0;
        long givenPackets = 0;
        while (true) {
            long windowEnd = windowStart + resolutionMillis;
            boolean last = end < windowEnd;
            long b;
            long p;
            if (last) {
                b = bytes - givenBytes;
                p = packets - givenPackets;
            } else {
                long upTo = windowEnd - start;
                b = share(bytes, upTo, duration) - givenBytes;
                p = share(packets, upTo, duration) - givenPackets;
            }
            givenBytes += b;
            givenPackets += p;
            out.share(windowStart, b, p, last ? 1 : 0);
            if (last) {
                return;
            }
            windowStart = windowEnd;
        }
    }

    /** Whether the window starting at {@code windowStart} drops its pieces at {@code watermark}. */
    boolean closed(long windowStart, long allowedLatenessMillis, long watermark) {
        long maxTimestamp = windowStart + resolutionMillis - 1;
        long cleanup = maxTimestamp + allowedLatenessMillis;
        if (cleanup < maxTimestamp) {
            cleanup = Long.MAX_VALUE;
        }
        return cleanup <= watermark;
    }

    /** {@code floor(total * part / whole)} without overflow. */
    static long share(long total, long part, long whole) {
        long high = Math.multiplyHigh(total, part);
        long low = total * part;
        if ((high == 0 && low >= 0) || (high == -1 && low < 0)) {
            return low / whole;
        }
        return BigInteger.valueOf(total)
                .multiply(BigInteger.valueOf(part))
                .divide(BigInteger.valueOf(whole))
                .longValueExact();
    }

    /**
     * The port a protocol/port bucket counts a flow under: the service's. ICMP and ICMPv6 keep type
     * * 256 + code as exported; otherwise the lower of the two ports (an absent port, 0, does not
     * count), so a server's answers to a client's ephemeral port count with the requests to the
     * service (443, 53, ...) instead of spreading over tens of thousands of ephemeral ports.
     */
    static int servicePort(FlowRecord f) {
        int dst = f.dstPort();
        int proto = f.protocol();
        if (proto == 1 || proto == 58) {
            return dst;
        }
        int src = f.srcPort();
        if (src == 0) {
            return dst;
        }
        return dst == 0 ? src : Math.min(src, dst);
    }

    private static long scaled(long v, long scale) {
        try {
            return Math.multiplyExact(v, scale);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static void emit(
            FlowRecord f, long windowStart, long b, long p, long flows, Collector<RollupRow> out) {
        IpAddress none = IpAddress.UNSPECIFIED;
        IpAddress e = f.exporterAddress();
        long w = windowStart;
        int iface = RollupKind.INTERFACE.code();
        out.collect(
                new RollupRow(
                        iface,
                        w,
                        e,
                        f.inputInterface(),
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        none,
                        none,
                        b,
                        p,
                        flows,
                        0));
        out.collect(
                new RollupRow(
                        iface,
                        w,
                        e,
                        f.outputInterface(),
                        1,
                        0,
                        0,
                        0,
                        0,
                        0,
                        none,
                        none,
                        b,
                        p,
                        flows,
                        0));
        out.collect(
                new RollupRow(
                        RollupKind.PROTO_PORT.code(),
                        w,
                        e,
                        0,
                        0,
                        f.protocol(),
                        servicePort(f),
                        0,
                        0,
                        0,
                        none,
                        none,
                        b,
                        p,
                        flows,
                        0));
        out.collect(
                new RollupRow(
                        RollupKind.AS_PAIR.code(),
                        w,
                        e,
                        0,
                        0,
                        0,
                        0,
                        f.srcAs(),
                        f.dstAs(),
                        0,
                        none,
                        none,
                        b,
                        p,
                        flows,
                        0));
        out.collect(
                new RollupRow(
                        RollupKind.TALKER.code(),
                        w,
                        e,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        f.srcAddr(),
                        none,
                        b,
                        p,
                        flows,
                        0));
        out.collect(
                new RollupRow(
                        RollupKind.CONVERSATION.code(),
                        w,
                        e,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        f.srcAddr(),
                        f.dstAddr(),
                        b,
                        p,
                        flows,
                        0));
    }
}
