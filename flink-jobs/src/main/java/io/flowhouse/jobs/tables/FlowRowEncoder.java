// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.clickhouse.ClickHouseRowEncoder;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.sinks.clickhouse.ShardKeys;
import java.util.List;

/**
 * {@link FlowRecord} to a row of {@code flowhouse.flows} (migrations V001, V003, V006 and the VRF
 * ids of V011). Counters are written as sent with the sampling rate beside them; {@code row_id} and
 * {@code row_id_hi} are {@link RowIds#of} and {@link RowIds#high}; {@code exported_flow_start} and
 * {@code exported_flow_end} are the exporter's times when the job moved the flow's into its
 * event-time window (else 0).
 */
public final class FlowRowEncoder implements ClickHouseRowEncoder<FlowRecord> {

    private static final long serialVersionUID = 1L;

    /** The columns, in the order {@link #encode} writes them. */
    public static final List<String> COLUMNS =
            List.of(
                    "time_received",
                    "flow_start",
                    "flow_end",
                    "exporter",
                    "exporter_port",
                    "observation_domain",
                    "version",
                    "sequence_number",
                    "record_index",
                    "row_id",
                    "ip_version",
                    "src_addr",
                    "dst_addr",
                    "src_port",
                    "dst_port",
                    "proto",
                    "tcp_flags",
                    "tos",
                    "in_if",
                    "out_if",
                    "src_as",
                    "dst_as",
                    "vlan",
                    "bytes",
                    "packets",
                    "sampling_rate",
                    "export_time",
                    "next_hop",
                    "src_prefix_len",
                    "dst_prefix_len",
                    "post_vlan",
                    "src_mac",
                    "dst_mac",
                    "reverse_bytes",
                    "reverse_packets",
                    "direction",
                    "flow_end_reason",
                    "row_id_hi",
                    "exported_flow_start",
                    "exported_flow_end",
                    "in_vrf_id",
                    "out_vrf_id");

    @Override
    public String table() {
        return "flows";
    }

    @Override
    public List<String> columns(ServerCapabilities caps) {
        return COLUMNS;
    }

    /** By exporter, like every table of the job. */
    @Override
    public long shardKey(FlowRecord r) {
        return ShardKeys.exporter(r.exporterAddress());
    }

    @Override
    public void encode(FlowRecord r, RowBinaryOutput out, ServerCapabilities caps) {
        encode(r, r.srcAs(), r.dstAs(), out, caps);
    }

    /** {@link #COLUMNS} of {@code r}, with the AS numbers given (enrichment may fill them). */
    static void encode(
            FlowRecord r, long srcAs, long dstAs, RowBinaryOutput out, ServerCapabilities caps) {
        boolean ms = caps.dateTime64();
        time(out, r.timeReceivedMillis(), ms);
        time(out, r.flowStartMillis(), ms);
        time(out, r.flowEndMillis(), ms);
        out.ipv6(r.exporterAddress());
        out.uint16(r.exporterPort());
        out.uint32(r.observationDomainId());
        out.uint8(r.version());
        out.uint32(r.sequenceNumber());
        out.uint32(r.recordIndex());
        out.uint64(RowIds.of(r));
        out.uint8(r.ipVersion());
        out.ipv6(r.srcAddr());
        out.ipv6(r.dstAddr());
        out.uint16(r.srcPort());
        out.uint16(r.dstPort());
        out.uint8(r.protocol());
        out.uint16(r.tcpFlags());
        out.uint8(r.tos());
        out.uint32(r.inputInterface());
        out.uint32(r.outputInterface());
        out.uint32(srcAs);
        out.uint32(dstAs);
        out.uint16(r.vlanId());
        out.uint64(r.bytes());
        out.uint64(r.packets());
        out.uint32(saturateUInt32(r.samplingRate()));
        time(out, r.exportTimeMillis(), ms);
        out.ipv6(r.nextHop());
        out.uint8(r.srcPrefixLen());
        out.uint8(r.dstPrefixLen());
        out.uint16(r.postVlanId());
        out.uint64(r.srcMac());
        out.uint64(r.dstMac());
        out.uint64(r.reverseBytes());
        out.uint64(r.reversePackets());
        out.int8(r.direction());
        out.uint8(r.flowEndReason());
        out.uint64(RowIds.high(r));
        time(out, r.exportedFlowStartMillis(), ms);
        time(out, r.exportedFlowEndMillis(), ms);
        out.uint32(r.inputVrfId());
        out.uint32(r.outputVrfId());
    }

    static void time(RowBinaryOutput out, long epochMillis, boolean dateTime64) {
        if (dateTime64) {
            out.dateTime64Millis(epochMillis);
        } else {
            out.dateTime(epochMillis);
        }
    }

    private static long saturateUInt32(long v) {
        return v < 0 || v > 0xffff_ffffL ? 0xffff_ffffL : v;
    }
}
