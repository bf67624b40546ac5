-- The exporter's name in exporter_stats, from the enrichment rules file or SNMP sysName ('' when
-- enrichment is off or nothing names it, and in rows written before this migration). 18.16 has no
-- ADD COLUMN IF NOT EXISTS: an "already exists" error counts as done.
ALTER TABLE ${DB}.exporter_stats ADD COLUMN exporter_name ${LC_STRING} AFTER version;
