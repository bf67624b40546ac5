-- A table owned by the test: readings keyed by id, copies of a row collapse.
CREATE TABLE IF NOT EXISTS ${DB}.readings
(
    time ${TIME},
    id UInt64,
    value UInt64${CODEC_COUNTER}
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMMDD(time)
ORDER BY id
${TTL_READINGS}
SETTINGS index_granularity = 8192;
