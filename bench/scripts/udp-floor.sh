#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The floor of a UDP flow collector on this machine (not a test): loadgen sends at each rate to
# the cheapest receiver there can be (bench/peers/udp-sink: recvmmsg, count, discard), and the
# CPU of both is measured. What a real collector (the agent with its Kafka producer and broker,
# goflow2, sfcapd) spends beside the same sender can only be more; on a two-core machine the sum
# says which drop-free rates can be measured at all with the sender on the same cores.
#
#   bench/scripts/udp-floor.sh [PROTOCOL] [RATES...]   # default: sflow 1175000 2750000 (samples/s)
#
# Env: FLOOR_SECONDS (default 10) per rate. Needs gcc, and the launcher built
# (mvn -B -ntp -Pfast install -DskipTests, as ./flowhouse does). Loopback only; each step is
# bounded by FLOOR_SECONDS.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PROTOCOL="${1:-sflow}"
shift || true
RATES=("$@")
[[ ${#RATES[@]} -gt 0 ]] || RATES=(1175000 2750000)
SECONDS_PER_RATE="${FLOOR_SECONDS:-10}"
WORK="$(mktemp -d /tmp/flowhouse-udp-floor.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
PORT=17777

gcc -O2 -Wall -o "$WORK/udp_sink" "$ROOT/bench/peers/udp-sink/udp_sink.c"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
CP="$ROOT/launcher/target/lib/*:$ROOT/launcher/target/classes"
[[ -d "$ROOT/launcher/target/classes" ]] || { echo "build the launcher first" >&2; exit 1; }

# Kernel drops of the sockets bound to a UDP port (sum of the last column of /proc/net/udp).
udp_drops() {
  local hex; hex="$(printf '%04X' "$1")"
  awk -v p=":$hex" '$2 ~ p"$" {d += $NF} END {print d+0}' /proc/net/udp
}

# CPU-seconds (user + system) of one loadgen run, JVM start included.
loadgen_cpu() {
  /usr/bin/time -f "%U %S" -o "$WORK/time" "$JAVA" -cp "$CP" io.flowhouse.launcher.FlowhouseMain \
      loadgen --to "127.0.0.1:$PORT" --protocol "$PROTOCOL" --exporters 8 --replay-pool 200 \
      --quiet "$@" >"$WORK/loadgen.out" 2>&1
  awk '{printf "%.2f\n", $1 + $2}' "$WORK/time"
}

printf '%-10s %6s %12s %12s %9s %10s %10s %10s %10s\n' protocol uptime-load "offered/s" \
    "datagrams/s" drops "send us/d" "recv us/d" "send core" "recv core"
for rate in "${RATES[@]}"; do
  "$WORK/udp_sink" "$PORT" $((SECONDS_PER_RATE + 6)) >"$WORK/sink.out" &
  sink=$!
  sleep 0.5
  start_cpu="$(loadgen_cpu --count 1 --rate 1000)"    # a JVM start and one datagram: subtracted
  cpu="$(loadgen_cpu --duration "${SECONDS_PER_RATE}s" --rate "$rate")"
  sleep 1
  drops="$(udp_drops "$PORT")"
  wait "$sink"
  read -r _ n _ bytes _ su _ ss <"$WORK/sink.out"
  load="$(cut -d' ' -f1 /proc/loadavg)"
  awk -v p="$PROTOCOL" -v l="$load" -v r="$rate" -v n="$n" -v d="$drops" -v c="$cpu" \
      -v c0="$start_cpu" -v su="$su" -v ss="$ss" -v s="$SECONDS_PER_RATE" 'BEGIN {
    send = c - c0; recv = su + ss; dg = n - 1
    printf "%-10s %6s %12d %12d %9d %10.2f %10.2f %10.2f %10.2f\n", p, l, r, dg / s, d,
        send * 1e6 / dg, recv * 1e6 / dg, send / s, recv / s }'
done
