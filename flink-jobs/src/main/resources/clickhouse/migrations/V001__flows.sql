-- Raw flows, one row per flow record as the exporter sent it (counters not scaled by sampling).
-- ReplacingMergeTree + a deterministic row_id as the last sorting-key column: a flow written twice
-- (a replay after a failure) has identical key columns, so the copies collapse on merge and
-- `FROM flows FINAL` never double counts. See sinks/README-clickhouse.md.
CREATE TABLE IF NOT EXISTS ${DB}.flows
(
    time_received ${TIME}${CODEC_TIME},
    flow_start ${TIME}${CODEC_TIME},
    flow_end ${TIME}${CODEC_TIME},
    exporter ${IP}${CODEC_ADDR},
    exporter_port UInt16,
    observation_domain UInt32,
    version UInt8,
    sequence_number UInt32,
    record_index UInt32,
    row_id UInt64${CODEC_ID},
    ip_version UInt8,
    src_addr ${IP}${CODEC_ADDR},
    dst_addr ${IP}${CODEC_ADDR},
    src_port UInt16,
    dst_port UInt16,
    proto UInt8,
    tcp_flags UInt16,
    tos UInt8,
    in_if UInt32,
    out_if UInt32,
    src_as UInt32,
    dst_as UInt32,
    vlan UInt16,
    bytes UInt64${CODEC_COUNTER},
    packets UInt64${CODEC_COUNTER},
    sampling_rate UInt32
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMMDD(time_received)
PRIMARY KEY (toStartOfFiveMinute(time_received), exporter, in_if, out_if)
ORDER BY (toStartOfFiveMinute(time_received), exporter, in_if, out_if, row_id)
${TTL_FLOWS}
SETTINGS ${SETTINGS_FLOWS};
