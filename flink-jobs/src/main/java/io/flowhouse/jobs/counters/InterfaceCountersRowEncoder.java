// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.counters;

import io.flowhouse.codec.sflow.EthernetInterfaceCounters;
import io.flowhouse.codec.sflow.GenericInterfaceCounters;
import io.flowhouse.codec.sflow.InterfaceCounters;
import io.flowhouse.sinks.clickhouse.ClickHouseRowEncoder;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.sinks.clickhouse.ShardKeys;
import java.util.List;

/**
 * An sFlow counter sample's interface counters ({@link InterfaceCounters}, as the codec decoded
 * them) to a row of {@code flowhouse.interface_counters} (migration V007). A record the sample did
 * not carry is written as zeros with its {@code has_} column 0.
 */
public final class InterfaceCountersRowEncoder implements ClickHouseRowEncoder<InterfaceCounters> {

    private static final long serialVersionUID = 1L;

    public static final List<String> COLUMNS =
            List.of(
                    "time",
                    "exporter",
                    "exporter_port",
                    "agent",
                    "sub_agent_id",
                    "datagram_sequence",
                    "uptime_ms",
                    "sample_sequence",
                    "source_id_class",
                    "source_id_index",
                    "if_index",
                    "has_generic",
                    "if_type",
                    "if_speed",
                    "if_direction",
                    "if_status",
                    "in_octets",
                    "in_ucast_pkts",
                    "in_multicast_pkts",
                    "in_broadcast_pkts",
                    "in_discards",
                    "in_errors",
                    "in_unknown_protos",
                    "out_octets",
                    "out_ucast_pkts",
                    "out_multicast_pkts",
                    "out_broadcast_pkts",
                    "out_discards",
                    "out_errors",
                    "promiscuous_mode",
                    "has_ethernet",
                    "dot3_alignment_errors",
                    "dot3_fcs_errors",
                    "dot3_single_collision_frames",
                    "dot3_multiple_collision_frames",
                    "dot3_sqe_test_errors",
                    "dot3_deferred_transmissions",
                    "dot3_late_collisions",
                    "dot3_excessive_collisions",
                    "dot3_internal_mac_transmit_errors",
                    "dot3_carrier_sense_errors",
                    "dot3_frame_too_longs",
                    "dot3_internal_mac_receive_errors",
                    "dot3_symbol_errors");

    @Override
    public String table() {
        return "interface_counters";
    }

    @Override
    public List<String> columns(ServerCapabilities caps) {
        return COLUMNS;
    }

    /** By exporter, like every table of the job. */
    @Override
    public long shardKey(InterfaceCounters c) {
        return ShardKeys.exporter(c.exporterAddress());
    }

    @Override
    public void encode(InterfaceCounters c, RowBinaryOutput out, ServerCapabilities caps) {
        out.dateTime(c.timeReceivedMillis());
        out.ipv6(c.exporterAddress());
        out.uint16(c.exporterPort());
        out.ipv6(c.agentAddress());
        out.uint32(c.subAgentId());
        out.uint32(c.datagramSequence());
        out.uint32(c.uptimeMillis());
        out.uint32(c.sampleSequence());
        out.uint8(c.sourceIdClass());
        out.uint32(c.sourceIdIndex());
        out.uint32(c.ifIndex());
        GenericInterfaceCounters g = c.generic();
        out.uint8(g == null ? 0 : 1);
        if (g == null) {
            out.uint32(0);
            out.uint64(0);
            out.uint8(0);
            out.uint8(0);
            for (int i = 0; i < 13; i++) {
                out.uint64(0);
            }
            out.uint32(0);
        } else {
            out.uint32(g.ifType());
            out.uint64(g.ifSpeed());
            out.uint8(g.ifDirection());
            out.uint8(g.ifStatus());
            out.uint64(g.ifInOctets());
            out.uint64(g.ifInUcastPkts());
            out.uint64(g.ifInMulticastPkts());
            out.uint64(g.ifInBroadcastPkts());
            out.uint64(g.ifInDiscards());
            out.uint64(g.ifInErrors());
            out.uint64(g.ifInUnknownProtos());
            out.uint64(g.ifOutOctets());
            out.uint64(g.ifOutUcastPkts());
            out.uint64(g.ifOutMulticastPkts());
            out.uint64(g.ifOutBroadcastPkts());
            out.uint64(g.ifOutDiscards());
            out.uint64(g.ifOutErrors());
            out.uint32(g.ifPromiscuousMode());
        }
        EthernetInterfaceCounters e = c.ethernet();
        out.uint8(e == null ? 0 : 1);
        if (e == null) {
            for (int i = 0; i < 13; i++) {
                out.uint64(0);
            }
        } else {
            out.uint64(e.dot3StatsAlignmentErrors());
            out.uint64(e.dot3StatsFCSErrors());
            out.uint64(e.dot3StatsSingleCollisionFrames());
            out.uint64(e.dot3StatsMultipleCollisionFrames());
            out.uint64(e.dot3StatsSQETestErrors());
            out.uint64(e.dot3StatsDeferredTransmissions());
            out.uint64(e.dot3StatsLateCollisions());
            out.uint64(e.dot3StatsExcessiveCollisions());
            out.uint64(e.dot3StatsInternalMacTransmitErrors());
            out.uint64(e.dot3StatsCarrierSenseErrors());
            out.uint64(e.dot3StatsFrameTooLongs());
            out.uint64(e.dot3StatsInternalMacReceiveErrors());
            out.uint64(e.dot3StatsSymbolErrors());
        }
    }
}
