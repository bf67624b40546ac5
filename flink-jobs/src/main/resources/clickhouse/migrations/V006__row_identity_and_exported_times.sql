-- Rows of stamped datagrams are named by 128 bits (row_id + row_id_hi, see the job's RowIds):
-- the second word joins the sorting key in the same ALTER, a change of metadata only (existing
-- parts keep their order: row_id_hi is 0 in them, the value older rows keep). Both ClickHouse
-- 18.16 and current servers take ADD COLUMN with MODIFY ORDER BY in one statement; a second run
-- fails with "already exists" and counts as done.
ALTER TABLE ${DB}.flows ADD COLUMN row_id_hi UInt64${CODEC_ID} AFTER row_id, MODIFY ORDER BY (toStartOfFiveMinute(time_received), exporter, in_if, out_if, row_id, row_id_hi);
-- The flow's times as the exporter sent them when the job moved them into its event-time window
-- around the receive time (flowhouse.decode.event-time.*); 0 (1970-01-01) when they were kept.
ALTER TABLE ${DB}.flows ADD COLUMN exported_flow_start ${TIME}${CODEC_TIME} AFTER flow_end;
ALTER TABLE ${DB}.flows ADD COLUMN exported_flow_end ${TIME}${CODEC_TIME} AFTER exported_flow_start;
-- Re-sent datagrams (the same stamp seen again) are dropped before they are counted; counted here.
ALTER TABLE ${DB}.exporter_stats ADD COLUMN duplicate_datagrams UInt64 AFTER rejected_records;
