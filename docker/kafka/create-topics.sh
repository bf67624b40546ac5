#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Creates Flowhouse's Kafka topics, or brings the settings of existing ones up to date, so that
# changing a retention in docker/.env and re-running `docker compose up -d kafka-init` applies it.
# Runs in the apache/kafka image (kafka-init service). Partition counts are never changed on an
# existing topic: flows.raw is keyed by exporter, and adding partitions moves exporters to other
# partitions (their datagrams would briefly be read out of order); do that deliberately.
set -euo pipefail

BIN=/opt/kafka/bin
BOOTSTRAP="${BOOTSTRAP:?BOOTSTRAP (host:port) is required}"
PARTITIONS="${PARTITIONS:-8}"
# 1 on the single compose broker; 3 on a cluster (deploy/kubernetes), whose min.insync.replicas is 2.
REPLICATION_FACTOR="${REPLICATION_FACTOR:-1}"
RAW_RETENTION_MS="${RAW_RETENTION_MS:-2592000000}"
RAW_RETENTION_BYTES="${RAW_RETENTION_BYTES:--1}"
PACKETS_RETENTION_MS="${PACKETS_RETENTION_MS:-259200000}"
REJECTED_RETENTION_MS="${REJECTED_RETENTION_MS:-1209600000}"
ENRICHED_RETENTION_MS="${ENRICHED_RETENTION_MS:-604800000}"

# topic name, partitions, comma-separated topic configs.
TOPICS=(
  # Raw export datagrams from the agent, keyed by exporter: the archive every replay starts from.
  "flows.raw|${PARTITIONS}|cleanup.policy=delete,retention.ms=${RAW_RETENTION_MS},retention.bytes=${RAW_RETENTION_BYTES}"
  # Packet summaries (pcap4j capture), batched.
  "packets.raw|${PARTITIONS}|cleanup.policy=delete,retention.ms=${PACKETS_RETENTION_MS},retention.bytes=${RAW_RETENTION_BYTES}"
  # Dead letters with the reason in the headers.
  "flows.rejected|${PARTITIONS}|cleanup.policy=delete,retention.ms=${REJECTED_RETENTION_MS}"
  # Every template and options record learned, keyed by scope and template id: compacted, so the
  # latest of each survives and a replay from any offset can decode data sent after it. One
  # partition, as the job creates it (it is small and read whole at start). Hourly segments let
  # compaction reach recent records; tombstones (withdrawals) live a day.
  "flows.templates|1|cleanup.policy=compact,segment.ms=3600000,min.cleanable.dirty.ratio=0.1,delete.retention.ms=86400000"
  # Decoded flows for other consumers (Kafka fan-out).
  "flows.enriched|${PARTITIONS}|cleanup.policy=delete,retention.ms=${ENRICHED_RETENTION_MS}"
)

# The broker is healthy before this runs, but retry a little in case it is still electing.
wait_for_broker() {
  local attempt
  for attempt in $(seq 1 30); do
    if "$BIN/kafka-topics.sh" --bootstrap-server "$BOOTSTRAP" --list >/dev/null 2>&1; then
      return 0
    fi
    echo "kafka-init: broker ${BOOTSTRAP} not ready (attempt ${attempt}/30)"
    sleep 2
  done
  echo "kafka-init: broker ${BOOTSTRAP} did not answer in time" >&2
  return 1
}

ensure_topic() {
  local name="$1" partitions="$2" configs="$3"
  local description current
  if description="$("$BIN/kafka-topics.sh" --bootstrap-server "$BOOTSTRAP" \
      --describe --topic "$name" 2>/dev/null)" && [[ -n "$description" ]]; then
    current="$(sed -n 's/.*PartitionCount: *\([0-9]*\).*/\1/p' <<<"$description" | head -n 1)"
    if [[ -n "$current" && "$current" != "$partitions" ]]; then
      echo "kafka-init: WARNING topic ${name} has ${current} partitions, configured ${partitions};" \
        "left unchanged (use kafka-topics.sh --alter --partitions deliberately)"
    fi
    "$BIN/kafka-configs.sh" --bootstrap-server "$BOOTSTRAP" --alter \
      --entity-type topics --entity-name "$name" --add-config "$configs" >/dev/null
    echo "kafka-init: topic ${name} exists, settings applied: ${configs}"
  else
    local args=() kv
    IFS=',' read -r -a kvs <<<"$configs"
    for kv in "${kvs[@]}"; do
      args+=(--config "$kv")
    done
    "$BIN/kafka-topics.sh" --bootstrap-server "$BOOTSTRAP" --create --if-not-exists \
      --topic "$name" --partitions "$partitions" --replication-factor "$REPLICATION_FACTOR" "${args[@]}"
    echo "kafka-init: topic ${name} created with ${partitions} partitions: ${configs}"
  fi
}

wait_for_broker
for spec in "${TOPICS[@]}"; do
  IFS='|' read -r name partitions configs <<<"$spec"
  ensure_topic "$name" "$partitions" "$configs"
done
"$BIN/kafka-topics.sh" --bootstrap-server "$BOOTSTRAP" --describe \
  --topic 'flows\..*|packets\..*' | grep -E '^Topic:' || true
echo "kafka-init: done"
