-- sFlow sample accounting in exporter_stats: flow samples missing by their data sources' sample
-- sequence numbers, and samples the agent dropped (the increase of its drops counters). 0 for
-- NetFlow and IPFIX rows and for rows written before this migration. 18.16 has no ADD COLUMN IF
-- NOT EXISTS: an "already exists" error counts as done.
ALTER TABLE ${DB}.exporter_stats ADD COLUMN lost_samples UInt64 AFTER duplicate_datagrams;
ALTER TABLE ${DB}.exporter_stats ADD COLUMN sample_drops UInt64 AFTER lost_samples;
