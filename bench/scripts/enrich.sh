#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# JMH: the cost of enriching one flow (enrichment/.../bench/EnrichBenchmark), one thread, with the
# open geo data (fetched first when missing). Extra arguments go to JMH. Prints the load average.
# Run under the lock on a shared machine: flock /tmp/flowhouse-services.lock bench/scripts/enrich.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
geo="$(enrichment/scripts/fetch-geo-data.sh)"
mvn -B -ntp -o -q -Pfast ${FLOWHOUSE_MVN_ARGS:-} -pl enrichment test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
cd "$root/enrichment"
cp="target/classes:target/test-classes:$(cat target/bench.cp)"
mkdir -p target/bench
echo "start $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
java -Dgeo.dir="$geo" -cp "$cp" org.openjdk.jmh.Main EnrichBenchmark -jvmArgsAppend "-Xmx1g -Dgeo.dir=$geo" \
    -rf text -rff target/bench/jmh.txt "$@"
echo "end $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
