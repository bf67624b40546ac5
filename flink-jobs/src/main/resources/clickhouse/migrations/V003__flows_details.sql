-- Details beyond the 5-tuple: export time, next hop, prefixes, post-VLAN, MACs, RFC 5103 reverse
-- counters (biflows), direction and end reason. One ADD COLUMN a statement: 18.16 has no
-- ADD COLUMN IF NOT EXISTS, so the migrator treats "already exists" as done.
ALTER TABLE ${DB}.flows ADD COLUMN export_time ${TIME} AFTER sampling_rate;
ALTER TABLE ${DB}.flows ADD COLUMN next_hop ${IP}${CODEC_ADDR} AFTER export_time;
ALTER TABLE ${DB}.flows ADD COLUMN src_prefix_len UInt8 AFTER next_hop;
ALTER TABLE ${DB}.flows ADD COLUMN dst_prefix_len UInt8 AFTER src_prefix_len;
ALTER TABLE ${DB}.flows ADD COLUMN post_vlan UInt16 AFTER dst_prefix_len;
ALTER TABLE ${DB}.flows ADD COLUMN src_mac UInt64 AFTER post_vlan;
ALTER TABLE ${DB}.flows ADD COLUMN dst_mac UInt64 AFTER src_mac;
ALTER TABLE ${DB}.flows ADD COLUMN reverse_bytes UInt64${CODEC_COUNTER} AFTER dst_mac;
ALTER TABLE ${DB}.flows ADD COLUMN reverse_packets UInt64${CODEC_COUNTER} AFTER reverse_bytes;
ALTER TABLE ${DB}.flows ADD COLUMN direction Int8 DEFAULT -1 AFTER reverse_packets;
ALTER TABLE ${DB}.flows ADD COLUMN flow_end_reason UInt8 AFTER direction;
