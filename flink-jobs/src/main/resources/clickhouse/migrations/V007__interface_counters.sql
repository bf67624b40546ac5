-- sFlow counter samples that carry interface counters (generic 0:1 and Ethernet 0:2 records), one
-- row per sample as the agent sent it: running totals (rates are differences between samples of one
-- interface), 32-bit counters an agent does not have as 4294967295, as sent. time is the receive
-- time of the datagram; a re-sent sample is the same row and collapses under FINAL.
CREATE TABLE IF NOT EXISTS ${DB}.interface_counters
(
    time DateTime,
    exporter ${IP},
    exporter_port UInt16,
    agent ${IP},
    sub_agent_id UInt32,
    datagram_sequence UInt32,
    uptime_ms UInt32,
    sample_sequence UInt32,
    source_id_class UInt8,
    source_id_index UInt32,
    if_index UInt32,
    has_generic UInt8,
    if_type UInt32,
    if_speed UInt64,
    if_direction UInt8,
    if_status UInt8,
    in_octets UInt64,
    in_ucast_pkts UInt64,
    in_multicast_pkts UInt64,
    in_broadcast_pkts UInt64,
    in_discards UInt64,
    in_errors UInt64,
    in_unknown_protos UInt64,
    out_octets UInt64,
    out_ucast_pkts UInt64,
    out_multicast_pkts UInt64,
    out_broadcast_pkts UInt64,
    out_discards UInt64,
    out_errors UInt64,
    promiscuous_mode UInt32,
    has_ethernet UInt8,
    dot3_alignment_errors UInt64,
    dot3_fcs_errors UInt64,
    dot3_single_collision_frames UInt64,
    dot3_multiple_collision_frames UInt64,
    dot3_sqe_test_errors UInt64,
    dot3_deferred_transmissions UInt64,
    dot3_late_collisions UInt64,
    dot3_excessive_collisions UInt64,
    dot3_internal_mac_transmit_errors UInt64,
    dot3_carrier_sense_errors UInt64,
    dot3_frame_too_longs UInt64,
    dot3_internal_mac_receive_errors UInt64,
    dot3_symbol_errors UInt64
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(time)
ORDER BY (agent, sub_agent_id, if_index, time, source_id_class, source_id_index, sample_sequence)
${TTL_COUNTERS};
