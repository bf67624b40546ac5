#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Checks that the image versions of the docker/ deployment are defined once and agree:
#   - every services.<name>.<field> of versions.yml is in .env as FLOWHOUSE_<FIELD>_<NAME> with the
#     same value, and .env has no FLOWHOUSE_IMAGE_* / FLOWHOUSE_PLUGINS_* that versions.yml lacks;
#   - the Flink and Kafka images are the versions pinned in the root pom.xml (the job jar is built
#     against flink.version, the agent against kafka.version);
#   - the Flowhouse image tag and job jar name carry the project version of the root pom.xml;
#   - every image in the compose files comes from a variable that .env defines (no tag elsewhere).
# Exits non-zero and prints every mismatch. Needs bash, awk, grep and sed only.
set -euo pipefail

cd "$(dirname "$0")"
VERSIONS=versions.yml
ENV_FILE=.env
POM=../pom.xml
errors=0

error() {
  echo "check-versions: $*" >&2
  errors=$((errors + 1))
}

# Prints "NAME FIELD VALUE" for each entry of versions.yml (comments and blank lines ignored).
versions_entries() {
  awk '
    { sub(/[ \t]+#.*$/, ""); sub(/^#.*$/, "") }
    /^services:[ \t]*$/ { in_services = 1; next }
    /^[^ \t]/ { in_services = 0 }
    in_services && /^  [A-Za-z0-9_-]+:[ \t]*$/ {
      service = $1; sub(/:$/, "", service); next
    }
    in_services && service != "" && /^    [A-Za-z0-9_-]+:[ \t]+[^ \t]/ {
      field = $1; sub(/:$/, "", field)
      value = $0; sub(/^    [A-Za-z0-9_-]+:[ \t]+/, "", value); sub(/[ \t]+$/, "", value)
      print service, field, value
    }
  ' "$VERSIONS"
}

# Prints the value of KEY in .env (last assignment wins, as in compose), or nothing.
env_value() {
  sed -n "s/^$1=//p" "$ENV_FILE" | tail -n 1
}

env_name() {
  local service="$1" field="$2"
  echo "FLOWHOUSE_${field}_${service}" | tr '[:lower:]-' '[:upper:]_'
}

# Prints the text of <TAG> in the root pom.xml's <properties> (or the first one).
pom_value() {
  sed -n "s:.*<$1>\([^<]*\)</$1>.*:\1:p" "$POM" | head -n 1
}

[[ -r "$VERSIONS" ]] || { echo "check-versions: $VERSIONS not found" >&2; exit 2; }
[[ -r "$ENV_FILE" ]] || { echo "check-versions: $ENV_FILE not found" >&2; exit 2; }

entries="$(versions_entries)"
[[ -n "$entries" ]] || error "no entries parsed from $VERSIONS"

declare -A expected=()
while read -r service field value; do
  [[ -n "$service" ]] || continue
  name="$(env_name "$service" "$field")"
  expected["$name"]="$value"
  actual="$(env_value "$name")"
  if [[ -z "$actual" ]]; then
    error "$VERSIONS services.$service.$field=$value has no $name in $ENV_FILE"
  elif [[ "$actual" != "$value" ]]; then
    error "$name: $ENV_FILE has '$actual', $VERSIONS services.$service.$field has '$value'"
  fi
done <<<"$entries"

while IFS= read -r name; do
  [[ -n "$name" ]] || continue
  if [[ -z "${expected[$name]+set}" ]]; then
    error "$ENV_FILE defines $name, which $VERSIONS does not list"
  fi
done < <(sed -n 's/^\(FLOWHOUSE_\(IMAGE\|PLUGINS\)_[A-Z0-9_]*\)=.*/\1/p' "$ENV_FILE")

# Images built against the root pom's versions.
if [[ -r "$POM" ]]; then
  flink_version="$(pom_value flink.version)"
  kafka_version="$(pom_value kafka.version)"
  project_version="$(sed -n '0,/<version>/s:.*<version>\([^<]*\)</version>.*:\1:p' "$POM")"
  flink_image="${expected[FLOWHOUSE_IMAGE_FLINK]:-}"
  kafka_image="${expected[FLOWHOUSE_IMAGE_KAFKA]:-}"
  flink_tag="${flink_image##*:}"
  if [[ "${flink_tag%%-*}" != "$flink_version" ]]; then
    error "Flink image $flink_image is not flink.version $flink_version of $POM"
  fi
  if [[ "${kafka_image##*:}" != "$kafka_version" ]]; then
    error "Kafka image $kafka_image is not kafka.version $kafka_version of $POM"
  fi
  own_image="$(env_value FLOWHOUSE_IMAGE)"
  if [[ "${own_image##*:}" != "$project_version" ]]; then
    error "FLOWHOUSE_IMAGE $own_image is not tagged with the project version $project_version"
  fi
  job_jar="$(env_value FLOWHOUSE_JOB_JAR)"
  if [[ "$job_jar" != *"-${project_version}-job.jar" ]]; then
    error "FLOWHOUSE_JOB_JAR $job_jar is not the $project_version job jar"
  fi
else
  error "$POM not found: cannot compare with the Maven build"
fi

# Every image line of the compose files uses a variable defined in .env.
for file in compose*.yml; do
  while IFS= read -r line; do
    ref="$(sed -n 's/.*image:[ \t]*\${\([A-Z0-9_]*\).*/\1/p' <<<"$line")"
    if [[ -z "$ref" ]]; then
      error "$file: image without a .env variable: ${line#"${line%%[![:space:]]*}"}"
    elif [[ -z "$(env_value "$ref")" ]]; then
      error "$file: \${$ref} is not defined in $ENV_FILE"
    fi
  done < <(grep -E '^[[:space:]]+image:' "$file" || true)
done

if ((errors > 0)); then
  echo "check-versions: $errors problem(s)" >&2
  exit 1
fi
echo "check-versions: OK ($(wc -l <<<"$entries") pinned versions; $ENV_FILE, $VERSIONS and $POM agree)"
