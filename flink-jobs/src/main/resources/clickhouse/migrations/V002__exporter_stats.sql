-- Per exporter (address, port, observation domain / source id) and minute, written by the decode
-- job: datagrams and records seen, sequence-number gaps and what they lost, decode problems by
-- kind. One row holds the complete counts of its minute; a later row for the same key (a window
-- fired again, or a replay) replaces it: the highest updated_at wins (FINAL or argMax).
CREATE TABLE IF NOT EXISTS ${DB}.exporter_stats
(
    minute DateTime,
    exporter ${IP},
    exporter_port UInt16,
    observation_domain UInt32,
    version UInt8,
    datagrams UInt64,
    datagram_bytes UInt64,
    records UInt64,
    template_records UInt64,
    sequence_gaps UInt64,
    lost_datagrams UInt64,
    lost_records UInt64,
    sequence_resets UInt64,
    records_before_template UInt64,
    rejected_records UInt64,
    problem_kinds Array(String),
    problem_counts Array(UInt64),
    updated_at UInt64
)
ENGINE = ReplacingMergeTree(updated_at)
PARTITION BY toYYYYMM(minute)
ORDER BY (exporter, exporter_port, observation_domain, minute)
${TTL_STATS};
