// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.jobs.rollup.PieceWatermarks;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * Event time of the decode path: the time the agent received each datagram, with watermarks per
 * Kafka partition (the source's per-split watermarks) that trail the newest receive time by a
 * bound, and idleness, so a quiet partition does not stall the others. Never a time an exporter
 * wrote: one exporter's clock cannot move anyone's watermark, and a flow's own time is only kept
 * within a window around its receive time ({@code EventTimeClamp}). The rollups place each flow
 * piece in its window by the flow's time and trail this watermark by their own bound.
 *
 * <p>Watermarks go out as receive times advance (a step of a second at least), not only on periodic
 * ticks, so a replay of a partition moves them at the same records as the live run.
 */
public final class FlowTimestamps {

    private FlowTimestamps() {}

    /** For the raw source: receive time, per partition, with the bound and idleness. */
    public static WatermarkStrategy<RawDatagram> datagrams(
            Duration maxOutOfOrderness, Duration idleness) {
        long bound = maxOutOfOrderness.toMillis();
        WatermarkStrategy<RawDatagram> w =
                WatermarkStrategy.<RawDatagram>forGenerator(ctx -> new PieceWatermarks<>(bound))
                        .withTimestampAssigner((d, previous) -> d.receivedMillis());
        return idleness.isZero() ? w : w.withIdleness(idleness);
    }

    /**
     * For flows that did not come through the raw source (tests, tools): their receive time, with
     * the same bound and idleness.
     */
    public static WatermarkStrategy<FlowRecord> flows(
            Duration maxOutOfOrderness, Duration idleness) {
        long bound = maxOutOfOrderness.toMillis();
        WatermarkStrategy<FlowRecord> w =
                WatermarkStrategy.<FlowRecord>forGenerator(ctx -> new PieceWatermarks<>(bound))
                        .withTimestampAssigner((f, previous) -> f.timeReceivedMillis());
        return idleness.isZero() ? w : w.withIdleness(idleness);
    }
}
