#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Submits the Flowhouse flow pipeline to the Flink session cluster (job-submitter service).
#
#  1. Waits (bounded) until the JobManager's REST API reports enough free task slots.
#  2. Does nothing if a job with the pipeline's name is already running (or starting, restarting):
#     `docker compose up -d` may run this container again at any time.
#  3. With FLOWHOUSE_JOB_RESTORE=latest (default), restores from the newest completed checkpoint
#     (retained on cancellation) or savepoint under /flink-data, so a restart of the whole stack
#     resumes with its decoder templates, ageing state and Kafka offsets. A failed restore fails
#     this container instead of silently starting from scratch; set FLOWHOUSE_JOB_RESTORE=none to
#     start fresh (the job then continues from the consumer group's committed offsets).
#  4. Runs `flink run -d` with the job's config file and FLOWHOUSE_JOB_ARGS.
set -euo pipefail

REST="${FLOWHOUSE_FLINK_REST:-http://jobmanager:8081}"
JOB_CLASS="${FLOWHOUSE_JOB_CLASS:-io.flowhouse.jobs.FlowPipelineJob}"
JOB_JAR="${FLOWHOUSE_JOB_JAR_PATH:-/opt/flink/usrlib/flink-jobs-job.jar}"
JOB_CONFIG="${FLOWHOUSE_JOB_CONFIG:-/opt/flowhouse/pipeline.yaml}"
JOB_NAME="${FLOWHOUSE_JOB_NAME:-flowhouse-pipeline}"
RESTORE="${FLOWHOUSE_JOB_RESTORE:-latest}"
MIN_SLOTS="${FLOWHOUSE_JOB_MIN_SLOTS:-1}"
STATE_DIR="${FLOWHOUSE_STATE_DIR:-/flink-data}"
WAIT_SECONDS="${FLOWHOUSE_SUBMIT_WAIT_SECONDS:-300}"
SUBMIT_ATTEMPTS="${FLOWHOUSE_SUBMIT_ATTEMPTS:-3}"

log() {
  echo "job-submitter: $*"
}

fail() {
  echo "job-submitter: ERROR $*" >&2
  exit 1
}

# Prints the integer value of a top-level numeric field of a flat JSON object.
json_number() {
  sed -n "s/.*\"$1\":\([0-9][0-9]*\).*/\1/p" <<<"$2" | head -n 1
}

wait_for_slots() {
  local deadline=$((SECONDS + WAIT_SECONDS)) overview available
  while ((SECONDS < deadline)); do
    if overview="$(curl --fail --silent --max-time 5 "$REST/overview")"; then
      available="$(json_number slots-available "$overview")"
      if [[ -n "$available" ]] && ((available >= MIN_SLOTS)); then
        log "cluster ready: $(json_number taskmanagers "$overview") TaskManager(s)," \
          "${available} free slot(s) (need ${MIN_SLOTS})"
        return 0
      fi
      log "waiting for ${MIN_SLOTS} free slot(s), ${available:-0} now"
    else
      log "waiting for the JobManager at ${REST}"
    fi
    sleep 3
  done
  fail "no ${MIN_SLOTS} free slot(s) at ${REST} within ${WAIT_SECONDS}s"
}

# Prints "<jid> <state>" of the jobs named $JOB_NAME that are not in a terminal state.
active_jobs() {
  local jobs
  jobs="$(curl --fail --silent --max-time 10 "$REST/jobs/overview")" \
    || fail "cannot list jobs at ${REST}/jobs/overview"
  # One line per job object: split before each "jid" key.
  printf '%s\n' "${jobs//\"jid\":/$'\n'\"jid\":}" \
    | grep -F "\"name\":\"${JOB_NAME}\"" \
    | sed -n 's/.*"jid":"\([0-9a-f]*\)".*"state":"\([A-Z_]*\)".*/\1 \2/p' \
    | grep -E ' (INITIALIZING|CREATED|RUNNING|FAILING|CANCELLING|RESTARTING|SUSPENDED|RECONCILING)$' \
    || true
}

# Prints the directory of the newest completed checkpoint or savepoint (has _metadata), if any.
# Checkpoints are <dir>/<job id>/chk-<n>/_metadata, savepoints <dir>/savepoint-<id>/_metadata.
latest_snapshot() {
  local dirs=() d
  for d in "$STATE_DIR/checkpoints" "$STATE_DIR/savepoints"; do
    [[ -d "$d" ]] && dirs+=("$d")
  done
  ((${#dirs[@]} > 0)) || return 0
  find "${dirs[@]}" -mindepth 2 -maxdepth 3 -type f -name _metadata -printf '%T@ %h\n' \
    | sort -n | tail -n 1 | cut -d' ' -f2-
}

[[ -r "$JOB_JAR" ]] || fail "job jar ${JOB_JAR} not found: run 'mvn -B -ntp package -DskipTests' first"
[[ -r "$JOB_CONFIG" ]] || fail "job config ${JOB_CONFIG} not found"

wait_for_slots

running="$(active_jobs)"
if [[ -n "$running" ]]; then
  log "job ${JOB_NAME} is already active (${running//$'\n'/, }); nothing to submit"
  exit 0
fi

restore_args=()
case "$RESTORE" in
  latest)
    snapshot="$(latest_snapshot)"
    if [[ -n "$snapshot" ]]; then
      log "restoring from ${snapshot}"
      restore_args=(--fromSavepoint "file://${snapshot}")
    else
      log "no retained checkpoint or savepoint under ${STATE_DIR}; starting fresh"
    fi
    ;;
  none)
    log "FLOWHOUSE_JOB_RESTORE=none: starting fresh"
    ;;
  *)
    # An explicit path (file:///flink-data/savepoints/savepoint-...).
    log "restoring from ${RESTORE}"
    restore_args=(--fromSavepoint "$RESTORE")
    ;;
esac

# Word splitting of FLOWHOUSE_JOB_ARGS is intended: "--kafka.start earliest --x y".
# shellcheck disable=SC2206
extra_args=(${FLOWHOUSE_JOB_ARGS:-})

for attempt in $(seq 1 "$SUBMIT_ATTEMPTS"); do
  log "submitting ${JOB_CLASS} from ${JOB_JAR} (attempt ${attempt}/${SUBMIT_ATTEMPTS})"
  if flink run --detached --class "$JOB_CLASS" "${restore_args[@]}" "$JOB_JAR" \
      --config "$JOB_CONFIG" "${extra_args[@]}"; then
    log "submitted"
    exit 0
  fi
  # The submission may have reached the cluster before the client failed.
  running="$(active_jobs)"
  if [[ -n "$running" ]]; then
    log "job ${JOB_NAME} is active after all (${running//$'\n'/, })"
    exit 0
  fi
  sleep $((attempt * 5))
done
fail "could not submit ${JOB_CLASS} after ${SUBMIT_ATTEMPTS} attempts (see the output above)"
