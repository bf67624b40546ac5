-- exporter_stats is rebuilt with `version` in its sorting key: V002 sorted by (exporter,
-- exporter_port, observation_domain, minute) only, so the ReplacingMergeTree folded the NetFlow v9
-- and the IPFIX row of one exporter, domain and minute into one (FINAL kept whichever had the
-- higher updated_at). A sorting key cannot take an existing column, so: a new table with the right
-- key, every row copied over (rows already folded by a merge are gone; copies of a row collapse in
-- the new table too), then swapped in under the old name. The migrator holds its lock while this
-- runs; each statement is safe to run again after a start that died anywhere in between (a RENAME
-- whose target exists counts as done, and the drops clean up what such a start left).
CREATE TABLE IF NOT EXISTS ${DB}.exporter_stats_v005
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
ORDER BY (exporter, exporter_port, observation_domain, version, minute)
${TTL_STATS};
INSERT INTO ${DB}.exporter_stats_v005
SELECT minute, exporter, exporter_port, observation_domain, version, datagrams, datagram_bytes,
    records, template_records, sequence_gaps, lost_datagrams, lost_records, sequence_resets,
    records_before_template, rejected_records, problem_kinds, problem_counts, updated_at
FROM ${DB}.exporter_stats;
RENAME TABLE ${DB}.exporter_stats TO ${DB}.exporter_stats_v002,
    ${DB}.exporter_stats_v005 TO ${DB}.exporter_stats;
DROP TABLE IF EXISTS ${DB}.exporter_stats_v002;
DROP TABLE IF EXISTS ${DB}.exporter_stats_v005;
