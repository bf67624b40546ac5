#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Codec benchmarks and fuzzing, one command each (see netflow-codec/BENCHMARKS.md). The Java
# mains live beside the codec (netflow-codec/src/test/java/io/flowhouse/codec/bench) because they
# use its test fixtures; this script builds and drives them:
#   bench/scripts/codec.sh jmh  [JMH args...]     JMH decode throughput (records/s, one thread)
#   bench/scripts/codec.sh fuzz [inputs] [seed]   mutation fuzzer, default 10,000,000 inputs
#   bench/scripts/codec.sh peer [capture...]      same-run: our decoder vs nfcapd/nfdump vs goflow2
#   bench/scripts/codec.sh digest [inputs] [seed] [dump] SHA-256 of every decode result: compare two builds
#   bench/scripts/codec.sh rate [seconds] [capture...] records per CPU-second of the decoding thread
#       (captures: testdata/ file names, or synthetic-distinct|synthetic-zipf|synthetic-site)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
peers="$root/bench/peers"
cd "$root"
# The codec depends on the JDK only: compiling the module alone is enough (nothing is installed).
mvn -B -ntp -o -q -Pfast -pl netflow-codec test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
cd "$root/netflow-codec"
cp="target/classes:target/test-classes:$(cat target/bench.cp)"
mkdir -p target/bench
what="${1:-jmh}"
shift || true
case "$what" in
  jmh)
    exec java -cp "$cp" org.openjdk.jmh.Main DecodeBenchmark -rf text -rff target/bench/jmh.txt "$@" ;;
  fuzz)
    exec java -Xmx1g -cp "$cp" io.flowhouse.codec.bench.FuzzMain "${1:-10000000}" "${2:-1}" ;;
  rate)
    secs="${1:-4}"
    shift || true
    captures=("$@")
    [ ${#captures[@]} -gt 0 ] || captures=(netflow-v5-softflowd.pcap netflow-v9-softflowd.pcap netflow-v9-pmacct.pcap netflow-v9-nfreplay.pcap ipfix-softflowd.pcap ipfix-pmacct.pcap ipfix-biflow-softflowd.pcap)
    exec java -Xmx1g -cp "$cp" io.flowhouse.codec.bench.CpuRateMain "$secs" "load=$(cut -d' ' -f1 /proc/loadavg)" "${captures[@]}" ;;
  digest)
    exec java -Xmx1g -cp "$cp" io.flowhouse.codec.bench.DecodeDigestMain "${1:-300000}" "${2:-7}" ${3:+"$3"} ;;
  peer)
    gobench=""
    if command -v go >/dev/null; then
      (cd "$peers/goflow2-decoder" && go build -o "$root/netflow-codec/target/bench/goflow2bench" .) && gobench=target/bench/goflow2bench
    fi
    captures=("$@")
    [ ${#captures[@]} -gt 0 ] || captures=(netflow-v5-softflowd.pcap netflow-v9-softflowd.pcap ipfix-softflowd.pcap ipfix-pmacct.pcap)
    for c in "${captures[@]}"; do
      java -Xmx1g -cp "$cp" io.flowhouse.codec.bench.PeerBench "$c" 10 300 $gobench
    done ;;
  *) echo "usage: $0 jmh|fuzz|peer|digest|rate [args]" >&2; exit 2 ;;
esac
