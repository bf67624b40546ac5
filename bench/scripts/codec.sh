#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Codec benchmarks and fuzzing, one command each (see netflow-codec/BENCHMARKS.md). The Java
# mains live beside the codec (netflow-codec/src/test/java/io/flowhouse/codec/bench) because they
# use its test fixtures; this script builds and drives them:
#   bench/scripts/codec.sh jmh  [JMH args...]     JMH decode throughput (records/s, one thread)
#   bench/scripts/codec.sh fuzz [inputs] [seed]   mutation fuzzer, default 10,000,000 inputs
#   bench/scripts/codec.sh fuzz-sflow [inputs] [seed]  the same on the sFlow captures (tighter allocation bound)
#   bench/scripts/codec.sh peer [capture...]      same-run: our decoder vs nfcapd/nfdump vs goflow2
#   bench/scripts/codec.sh sflow [JMH args...]    same-run: JMH on the sFlow captures, then goflow2's sFlow decoder
#   bench/scripts/codec.sh digest [inputs] [seed] [dump|-] [netflow|sflow] SHA-256 of every decode result: compare two builds
#   bench/scripts/codec.sh rate [seconds] [capture...] records per CPU-second of the decoding thread
#       (captures: testdata/ file names, or synthetic-distinct|synthetic-zipf|synthetic-site)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
peers="$root/bench/peers"
cd "$root"
# The codec depends on the JDK only: compiling the module alone is enough (nothing is installed).
mvn -B -ntp -o -q -Pfast ${FLOWHOUSE_MVN_ARGS:-} -pl netflow-codec test-compile dependency:build-classpath \
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
  fuzz-sflow)
    exec java -Xmx1g -cp "$cp" io.flowhouse.codec.bench.FuzzMain "${1:-10000000}" "${2:-1}" 3600 sflow ;;
  rate)
    secs="${1:-4}"
    shift || true
    captures=("$@")
    [ ${#captures[@]} -gt 0 ] || captures=(netflow-v5-softflowd.pcap netflow-v9-softflowd.pcap netflow-v9-pmacct.pcap netflow-v9-nfreplay.pcap ipfix-softflowd.pcap ipfix-pmacct.pcap ipfix-biflow-softflowd.pcap)
    exec java -Xmx1g -cp "$cp" io.flowhouse.codec.bench.CpuRateMain "$secs" "load=$(cut -d' ' -f1 /proc/loadavg)" "${captures[@]}" ;;
  digest)
    exec java -Xmx1g -cp "$cp" io.flowhouse.codec.bench.DecodeDigestMain "${1:-300000}" "${2:-7}" ${3:+"$3"} ${4:+"$4"} ;;
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
  sflow)
    captures=(sflow-pmacct-rate1.pcap.gz sflow-ovs-rate10.pcap)
    echo "start $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
    java -Xmx1g -cp "$cp" io.flowhouse.codec.bench.ExportDatagrams "${captures[@]}"
    (cd "$peers/goflow2-decoder" && go build -o "$root/netflow-codec/target/bench/goflow2bench" .)
    java -cp "$cp" org.openjdk.jmh.Main DecodeBenchmark -p file="$(IFS=,; echo "${captures[*]}")" \
      -rf text -rff target/bench/jmh-sflow.txt "$@"
    # Per CPU-second of the decoding thread too: goflow2's figure below is per CPU-second.
    java -Xmx1g -cp "$cp" io.flowhouse.codec.bench.CpuRateMain 8 "load=$(cut -d' ' -f1 /proc/loadavg)" "${captures[@]}"
    echo "goflow2 $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
    for c in "${captures[@]}"; do
      target/bench/goflow2bench -seconds 10 "target/bench/$c.dgrams"
      target/bench/goflow2bench -seconds 10 -producer "target/bench/$c.dgrams"
    done
    echo "end $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)" ;;
  *) echo "usage: $0 jmh|fuzz|fuzz-sflow|sflow|peer|digest|rate [args]" >&2; exit 2 ;;
esac
