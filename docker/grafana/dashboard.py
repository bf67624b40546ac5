#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The "Flowhouse flows" Grafana dashboard, written as code.

The SQL of every panel lives here, readable; dashboards/flowhouse-flows.json is generated from it,
with dashboards/flowhouse-pipeline.json (Prometheus: agent, Flink, ClickHouse health):

    python3 docker/grafana/dashboard.py            # rewrite dashboards/*.json
    python3 docker/grafana/dashboard.py --check    # fail if a JSON is not what this writes

test_dashboard_sql.py runs every query against the real migrations in an embedded ClickHouse.
Tables and columns: sinks/src/main/resources/clickhouse/migrations (flowhouse.flows,
flowhouse.exporter_stats). Counters are scaled by sampling_rate; FINAL collapses rows that a
replay wrote twice (both tables are ReplacingMergeTree). Macros: grafana-clickhouse-datasource
($__timeFilter, $__timeInterval, $__interval_s).
"""
import json
import os
import sys

DS = {"type": "grafana-clickhouse-datasource", "uid": "flowhouse-clickhouse"}
PLUGIN_VERSION = "4.20.0"


def ip_text(col):
    # IPv4 addresses are stored IPv4-mapped in IPv6 columns: show them as dotted quads.
    return (
        f"if(match(toString({col}), '^::ffff:[0-9.]+$'), "
        f"substring(toString({col}), 8), toString({col}))"
    )


EXPORTER = ip_text("exporter")
# '__all' is the variable's "All" value (allValue below), so the filter needs no IN () list.
EXPORTER_FILTER = (
    "('__all' IN (${exporter:singlequote}) OR " + EXPORTER + " IN (${exporter:singlequote}))"
)
BYTES = "bytes * sampling_rate"
PROTO_NAME = (
    "transform(proto, [1, 2, 6, 17, 41, 47, 50, 51, 58, 89, 132], "
    "['ICMP', 'IGMP', 'TCP', 'UDP', 'IPv6-in-IPv4', 'GRE', 'ESP', 'AH', 'ICMPv6', 'OSPF', 'SCTP'], "
    "concat('IP proto ', toString(proto)))"
)

SQL_TRAFFIC = f"""-- Bits per second per exporter; counters scaled by the sampling rate; FINAL drops replayed duplicates.
SELECT
    $__timeInterval(time_received) AS time,
    {EXPORTER} AS exporter_ip,
    sum({BYTES}) * 8 / $__interval_s AS bps
FROM flowhouse.flows FINAL
WHERE $__timeFilter(time_received)
  AND {EXPORTER_FILTER}
GROUP BY time, exporter_ip
ORDER BY time"""

SQL_TALKERS = f"""-- Hosts by traffic sent plus received, over the last hour (panel time override).
SELECT
    {ip_text('host_addr')} AS host,
    sumIf(scaled_bytes, role = 1) AS sent_bytes,
    sumIf(scaled_bytes, role = 2) AS received_bytes,
    sum(scaled_bytes) AS total_bytes,
    sum(scaled_packets) AS total_packets,
    count() AS flows
FROM
(
    SELECT src_addr, dst_addr, {BYTES} AS scaled_bytes, packets * sampling_rate AS scaled_packets
    FROM flowhouse.flows FINAL
    WHERE $__timeFilter(time_received)
      AND {EXPORTER_FILTER}
)
ARRAY JOIN [src_addr, dst_addr] AS host_addr, [1, 2] AS role
GROUP BY host
ORDER BY total_bytes DESC
LIMIT 20"""

SQL_PROTOCOLS = f"""-- Share of bytes per IP protocol.
SELECT
    {PROTO_NAME} AS protocol,
    sum({BYTES}) AS bytes
FROM flowhouse.flows FINAL
WHERE $__timeFilter(time_received)
  AND {EXPORTER_FILTER}
GROUP BY protocol
ORDER BY bytes DESC"""

SQL_PORTS = f"""-- Service port: the lower of the two ports of a TCP/UDP/SCTP flow (servers listen low,
-- clients use ephemeral ports), so both directions of a conversation count for the service.
SELECT
    concat({PROTO_NAME}, '/', toString(least(src_port, dst_port))) AS service,
    sum({BYTES}) AS bytes
FROM flowhouse.flows FINAL
WHERE $__timeFilter(time_received)
  AND proto IN (6, 17, 132)
  AND {EXPORTER_FILTER}
GROUP BY service
ORDER BY bytes DESC
LIMIT 15"""

SQL_INTERFACES = f"""-- Bits per second per interface (SNMP ifIndex) of each exporter: input above zero, output below.
SELECT
    $__timeInterval(time_received) AS time,
    concat({EXPORTER}, ' if', toString(if_index), if(side = 1, ' in', ' out')) AS interface,
    sum({BYTES}) * 8 / $__interval_s * if(side = 1, 1, -1) AS bps
FROM flowhouse.flows FINAL
ARRAY JOIN [in_if, out_if] AS if_index, [1, 2] AS side
WHERE $__timeFilter(time_received)
  AND if_index != 0
  AND {EXPORTER_FILTER}
GROUP BY time, interface, side
ORDER BY time"""

# address:port and domain of an exporter's transport session; IPv6 addresses in brackets.
STATS_EXPORTER = (
    "concat(if(position(toString(exporter), '.') = 0 AND position(toString(exporter), ':') > 0, "
    "concat('[', toString(exporter), ']'), " + EXPORTER + "), ':', toString(exporter_port), "
    "' domain ', toString(observation_domain))"
)

SQL_GAPS = f"""-- Records the exporters numbered but the collector never received (sequence-number gaps), per
-- minute and exporter (address:port and observation domain / source id). exporter_stats keeps one
-- row per key and minute; FINAL keeps its newest version.
SELECT
    minute AS time,
    {STATS_EXPORTER} AS exporter_session,
    sum(lost_records) AS records_lost
FROM flowhouse.exporter_stats FINAL
WHERE $__timeFilter(minute)
  AND {EXPORTER_FILTER}
GROUP BY time, exporter_session
ORDER BY time"""

SQL_HEALTH = f"""-- Per exporter session over the dashboard's time range. Aliases differ from the column names
-- on purpose: ClickHouse resolves an alias before a column of the same name.
SELECT
    {STATS_EXPORTER} AS exporter_session,
    any(version) AS export_version,
    sum(datagrams) AS datagrams_received,
    sum(records) AS records_received,
    sum(sequence_gaps) AS gaps,
    sum(lost_datagrams) AS datagrams_lost,
    sum(lost_records) AS records_lost,
    if(records_received + records_lost = 0, 0,
       records_lost / (records_received + records_lost)) AS loss_ratio,
    sum(sequence_resets) AS resets,
    sum(records_before_template) AS before_template,
    sum(rejected_records) AS rejected
FROM flowhouse.exporter_stats FINAL
WHERE $__timeFilter(minute)
  AND {EXPORTER_FILTER}
GROUP BY exporter_session
ORDER BY records_lost DESC, records_received DESC"""

SQL_VARIABLE = f"""SELECT DISTINCT {EXPORTER} AS exporter_ip
FROM flowhouse.exporter_stats
WHERE $__timeFilter(minute)
ORDER BY exporter_ip"""


def target(sql, fmt):
    return {
        "refId": "A",
        "datasource": DS,
        "editorType": "sql",
        "format": fmt,
        "queryType": "timeseries" if fmt == 0 else "table",
        "pluginVersion": PLUGIN_VERSION,
        "rawSql": sql,
    }


def grid(x, y, w, h):
    return {"x": x, "y": y, "w": w, "h": h}


def timeseries(pid, title, desc, sql, pos, unit, extra_defaults=None):
    defaults = {
        "unit": unit,
        "custom": {"drawStyle": "line", "lineWidth": 1, "fillOpacity": 10, "showPoints": "never"},
    }
    defaults.update(extra_defaults or {})
    return {
        "id": pid,
        "type": "timeseries",
        "title": title,
        "description": desc,
        "datasource": DS,
        "gridPos": pos,
        "fieldConfig": {"defaults": defaults, "overrides": []},
        "options": {
            "legend": {"displayMode": "table", "placement": "right", "calcs": ["mean", "max"]},
            "tooltip": {"mode": "multi", "sort": "desc"},
        },
        "targets": [target(sql, 0)],
    }


def panels():
    out = []
    out.append(
        timeseries(
            1,
            "Traffic per exporter",
            "Bits per second seen by each exporter, from flowhouse.flows (bytes x sampling_rate,"
            " FINAL). Time axis: time the agent received the export datagram.",
            SQL_TRAFFIC,
            grid(0, 0, 24, 9),
            "bps",
            {"custom": {"drawStyle": "line", "lineWidth": 1, "fillOpacity": 15,
                        "showPoints": "never", "stacking": {"mode": "normal", "group": "A"}}},
        )
    )
    out.append(
        {
            "id": 2,
            "type": "table",
            "title": "Top talkers (last hour)",
            "description": "Hosts by bytes sent plus received in the last hour, sampling-scaled.",
            "datasource": DS,
            "gridPos": grid(0, 9, 12, 10),
            "timeFrom": "1h",
            "fieldConfig": {
                "defaults": {"custom": {"align": "auto"}},
                "overrides": [
                    {"matcher": {"id": "byRegexp", "options": ".*_bytes"},
                     "properties": [{"id": "unit", "value": "decbytes"}]},
                    {"matcher": {"id": "byName", "options": "total_packets"},
                     "properties": [{"id": "unit", "value": "short"}]},
                    {"matcher": {"id": "byName", "options": "total_bytes"},
                     "properties": [{"id": "custom.cellOptions",
                                     "value": {"type": "gauge", "mode": "basic"}}]},
                ],
            },
            "options": {"showHeader": True, "footer": {"show": False}},
            "targets": [target(SQL_TALKERS, 1)],
        }
    )
    out.append(
        {
            "id": 3,
            "type": "piechart",
            "title": "Protocol mix",
            "description": "Share of bytes per IP protocol, sampling-scaled.",
            "datasource": DS,
            "gridPos": grid(12, 9, 6, 10),
            "fieldConfig": {"defaults": {"unit": "decbytes"}, "overrides": []},
            "options": {
                "reduceOptions": {"values": True, "calcs": ["lastNotNull"], "fields": "/^bytes$/"},
                "pieType": "donut",
                "legend": {"displayMode": "table", "placement": "right", "values": ["percent"]},
                "displayLabels": ["name"],
                "tooltip": {"mode": "single"},
            },
            "targets": [target(SQL_PROTOCOLS, 1)],
        }
    )
    out.append(
        {
            "id": 4,
            "type": "bargauge",
            "title": "Top ports",
            "description": "Bytes per service (protocol / lower port of the flow), top 15.",
            "datasource": DS,
            "gridPos": grid(18, 9, 6, 10),
            "fieldConfig": {"defaults": {"unit": "decbytes", "min": 0}, "overrides": []},
            "options": {
                "reduceOptions": {"values": True, "calcs": ["lastNotNull"], "fields": "/^bytes$/"},
                "orientation": "horizontal",
                "displayMode": "basic",
                "showUnfilled": True,
            },
            "targets": [target(SQL_PORTS, 1)],
        }
    )
    out.append(
        timeseries(
            5,
            "Per-interface in / out",
            "Bits per second per exporter interface (ifIndex): input (in_if) above zero, output"
            " (out_if) below. Flows with interface 0 (unknown) are left out.",
            SQL_INTERFACES,
            grid(0, 19, 24, 10),
            "bps",
        )
    )
    out.append(
        timeseries(
            6,
            "Exporter sequence gaps (lost records)",
            "Records lost between exporter and collector, from sequence-number gaps in"
            " flowhouse.exporter_stats. Anything above zero is loss on the path or a full"
            " socket buffer.",
            SQL_GAPS,
            grid(0, 29, 12, 9),
            "short",
            {"custom": {"drawStyle": "bars", "lineWidth": 1, "fillOpacity": 60,
                        "showPoints": "never", "stacking": {"mode": "normal", "group": "A"}},
             "min": 0},
        )
    )
    out.append(
        {
            "id": 7,
            "type": "table",
            "title": "Exporter health",
            "description": "Datagrams, records, sequence gaps and their loss ratio, resets and"
            " decode problems per exporter session, over the dashboard's time range.",
            "datasource": DS,
            "gridPos": grid(12, 29, 12, 9),
            "fieldConfig": {
                "defaults": {"custom": {"align": "auto"}},
                "overrides": [
                    {"matcher": {"id": "byName", "options": "loss_ratio"},
                     "properties": [
                         {"id": "unit", "value": "percentunit"},
                         {"id": "decimals", "value": 3},
                         {"id": "thresholds", "value": {"mode": "absolute", "steps": [
                             {"color": "green", "value": None},
                             {"color": "orange", "value": 0.0001},
                             {"color": "red", "value": 0.01}]}},
                         {"id": "custom.cellOptions", "value": {"type": "color-text"}},
                     ]},
                ],
            },
            "options": {"showHeader": True, "footer": {"show": False}},
            "targets": [target(SQL_HEALTH, 1)],
        }
    )
    return out


def dashboard():
    return {
        "uid": "flowhouse-flows",
        "title": "Flowhouse flows",
        "description": "Flows stored by the Flowhouse pipeline in ClickHouse (flowhouse.flows,"
        " flowhouse.exporter_stats). Counters are scaled by the sampling rate; FINAL removes rows"
        " written twice by a replay.",
        "tags": ["flowhouse", "netflow", "ipfix"],
        "timezone": "browser",
        "editable": True,
        "graphTooltip": 1,
        "refresh": "1m",
        "schemaVersion": 39,
        "version": 1,
        "time": {"from": "now-6h", "to": "now"},
        "timepicker": {},
        "annotations": {"list": []},
        "links": [],
        "templating": {
            "list": [
                {
                    "name": "exporter",
                    "label": "Exporter",
                    "type": "query",
                    "datasource": DS,
                    "query": {
                        "refId": "exporter",
                        "datasource": DS,
                        "editorType": "sql",
                        "format": 1,
                        "pluginVersion": PLUGIN_VERSION,
                        "rawSql": SQL_VARIABLE,
                    },
                    "definition": SQL_VARIABLE,
                    "refresh": 2,
                    "multi": True,
                    "includeAll": True,
                    "allValue": "'__all'",
                    "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
                    "sort": 1,
                    "hide": 0,
                    "options": [],
                }
            ]
        },
        "panels": panels(),
    }


PROM = {"type": "prometheus", "uid": "flowhouse-prometheus"}


def prom_panel(pid, title, desc, exprs, pos, unit, stack=False, bars=False):
    custom = {"drawStyle": "bars" if bars else "line", "lineWidth": 1,
              "fillOpacity": 40 if bars else 10, "showPoints": "never"}
    if stack:
        custom["stacking"] = {"mode": "normal", "group": "A"}
    return {
        "id": pid,
        "type": "timeseries",
        "title": title,
        "description": desc,
        "datasource": PROM,
        "gridPos": pos,
        "fieldConfig": {"defaults": {"unit": unit, "min": 0, "custom": custom}, "overrides": []},
        "options": {
            "legend": {"displayMode": "table", "placement": "right", "calcs": ["mean", "max"]},
            "tooltip": {"mode": "multi", "sort": "desc"},
        },
        "targets": [
            {"refId": chr(ord("A") + i), "datasource": PROM, "expr": expr, "legendFormat": legend}
            for i, (expr, legend) in enumerate(exprs)
        ],
    }


def pipeline_panels():
    """Every place the pipeline can lose or delay data, from Prometheus (agent, Flink, ClickHouse)."""
    return [
        prom_panel(
            1, "Agent: datagrams received per exporter",
            "flowhouse_agent_datagrams_total by exporter address and export version.",
            [("sum by (exporter, version) (rate(flowhouse_agent_datagrams_total[$__rate_interval]))",
              "{{exporter}} v{{version}}")],
            grid(0, 0, 12, 8), "pps", stack=True),
        prom_panel(
            2, "Agent: losses and rejects",
            "Datagrams the kernel dropped on the agent's sockets (buffer full: raise"
            " net.core.rmem_max), datagrams that did not reach Kafka, and datagrams rejected by the"
            " header check (sent to flows.rejected). All should be zero.",
            [("sum by (port) (rate(flowhouse_agent_socket_drops_total[$__rate_interval]))",
              "kernel drops, port {{port}}"),
             ("sum by (reason) (rate(flowhouse_agent_dropped_datagrams_total[$__rate_interval]))",
              "dropped: {{reason}}"),
             ("sum by (reason) (rate(flowhouse_agent_rejected_datagrams_total[$__rate_interval]))",
              "rejected: {{reason}}"),
             ("sum(rate(flowhouse_agent_kafka_send_errors_total[$__rate_interval]))",
              "Kafka send errors (spooled)")],
            grid(12, 0, 12, 8), "pps", bars=True),
        prom_panel(
            3, "Agent: Kafka and spool",
            "Datagrams and records acknowledged by Kafka per topic (a record holds up to"
            " kafka.record-max-datagrams datagrams of one exporter, 64 by default), and records"
            " waiting in the on-disk spool while Kafka is unreachable.",
            [("sum by (topic) (rate(flowhouse_agent_kafka_datagrams_total[$__rate_interval]))",
              "acked datagrams {{topic}} /s"),
             ("sum by (topic) (rate(flowhouse_agent_kafka_records_total[$__rate_interval]))",
              "acked records {{topic}} /s"),
             ("sum(flowhouse_agent_spool_depth_records)", "spooled records (depth)")],
            grid(0, 8, 12, 8), "short"),
        prom_panel(
            4, "Flink: Kafka source backlog",
            "Records not yet read from Kafka by the job (pendingRecords of the Kafka source, summed"
            " over subtasks): grows when decoding or ClickHouse falls behind.",
            [("sum by (job_name) (flink_taskmanager_job_task_operator_pendingRecords)",
              "{{job_name}}")],
            grid(12, 8, 12, 8), "short"),
        prom_panel(
            5, "Flink: records out per task",
            "Records each task emits per second.",
            [("sum by (task_name) (flink_taskmanager_job_task_numRecordsOutPerSecond)",
              "{{task_name}}")],
            grid(0, 16, 12, 8), "short"),
        prom_panel(
            6, "Flink: back-pressure per task",
            "Milliseconds per second each task spent back-pressured (max over subtasks);"
            " 1000 means the task downstream of it is the bottleneck.",
            [("max by (task_name) (flink_taskmanager_job_task_backPressuredTimeMsPerSecond)",
              "{{task_name}}")],
            grid(12, 16, 12, 8), "ms"),
        prom_panel(
            7, "Flink: checkpoints and restarts",
            "Rows reach ClickHouse only when a checkpoint completes: its duration bounds the"
            " end-to-end latency. Failed checkpoints and restarts should stay flat.",
            [("max by (job_name) (flink_jobmanager_job_lastCheckpointDuration)",
              "last checkpoint duration (ms) {{job_name}}"),
             ("max by (job_name) (flink_jobmanager_job_numberOfFailedCheckpoints)",
              "failed checkpoints {{job_name}}"),
             ("max by (job_name) (flink_jobmanager_job_numRestarts)", "restarts {{job_name}}")],
            grid(0, 24, 12, 8), "short"),
        prom_panel(
            8, "ClickHouse: inserted rows and parts",
            "Rows inserted per second, and the largest number of active parts in one partition"
            " (inserts are rejected when it approaches parts_to_throw_insert).",
            [("sum(rate(ClickHouseProfileEvents_InsertedRows[$__rate_interval]))", "inserted rows/s"),
             ("max(ClickHouseAsyncMetrics_MaxPartCountForPartition)", "max parts per partition")],
            grid(12, 24, 12, 8), "short"),
    ]


def pipeline_dashboard():
    return {
        "uid": "flowhouse-pipeline",
        "title": "Flowhouse pipeline",
        "description": "Health of the Flowhouse pipeline from Prometheus: the agent's receive,"
        " drop and spool counters, the Flink job's backlog, back-pressure and checkpoints, and"
        " ClickHouse inserts.",
        "tags": ["flowhouse", "operations"],
        "timezone": "browser",
        "editable": True,
        "graphTooltip": 1,
        "refresh": "30s",
        "schemaVersion": 39,
        "version": 1,
        "time": {"from": "now-3h", "to": "now"},
        "timepicker": {},
        "annotations": {"list": []},
        "links": [],
        "templating": {"list": []},
        "panels": pipeline_panels(),
    }


DASHBOARDS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dashboards")
OUTPUTS = {
    "flowhouse-flows.json": dashboard,
    "flowhouse-pipeline.json": pipeline_dashboard,
}


def render(build):
    return json.dumps(build(), indent=2) + "\n"


def main(argv):
    if argv[1:] == ["--check"]:
        stale = 0
        for name, build in OUTPUTS.items():
            path = os.path.join(DASHBOARDS_DIR, name)
            try:
                with open(path, encoding="utf-8") as f:
                    current = f.read()
            except FileNotFoundError:
                current = None
            if current != render(build):
                print(f"dashboard.py: {path} is stale: run python3 docker/grafana/dashboard.py",
                      file=sys.stderr)
                stale += 1
            else:
                print(f"dashboard.py: {name} is up to date ({len(build()['panels'])} panels)")
        return 1 if stale else 0
    if argv[1:]:
        print("usage: dashboard.py [--check]", file=sys.stderr)
        return 2
    for name, build in OUTPUTS.items():
        with open(os.path.join(DASHBOARDS_DIR, name), "w", encoding="utf-8") as f:
            f.write(render(build))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
