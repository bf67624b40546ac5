#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The job on one TaskManager against the same job on two: `./flowhouse up --taskmanagers N`
# (N = 1 with 2 slots, N = 2 with 1 slot each: job parallelism 2 either way), the same loadgen
# IPFIX load each time, then from Flink's REST API
#   - per TaskManager: JVM CPU time (Status.JVM.CPU.Time) spent during the load;
#   - per subtask of every vertex: records in, busy time (accumulated-busy-time) and where it ran,
#     so the key-group balance (records per decode subtask) and the per-subtask cost show;
#   - rows in flowhouse.flows against loadgen's count.
# Binds the fixed ports: run it under the lock on a shared machine, nothing else of ours running:
#   flock /tmp/flowhouse-services.lock bench/scripts/taskmanagers.sh [RATE] [SECONDS] [EXPORTERS]
# Prints one block per topology and the load average; writes bench/results/taskmanagers-<run>.txt.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
rate="${1:-20000}"
seconds="${2:-60}"
exporters="${3:-16}"
rest="http://127.0.0.1:${FLOWHOUSE_FLINK_REST_PORT:-8081}"
run="$(date -u +%Y%m%dT%H%M%SZ)"
out="bench/results/taskmanagers-$run.txt"
mkdir -p bench/results

say() {
  echo "$*" | tee -a "$out"
}

# Prints "taskmanager-id cpu-seconds" for every TaskManager (Status.JVM.CPU.Time, ns).
tm_cpu() {
  python3 - "$rest" <<'PY'
import json, sys, urllib.request
rest = sys.argv[1]
get = lambda path: json.load(urllib.request.urlopen(rest + path, timeout=10))
for t in get("/taskmanagers")["taskmanagers"]:
    m = get("/taskmanagers/" + t["id"] + "/metrics?get=Status.JVM.CPU.Time")
    print(t["id"], int(m[0]["value"]) / 1e9 if m else "nan")
PY
}

job_id() {
  python3 - "$rest" <<'PY'
import json, sys, urllib.request
jobs = json.load(urllib.request.urlopen(sys.argv[1] + "/jobs/overview", timeout=10))["jobs"]
print(next((j["jid"] for j in jobs if j["state"] == "RUNNING"), ""))
PY
}

# Per vertex and subtask: records in, busy time (ms), the TaskManager it ran on.
subtasks() {
  python3 - "$rest" "$1" <<'PY'
import json, sys, urllib.request
rest, jid = sys.argv[1], sys.argv[2]
get = lambda path: json.load(urllib.request.urlopen(rest + path, timeout=10))
for v in get("/jobs/" + jid)["vertices"]:
    for s in get("/jobs/" + jid + "/vertices/" + v["id"])["subtasks"]:
        m = s.get("metrics", {})
        tm = s.get("taskmanager-id", s.get("endpoint", "?"))
        print(f"{v['name'][:60]:60s} #{s['subtask']} tm={tm[-28:]:28s}"
              f" in={m.get('read-records', 0):>10} busy_ms={m.get('accumulated-busy-time', 0):>8}")
PY
}

flows_rows() {
  ./flowhouse query "SELECT count() FROM flowhouse.flows" 2>/dev/null | tail -n 1 | tr -dc '0-9'
}

measure() {
  local tms="$1" slots="$2"
  say "=== $tms TaskManager(s) x $slots slot(s), job parallelism 2; load $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%T)"
  ./flowhouse down >/dev/null 2>&1 || true
  ./flowhouse up --taskmanagers "$tms" --flink-slots "$slots" -- --job.parallelism 2 >>"$out" 2>&1
  local jid="" i
  for i in $(seq 1 60); do
    jid="$(job_id)"
    [[ -n "$jid" ]] && break
    sleep 2
  done
  [[ -n "$jid" ]] || { say "no running job"; return 1; }
  sleep 20 # let every task start and the first checkpoint pass
  local before_rows before_cpu after_cpu
  before_rows="$(flows_rows)"
  before_cpu="$(tm_cpu)"
  say "loadgen: ipfix, $exporters exporters, $rate flows/s for $seconds s"
  ./flowhouse loadgen --to 127.0.0.1:4739 --protocol ipfix --exporters "$exporters" \
    --rate "$rate" --duration "${seconds}s" >>"$out" 2>&1
  # Until the rows stop growing once most of the load is in (loadgen's own count may fall a
  # few flows short of rate x seconds), at most 5 minutes.
  local want=$((rate * seconds)) rows=0 last=-1
  for i in $(seq 1 60); do
    rows="$(flows_rows)"
    rows="${rows:-0}"
    if (( rows - before_rows >= want * 99 / 100 && rows == last )); then
      break
    fi
    last="$rows"
    sleep 3
  done
  after_cpu="$(tm_cpu)"
  say "rows added: $((rows - before_rows)) (loadgen: $want); load $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%T)"
  say "TaskManager CPU during the load (s):"
  join <(sort <<<"$before_cpu") <(sort <<<"$after_cpu") |
    awk -v f="$((rows - before_rows))" '{c=$3-$2; t+=c; printf "  %s %.1f s\n", $1, c} END {m=0; if (f>0) m=t*1e6/f; printf "  total %.1f CPU-s, %.1f CPU-s per million flows\n", t, m}' | tee -a "$out"
  say "subtasks (records in, busy ms since the job started):"
  subtasks "$jid" | tee -a "$out"
  ./flowhouse down >>"$out" 2>&1
}

say "taskmanagers.sh run $run, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
measure 1 2
measure 2 1
say "end $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg); results: $out"
