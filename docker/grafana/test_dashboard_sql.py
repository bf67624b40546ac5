#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs every query of the Flowhouse dashboard against the real ClickHouse migrations.

It needs chDB, ClickHouse as a Python module (`pip install chdb`), not a server:

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install chdb
    /tmp/venv/bin/python docker/grafana/test_dashboard_sql.py

It creates flowhouse.flows and flowhouse.exporter_stats from
sinks/src/main/resources/clickhouse/migrations (modern dialect: IPv6, DateTime64(3), codecs,
TTL), inserts a few rows (an IPv4 and an IPv6 exporter, sampled 1:10 and unsampled, one row
written twice, an exporter_stats row replaced by a newer version), expands the macros as
grafana-clickhouse-datasource does (pkg/macros/macros.go) and $exporter as Grafana does for
"All" and for a selection, runs each panel's SQL and checks the figures that matter.
"""
import json
import os
import re
import sys
import time

import chdb  # noqa: F401 - the import error is the message when chDB is missing
from chdb import session as chs

HERE = os.path.dirname(os.path.abspath(__file__))
MIGRATIONS = os.path.join(HERE, "..", "..", "sinks", "src", "main", "resources", "clickhouse", "migrations")
DASHBOARD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "dashboards", "flowhouse-flows.json")

VALUES = {
    "DB": "flowhouse",
    "IP": "IPv6",
    "TIME": "DateTime64(3)",
    "LC_STRING": "LowCardinality(String)",
    "CODEC_TIME": " CODEC(DoubleDelta, LZ4)",
    "CODEC_COUNTER": " CODEC(T64, LZ4)",
    "CODEC_ADDR": " CODEC(ZSTD(1))",
    "CODEC_ID": " CODEC(ZSTD(1))",
    "TTL_FLOWS": "TTL toDateTime(time_received) + INTERVAL 15 DAY",
    "TTL_STATS": "TTL toDateTime(minute) + INTERVAL 90 DAY",
    "SETTINGS_FLOWS": "index_granularity = 8192, ttl_only_drop_parts = 1",
}


def render(sql):
    sql = re.sub(r"\$\{IP_TO_STRING\(([^)]*)\)\}", r"toString(\1)", sql)
    return re.sub(r"\$\{([A-Z_]+)\}", lambda m: VALUES[m.group(1)], sql)


BASE = (int(time.time()) // 3600) * 3600 - 3600
FROM_S, TO_S, INTERVAL_S = BASE, BASE + 3600, 60


def expand(sql, exporter_value):
    sql = re.sub(
        r"\$__timeFilter\(([^)]*)\)",
        lambda m: f"{m.group(1)} >= toDateTime({FROM_S}) AND {m.group(1)} <= toDateTime({TO_S})",
        sql,
    )
    sql = re.sub(
        r"\$__timeInterval\(([^)]*)\)",
        lambda m: f"toStartOfInterval(toDateTime({m.group(1)}), INTERVAL {INTERVAL_S} second)",
        sql,
    )
    sql = sql.replace("$__interval_s", str(INTERVAL_S))
    return sql.replace("${exporter:singlequote}", exporter_value)


def main():
    sess = chs.Session()
    names = open(f"{MIGRATIONS}/MIGRATIONS").read().split()
    sess.query("CREATE DATABASE IF NOT EXISTS flowhouse")
    for name in names:
        text = render(open(f"{MIGRATIONS}/{name}").read())
        text = "\n".join(l for l in text.splitlines() if not l.strip().startswith("--"))
        for stmt in text.split(";"):
            body = stmt.strip()
            if body:
                sess.query(body)
    # Two exporters (one IPv4, one IPv6), two interfaces, TCP/UDP/ICMP, sampled 1:10 and 1:1,
    # one row written twice (same row_id): FINAL must count it once.
    sess.query(
        f"""INSERT INTO flowhouse.flows
           (time_received, flow_start, flow_end, exporter, exporter_port, observation_domain, version,
            sequence_number, record_index, row_id, ip_version, src_addr, dst_addr, src_port, dst_port,
            proto, tcp_flags, tos, in_if, out_if, src_as, dst_as, vlan, bytes, packets, sampling_rate)
           VALUES
           (toDateTime64({BASE}+100, 3), toDateTime64({BASE}+0, 3), toDateTime64({BASE}+90, 3),
            toIPv6('::ffff:192.0.2.1'), 50000, 8, 10, 1, 0, 1001, 4, toIPv6('::ffff:198.51.100.7'),
            toIPv6('::ffff:203.0.113.9'), 51515, 443, 6, 27, 0, 3, 4, 64512, 64513, 0, 1000, 10, 10),
           (toDateTime64({BASE}+100, 3), toDateTime64({BASE}+0, 3), toDateTime64({BASE}+90, 3),
            toIPv6('::ffff:192.0.2.1'), 50000, 8, 10, 1, 0, 1001, 4, toIPv6('::ffff:198.51.100.7'),
            toIPv6('::ffff:203.0.113.9'), 51515, 443, 6, 27, 0, 3, 4, 64512, 64513, 0, 1000, 10, 10),
           (toDateTime64({BASE}+200, 3), toDateTime64({BASE}+150, 3), toDateTime64({BASE}+190, 3),
            toIPv6('2001:db8::1'), 4739, 1, 10, 2, 1, 1002, 6, toIPv6('2001:db8::10'),
            toIPv6('2001:db8::20'), 53, 40000, 17, 0, 0, 5, 6, 0, 0, 100, 200, 2, 1),
           (toDateTime64({BASE}+300, 3), toDateTime64({BASE}+250, 3), toDateTime64({BASE}+290, 3),
            toIPv6('::ffff:192.0.2.1'), 50000, 8, 10, 3, 0, 1003, 4, toIPv6('::ffff:198.51.100.8'),
            toIPv6('::ffff:203.0.113.9'), 0, 2048, 1, 0, 0, 0, 4, 0, 0, 0, 84, 1, 10)"""
    )
    sess.query(
        f"""INSERT INTO flowhouse.exporter_stats
           (minute, exporter, exporter_port, observation_domain, version, datagrams, datagram_bytes,
            records, template_records, sequence_gaps, lost_datagrams, lost_records, sequence_resets,
            records_before_template, rejected_records, problem_kinds, problem_counts, updated_at)
           VALUES
           (toDateTime({BASE}+40), toIPv6('::ffff:192.0.2.1'), 50000, 8, 10, 10, 12000, 100, 2, 1,
            1, 7, 0, 0, 0, [], [], 1),
           (toDateTime({BASE}+40), toIPv6('::ffff:192.0.2.1'), 50000, 8, 10, 12, 14000, 120, 2, 1,
            1, 9, 0, 0, 0, [], [], 2),
           (toDateTime({BASE}+100), toIPv6('2001:db8::1'), 4739, 1, 10, 5, 3000, 50, 1, 0, 0, 0,
            0, 0, 0, [], [], 1)"""
    )
    dash = json.load(open(DASHBOARD))
    queries = {p["title"]: p["targets"][0]["rawSql"] for p in dash["panels"]}
    queries["variable"] = dash["templating"]["list"][0]["query"]["rawSql"]
    results = {}
    failures = []
    for selection in ("'__all'", "'192.0.2.1'", "'192.0.2.1','2001:db8::1'"):
        for title, sql in queries.items():
            try:
                out = sess.query(expand(sql, selection), "JSONEachRow").bytes().decode()
                results[(title, selection)] = [json.loads(l) for l in out.splitlines() if l]
            except Exception as e:  # noqa: BLE001 - report every failing query
                failures.append(f"{title} [exporter={selection}]: {e}")
    ran = len(queries) * 3 - len(failures)
    print(f"{ran}/{len(queries) * 3} queries ran")

    def rows(title, selection="'__all'"):
        return results.get((title, selection), [])

    def check(what, ok):
        print(("ok     " if ok else "WRONG  ") + what)
        if not ok:
            failures.append(what)

    t = rows("Traffic per exporter")
    check("traffic: the duplicated row counts once, x10 sampling: 1000 B -> 1333.3 bit/s",
          any(r["exporter_ip"] == "192.0.2.1" and abs(r["bps"] - 10000 * 8 / 60) < 1e-6 for r in t))
    check("traffic: IPv6 exporter shown as 2001:db8::1",
          any(r["exporter_ip"] == "2001:db8::1" for r in t))
    check("traffic: exporter filter keeps 192.0.2.1 only",
          {r["exporter_ip"] for r in rows("Traffic per exporter", "'192.0.2.1'")} == {"192.0.2.1"})
    talkers = {r["host"]: r for r in rows("Top talkers (last hour)")}
    check("talkers: 203.0.113.9 received 10000 + 840 bytes",
          int(talkers.get("203.0.113.9", {}).get("received_bytes", 0)) == 10840)
    check("talkers: 198.51.100.7 sent 10000 bytes",
          int(talkers.get("198.51.100.7", {}).get("sent_bytes", 0)) == 10000)
    protos = {r["protocol"]: int(r["bytes"]) for r in rows("Protocol mix")}
    check("protocols: TCP 10000, ICMP 840, UDP 200",
          protos == {"TCP": 10000, "ICMP": 840, "UDP": 200})
    ports = {r["service"]: int(r["bytes"]) for r in rows("Top ports")}
    check("ports: TCP/443 10000, UDP/53 200 (ICMP left out)", ports == {"TCP/443": 10000, "UDP/53": 200})
    ifs = {}
    for r in rows("Per-interface in / out"):
        ifs[r["interface"]] = ifs.get(r["interface"], 0) + r["bps"]
    check("interfaces: if3 in positive, if4 out negative, ifIndex 0 left out",
          ifs.get("192.0.2.1 if3 in", 0) > 0 and ifs.get("192.0.2.1 if4 out", 0) < 0
          and not any(" if0 " in k for k in ifs))
    gaps = {r["exporter_session"]: int(r["records_lost"]) for r in rows("Exporter sequence gaps (lost records)")}
    check("gaps: the newest exporter_stats version (9 lost) wins over the older (7)",
          gaps.get("192.0.2.1:50000 domain 8") == 9)
    health = {r["exporter_session"]: r for r in rows("Exporter health")}
    h = health.get("192.0.2.1:50000 domain 8", {})
    check("health: loss ratio 9 / (120 + 9)", abs(float(h.get("loss_ratio", -1)) - 9 / 129) < 1e-9)
    check("health: IPv6 session shown as [2001:db8::1]:4739", "[2001:db8::1]:4739 domain 1" in health)
    check("variable: both exporters listed",
          [r["exporter_ip"] for r in rows("variable")] == ["192.0.2.1", "2001:db8::1"])
    for f in failures:
        print(f"FAILED {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
