// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.packet.PacketSummary;
import java.time.Duration;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * The metrics and the state TTL shared by the keyed ({@link FlowAgeingFunction}) and the bucketed
 * ({@link BucketedFlowAgeingFunction}) flow table, so both report under the same names.
 */
final class AgeingMetrics {

    final Counter flowsOut;
    final Counter forcedFlows;
    final Counter packetsIn;
    final Counter latePackets;
    final Counter lateDropped;
    final Counter ttlExpiredFlows;

    /** Registers the counters and the {@code packet_flows_active} gauge under "flowhouse". */
    AgeingMetrics(MetricGroup metrics, Gauge<Long> activeFlows) {
        var group = metrics.addGroup("flowhouse");
        flowsOut = group.counter("packet_flows_total");
        forcedFlows = group.counter("packet_flows_lack_of_resources_total");
        packetsIn = group.counter("packets_total");
        latePackets = group.counter("packets_late_total");
        lateDropped = group.counter("packets_late_dropped_total");
        ttlExpiredFlows = group.counter("packet_flows_ttl_expired_total");
        group.gauge("packet_flows_active", activeFlows);
    }

    /** Counts a packet, and a late one; its timestamp in epoch milliseconds. */
    long packet(PacketSummary p, long watermark) {
        packetsIn.inc();
        long ts = Math.floorDiv(p.timestampNanos(), 1_000_000L);
        if (ts <= watermark) {
            // Behind the watermark: it joins its flow if that is still open, else it is dropped
            // (packets_late_dropped_total). Raise flowhouse.packets.max-out-of-orderness when this
            // counts up.
            latePackets.inc();
        }
        return ts;
    }

    /**
     * The flow state's TTL. Incremental cleanup visits one entry per state access (Flink's default
     * is 5): with two accesses per packet it still sweeps the whole table every (entries / 2)
     * packets, far inside the TTL, while the default's scan of the heap table cost a third of the
     * ageing thread's CPU (BENCHMARKS-ageing.md). The bucketed table has one entry per bucket, so
     * its sweep is shorter still.
     */
    static StateTtlConfig ttl(Duration stateTtl) {
        return StateTtlConfig.newBuilder(stateTtl)
                .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)
                .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                .cleanupIncrementally(1, false)
                .build();
    }
}
