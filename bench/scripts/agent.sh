#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Capture-agent benchmark harness (not a test): highest drop-free NetFlow rate into Kafka, side
# by side with goflow2 and nfcapd, and the offline packet path. Loopback only; every run is
# bounded in time. Results and the exact commands are in capture-agent/BENCHMARKS.md. The Java
# mains (OfflinePacketBench, BenchKafka) live in capture-agent's test sources; `./flowhouse bench
# agent --peers` and `bench packets` are the maintained successors of `udp` and `offline`.
#
#   bench/scripts/agent.sh udp   [RATES...]   # datagrams/s steps, default "20000 40000 60000 80000 100000"
#   bench/scripts/agent.sh offline [PASSES]   # packets-synthetic.pcap N times through parse+batch(+Kafka)
#   bench/scripts/agent.sh live [RATES...]    # live capture on lo (root): nfblast to a closed port
#                                     # (BENCH_SENDER=tcpreplay: tcpreplay onto lo; RATE "max")
#
# Needs: mvn -Pfast -pl capture-agent -am install -DskipTests; nfblast built into /tmp/nfblast
# (cd testdata/gen/nfblast && go build -o /tmp/nfblast .); goflow2 at /root/go/bin/goflow2;
# nfcapd (apt nfdump).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MOD="$(cd "$HERE/../../capture-agent" && pwd)"
TESTDATA="${FLOWHOUSE_TESTDATA:-$(cd "$MOD/.." && pwd)/testdata}"
PCAP="${BENCH_PCAP:-$TESTDATA/netflow-v5-softflowd.pcap}"
DURATION="${BENCH_DURATION:-10s}"
NFBLAST="${NFBLAST:-/tmp/nfblast}"
GOFLOW2="${GOFLOW2:-/root/go/bin/goflow2}"
WORK="${BENCH_WORK:-/tmp/flowhouse-bench}"
KAFKA_PORT=19092
AGENT_PORT=12055
GOFLOW_PORT=22055
NFCAPD_PORT=32055
METRICS_PORT=19464
mkdir -p "$WORK"

if [[ ! -f "$WORK/cp" || "$MOD/pom.xml" -nt "$WORK/cp" ]]; then
  (cd "$MOD" && mvn -B -ntp -o -q dependency:build-classpath -Dmdep.outputFile="$WORK/cp" \
      -Dmdep.includeScope=test)
fi
CP="${BENCH_CP_PREFIX:+$BENCH_CP_PREFIX:}$MOD/target/classes:$MOD/target/test-classes:$(cat "$WORK/cp")"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do [[ -n "$p" ]] && kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

# Kernel drops of the sockets bound to a UDP port (sum of the last column of /proc/net/udp{,6}).
udp_drops() {
  local hex; hex="$(printf '%04X' "$1")"
  awk -v p=":$hex" '$2 ~ p"$" {d += $NF} END {print d+0}' /proc/net/udp /proc/net/udp6
}

metric() { # metric NAME [LABEL-FILTER] -> sum over matching series
  curl -s "http://127.0.0.1:$METRICS_PORT/metrics" \
    | awk -v n="$1" -v f="${2:-}" '$1 ~ "^"n"({|$)" && index($1, f) {s += $2} END {printf "%.0f\n", s+0}'
}

start_kafka() {
  rm -rf "$WORK/kafka"
  "$JAVA" -Xmx1g -cp "$CP" io.flowhouse.agent.bench.BenchKafka "$KAFKA_PORT" "$WORK/kafka" 4 \
      >"$WORK/kafka.log" 2>&1 &
  KAFKA_PID=$!; PIDS+=($KAFKA_PID)
  for _ in $(seq 1 120); do grep -q "bench kafka ready" "$WORK/kafka.log" && return; sleep 1; done
  echo "kafka did not start" >&2; exit 1
}

blast() { # blast PORT RATE -> nfblast JSON (RATE "max": as fast as the sender can)
  if [[ "${BENCH_SENDER:-nfblast}" == tcpreplay ]]; then replay "$@"; return; fi
  local pps="$2"; [[ "$pps" == max ]] && pps=0
  "$NFBLAST" -r "$PCAP" -to "127.0.0.1:$1" -pps "$pps" -loops 1000000 -max-duration "$DURATION"
}

# replay PORT RATE: tcpreplay of the capture (UDP port rewritten to PORT) onto lo, frames injected
# below the socket layer; RATE packets/s or "max" (--topspeed); bounded by count and by time.
replay() {
  local secs="${DURATION%s}" frames count loops
  tcprewrite --portmap="2055:$1" --fixcsum -i "$PCAP" -o "$WORK/replay-$1.pcap"
  frames=$(capinfos -M -c "$WORK/replay-$1.pcap" | awk '/Number of packets/ {print $NF}')
  count=$(( ${2/max/1000000} * secs )); loops=$(( count / frames + 1 ))
  local speed=(--topspeed); [[ "$2" != max ]] && speed=(--pps="$2")
  { timeout $(( secs + 10 )) tcpreplay -i lo "${speed[@]}" --loop="$loops" --limit="$count" \
      --duration="$secs" "$WORK/replay-$1.pcap" 2>&1 || true; } | python3 -c '
import re, sys
t = sys.stdin.read()
m = re.search(r"Actual: (\d+) packets .* in ([0-9.]+) seconds", t)
n, el = (int(m.group(1)), float(m.group(2))) if m else (0, 1.0)
print({"datagrams_sent": n, "records_sent": 0, "elapsed_s": el}.__repr__().replace(chr(39), chr(34)))'
}

json() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

# CPU time of a process (user+system), in clock ticks (100 per second).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# line COLLECTOR RATE NFBLAST_JSON KERNEL_DROPS RECEIVED_DGRAMS LOST CPU_TICKS [BROKER_TICKS]
line() {
  python3 - "$@" <<'PY'
import json, sys
c, rate, js, drops, recv, lost, ticks = sys.argv[1:8]
broker = sys.argv[8] if len(sys.argv) > 8 else "-"
j = json.loads(js)
sent, flows, el = j["datagrams_sent"], j["records_sent"], j["elapsed_s"]
per = flows / max(sent, 1)
recv = int(recv) if recv != "-" else sent - int(drops)
cpu = int(ticks) / 100.0
fpc = round(recv * per / cpu) if cpu > 0 else 0
print(f"{c} {rate} {sent} {flows} {round(flows/el)} {drops} {recv} {lost} {cpu:.2f} {fpc} {broker}")
PY
}

udp() {
  local rates=("$@"); [[ ${#rates[@]} -eq 0 ]] && rates=(20000 40000 60000 80000 100000)
  echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), pcap $(basename "$PCAP")"
  echo "collector rate_dgram_s sent_dgram sent_flows offered_flows_per_s kernel_drops received_dgram lost_before_kafka cpu_s flows_per_cpu_s broker_cpu_s"
  start_kafka
  # --- flowhouse agent -> Kafka
  rm -rf "$WORK/spool"
  "$JAVA" -Xmx2g -cp "$CP" io.flowhouse.agent.CaptureAgentMain --listen "127.0.0.1:$AGENT_PORT" \
      --bootstrap-servers "127.0.0.1:$KAFKA_PORT" --spool-dir "$WORK/spool" \
      --metrics-port "$METRICS_PORT" --agent-id bench >"$WORK/agent.log" 2>&1 &
  local agent=$!; PIDS+=($agent)
  for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$METRICS_PORT/health" >/dev/null && break; sleep 1; done
  # Warm-up (JIT, producer connections), not reported.
  blast $AGENT_PORT 5000 >/dev/null; sleep 3
  for r in "${rates[@]}"; do
    local d0 a0 k0 c0 b0 out d1 a1 k1 c1 b1 sent
    d0=$(udp_drops $AGENT_PORT); a0=$(metric flowhouse_agent_datagrams_total)
    k0=$(metric flowhouse_agent_kafka_datagrams_total flows.raw); c0=$(cpu_ticks $agent); b0=$(cpu_ticks $KAFKA_PID)
    out=$(blast $AGENT_PORT "$r"); sleep 5
    d1=$(udp_drops $AGENT_PORT); a1=$(metric flowhouse_agent_datagrams_total)
    k1=$(metric flowhouse_agent_kafka_datagrams_total flows.raw); c1=$(cpu_ticks $agent); b1=$(cpu_ticks $KAFKA_PID)
    sent=$(json datagrams_sent <<<"$out")
    line flowhouse-agent "$r" "$out" $((d1-d0)) $((a1-a0)) $((sent-(k1-k0))) $((c1-c0)) "$(python3 -c "print(f'{($b1-$b0)/100:.2f}')")"
  done
  echo "agent spooled=$(metric flowhouse_agent_spooled_records_total) dropped=$(metric flowhouse_agent_dropped_datagrams_total)"
  kill "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true; unset 'PIDS[-1]'
  # --- goflow2, binary (protobuf) output to a file
  "$GOFLOW2" -listen "netflow://127.0.0.1:$GOFLOW_PORT" -format bin -transport file \
      -transport.file "$WORK/goflow2.bin" -addr 127.0.0.1:28080 >"$WORK/goflow2.log" 2>&1 &
  local gf=$!; PIDS+=($gf); sleep 2
  for r in "${rates[@]}"; do
    local d0 d1 c0 c1 out
    d0=$(udp_drops $GOFLOW_PORT); c0=$(cpu_ticks $gf); out=$(blast $GOFLOW_PORT "$r"); sleep 3
    d1=$(udp_drops $GOFLOW_PORT); c1=$(cpu_ticks $gf)
    line goflow2 "$r" "$out" $((d1-d0)) - - $((c1-c0))
    : >"$WORK/goflow2.bin"
  done
  kill "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true; unset 'PIDS[-1]'
  # --- nfcapd, nfdump files
  rm -rf "$WORK/nfcapd"; mkdir -p "$WORK/nfcapd"
  # nfcapd runs in the foreground (no -D), so $! is nfcapd itself.
  nfcapd -b 127.0.0.1 -p "$NFCAPD_PORT" -w "$WORK/nfcapd" -B 8388608 -t 3600 >"$WORK/nfcapd.log" 2>&1 &
  local nc=$!; PIDS+=($nc); sleep 2
  for r in "${rates[@]}"; do
    local d0 d1 c0 c1 out
    d0=$(udp_drops $NFCAPD_PORT); c0=$(cpu_ticks $nc); out=$(blast $NFCAPD_PORT "$r"); sleep 3
    d1=$(udp_drops $NFCAPD_PORT); c1=$(cpu_ticks $nc)
    line nfcapd "$r" "$out" $((d1-d0)) - - $((c1-c0))
  done
}

offline() { # BENCH_COMPRESSION="lz4 zstd none" runs the Kafka part once per producer compression
  local passes="${1:-100}" c b0 b1
  echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$JAVA" -Xmx2g -cp "$CP" io.flowhouse.agent.bench.OfflinePacketBench \
      "$TESTDATA/packets-synthetic.pcap" "$passes" 2>/dev/null | grep '^offline'
  start_kafka
  for c in ${BENCH_COMPRESSION:-lz4}; do
    echo "# compression $c, load $(cut -d' ' -f1-3 /proc/loadavg)"
    b0=$(cpu_ticks $KAFKA_PID)
    "$JAVA" -Xmx2g -Dbench.compression="$c" -cp "$CP" io.flowhouse.agent.bench.OfflinePacketBench \
        "$TESTDATA/packets-synthetic.pcap" "$passes" "127.0.0.1:$KAFKA_PORT" 2>/dev/null \
        | grep '^offline'
    b1=$(cpu_ticks $KAFKA_PID)
    echo "offline broker CPU $(python3 -c "print(f'{($b1-$b0)/100:.2f}')") s (whole run, agent start to close)"
  done
}

live() { # live capture on lo: nfblast to a closed port, agent --interface lo --filter
  # BENCH_LIVE_ARGS adds agent flags, e.g. "--snaplen 256" or "--config FILE" (packets.buffer-bytes)
  local rates=("$@"); [[ ${#rates[@]} -eq 0 ]] && rates=(20000 50000 100000)
  echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), pcap $(basename "$PCAP"), agent args: ${BENCH_LIVE_ARGS:-none}"
  echo "rate_pps sent captured_ok pcap_kernel_drops pcap_if_drops batches_acked agent_cpu_s"
  start_kafka
  rm -rf "$WORK/spool-live"
  "$JAVA" -Xmx2g -cp "$CP" io.flowhouse.agent.CaptureAgentMain --interface lo \
      --filter "${BENCH_LIVE_FILTER:-udp and dst port 12099}" --bootstrap-servers "127.0.0.1:$KAFKA_PORT" \
      --spool-dir "$WORK/spool-live" --metrics-port "$METRICS_PORT" ${BENCH_LIVE_ARGS:-} \
      >"$WORK/agent-live.log" 2>&1 &
  local agent=$!; PIDS+=($agent)
  for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$METRICS_PORT/health" >/dev/null && break; sleep 1; done
  for r in "${rates[@]}"; do
    local p0 k0 i0 b0 c0 out p1 k1 i1 b1 c1
    p0=$(metric flowhouse_agent_packets_total OK); k0=$(metric flowhouse_agent_pcap_drops_total kernel)
    i0=$(metric flowhouse_agent_pcap_drops_total interface); b0=$(metric flowhouse_agent_kafka_records_total packets.raw)
    c0=$(cpu_ticks $agent)
    out=$(blast 12099 "$r"); sleep 4
    p1=$(metric flowhouse_agent_packets_total OK); k1=$(metric flowhouse_agent_pcap_drops_total kernel)
    i1=$(metric flowhouse_agent_pcap_drops_total interface); b1=$(metric flowhouse_agent_kafka_records_total packets.raw)
    c1=$(cpu_ticks $agent)
    echo "$r $(json datagrams_sent <<<"$out") $((p1-p0)) $((k1-k0)) $((i1-i0)) $((b1-b0)) $(python3 -c "print(($c1-$c0)/100)")"
  done
}

cmd="${1:-}"; shift || true
case "$cmd" in
  udp) udp "$@" ;;
  offline) offline "$@" ;;
  live) live "$@" ;;
  *) sed -n '3,14p' "$0"; exit 2 ;;
esac
