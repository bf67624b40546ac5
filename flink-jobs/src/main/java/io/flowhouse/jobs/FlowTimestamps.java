// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import io.flowhouse.codec.flow.FlowRecord;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * Event time of a flow: its end time as the exporter reported it; the receive time only when the
 * record has no end time. Never the processor's clock, so a live run and a replay agree.
 */
public final class FlowTimestamps implements SerializableTimestampAssigner<FlowRecord> {

    @Override
    public long extractTimestamp(FlowRecord f, long recordTimestamp) {
        return f.flowEndMillis() > 0 ? f.flowEndMillis() : f.timeReceivedMillis();
    }

    /** Bounded out-of-orderness plus idleness, so a quiet partition does not stall windows. */
    public static WatermarkStrategy<FlowRecord> strategy(
            Duration maxOutOfOrderness, Duration idleness) {
        WatermarkStrategy<FlowRecord> w =
                WatermarkStrategy.<FlowRecord>forBoundedOutOfOrderness(maxOutOfOrderness)
                        .withTimestampAssigner(new FlowTimestamps());
        return idleness.isZero() ? w : w.withIdleness(idleness);
    }
}
