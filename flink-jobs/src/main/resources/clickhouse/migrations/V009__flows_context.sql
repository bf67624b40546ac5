-- Enrichment context of each flow (enrichment/README.md): exporter attributes, in/out interface
-- name, description, speed (Mbps), boundary ('', 'external', 'internal'), provider and
-- connectivity, src/dst country (ISO 3166-1 alpha-2) and src/dst network attributes. '' and 0 when
-- unknown, and in rows written before this migration. src_as/dst_as keep their columns: with
-- enrichment on they hold the number chosen per enrich.asn-order. AS names live once per AS in
-- as_names, joined at query time (flows_readable). One ADD COLUMN a statement: 18.16 has no ADD
-- COLUMN IF NOT EXISTS, so the migrator treats "already exists" as done.
ALTER TABLE ${DB}.flows ADD COLUMN exporter_name ${LC_STRING} AFTER exported_flow_end;
ALTER TABLE ${DB}.flows ADD COLUMN exporter_role ${LC_STRING} AFTER exporter_name;
ALTER TABLE ${DB}.flows ADD COLUMN exporter_site ${LC_STRING} AFTER exporter_role;
ALTER TABLE ${DB}.flows ADD COLUMN exporter_region ${LC_STRING} AFTER exporter_site;
ALTER TABLE ${DB}.flows ADD COLUMN exporter_tenant ${LC_STRING} AFTER exporter_region;
ALTER TABLE ${DB}.flows ADD COLUMN in_if_name ${LC_STRING} AFTER exporter_tenant;
ALTER TABLE ${DB}.flows ADD COLUMN in_if_description ${LC_STRING} AFTER in_if_name;
ALTER TABLE ${DB}.flows ADD COLUMN in_if_speed UInt64 AFTER in_if_description;
ALTER TABLE ${DB}.flows ADD COLUMN in_if_boundary ${LC_STRING} AFTER in_if_speed;
ALTER TABLE ${DB}.flows ADD COLUMN in_if_provider ${LC_STRING} AFTER in_if_boundary;
ALTER TABLE ${DB}.flows ADD COLUMN in_if_connectivity ${LC_STRING} AFTER in_if_provider;
ALTER TABLE ${DB}.flows ADD COLUMN out_if_name ${LC_STRING} AFTER in_if_connectivity;
ALTER TABLE ${DB}.flows ADD COLUMN out_if_description ${LC_STRING} AFTER out_if_name;
ALTER TABLE ${DB}.flows ADD COLUMN out_if_speed UInt64 AFTER out_if_description;
ALTER TABLE ${DB}.flows ADD COLUMN out_if_boundary ${LC_STRING} AFTER out_if_speed;
ALTER TABLE ${DB}.flows ADD COLUMN out_if_provider ${LC_STRING} AFTER out_if_boundary;
ALTER TABLE ${DB}.flows ADD COLUMN out_if_connectivity ${LC_STRING} AFTER out_if_provider;
ALTER TABLE ${DB}.flows ADD COLUMN src_country ${LC_STRING} AFTER out_if_connectivity;
ALTER TABLE ${DB}.flows ADD COLUMN dst_country ${LC_STRING} AFTER src_country;
ALTER TABLE ${DB}.flows ADD COLUMN src_net_name ${LC_STRING} AFTER dst_country;
ALTER TABLE ${DB}.flows ADD COLUMN src_net_role ${LC_STRING} AFTER src_net_name;
ALTER TABLE ${DB}.flows ADD COLUMN src_net_site ${LC_STRING} AFTER src_net_role;
ALTER TABLE ${DB}.flows ADD COLUMN src_net_region ${LC_STRING} AFTER src_net_site;
ALTER TABLE ${DB}.flows ADD COLUMN src_net_tenant ${LC_STRING} AFTER src_net_region;
ALTER TABLE ${DB}.flows ADD COLUMN dst_net_name ${LC_STRING} AFTER src_net_tenant;
ALTER TABLE ${DB}.flows ADD COLUMN dst_net_role ${LC_STRING} AFTER dst_net_name;
ALTER TABLE ${DB}.flows ADD COLUMN dst_net_site ${LC_STRING} AFTER dst_net_role;
ALTER TABLE ${DB}.flows ADD COLUMN dst_net_region ${LC_STRING} AFTER dst_net_site;
ALTER TABLE ${DB}.flows ADD COLUMN dst_net_tenant ${LC_STRING} AFTER dst_net_region;
CREATE TABLE IF NOT EXISTS ${DB}.as_names
(
    asn UInt32,
    name String,
    updated DateTime
)
ENGINE = ReplacingMergeTree(updated)
ORDER BY asn;
DROP TABLE IF EXISTS ${DB}.flows_readable;
-- As V004's, with the context columns and the AS names from as_names (one join per SELECT: 18.16).
CREATE VIEW IF NOT EXISTS ${DB}.flows_readable AS
SELECT
    time_received,
    flow_start,
    flow_end,
    exporter_ip,
    exporter_port,
    observation_domain,
    version,
    sequence_number,
    record_index,
    src_ip,
    dst_ip,
    src_port,
    dst_port,
    proto,
    tcp_flags,
    tos,
    in_if,
    out_if,
    src_as,
    dst_as,
    src_as_name,
    dst_as_name,
    vlan,
    src_mac_text,
    dst_mac_text,
    bytes,
    packets,
    reverse_bytes,
    reverse_packets,
    sampling_rate,
    bytes_scaled,
    packets_scaled,
    row_id,
    exporter_name,
    exporter_role,
    exporter_site,
    exporter_region,
    exporter_tenant,
    in_if_name,
    in_if_description,
    in_if_speed,
    in_if_boundary,
    in_if_provider,
    in_if_connectivity,
    out_if_name,
    out_if_description,
    out_if_speed,
    out_if_boundary,
    out_if_provider,
    out_if_connectivity,
    src_country,
    dst_country,
    src_net_name,
    src_net_role,
    src_net_site,
    src_net_region,
    src_net_tenant,
    dst_net_name,
    dst_net_role,
    dst_net_site,
    dst_net_region,
    dst_net_tenant
FROM
(
    SELECT
        time_received,
        flow_start,
        flow_end,
        ${IP_TO_STRING(exporter)} AS exporter_ip,
        exporter_port,
        observation_domain,
        version,
        sequence_number,
        record_index,
        ${IP_TO_STRING(src_addr)} AS src_ip,
        ${IP_TO_STRING(dst_addr)} AS dst_ip,
        src_port,
        dst_port,
        proto,
        tcp_flags,
        tos,
        in_if,
        out_if,
        src_as,
        dst_as,
        vlan,
        MACNumToString(src_mac) AS src_mac_text,
        MACNumToString(dst_mac) AS dst_mac_text,
        bytes,
        packets,
        reverse_bytes,
        reverse_packets,
        sampling_rate,
        bytes * sampling_rate AS bytes_scaled,
        packets * sampling_rate AS packets_scaled,
        row_id,
        exporter_name,
        exporter_role,
        exporter_site,
        exporter_region,
        exporter_tenant,
        in_if_name,
        in_if_description,
        in_if_speed,
        in_if_boundary,
        in_if_provider,
        in_if_connectivity,
        out_if_name,
        out_if_description,
        out_if_speed,
        out_if_boundary,
        out_if_provider,
        out_if_connectivity,
        src_country,
        dst_country,
        src_net_name,
        src_net_role,
        src_net_site,
        src_net_region,
        src_net_tenant,
        dst_net_name,
        dst_net_role,
        dst_net_site,
        dst_net_region,
        dst_net_tenant,
        src_as_name
    FROM ${DB}.flows
    ANY LEFT JOIN (SELECT asn AS src_as, name AS src_as_name FROM ${DB}.as_names) USING src_as
)
ANY LEFT JOIN (SELECT asn AS dst_as, name AS dst_as_name FROM ${DB}.as_names) USING dst_as;
