// SPDX-License-Identifier: Apache-2.0

// Command goflow2bench times goflow2's NetFlow v5/v9/IPFIX decoder (github.com/netsampler/goflow2
// v2.2.6, decoders only, no producer mapping) on the UDP payloads of a capture, exported by
// io.flowhouse.codec.bench.PeerBench as <capture>.dgrams (u16 big-endian length + payload).
// It prints flow records per CPU second, the peer figure in netflow-codec/BENCHMARKS.md.
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/netsampler/goflow2/v2/decoders/netflow"
	"github.com/netsampler/goflow2/v2/decoders/netflowlegacy"
)

func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

func countRecords(sets []interface{}) int {
	n := 0
	for _, s := range sets {
		if d, ok := s.(netflow.DataFlowSet); ok {
			n += len(d.Records)
		}
	}
	return n
}

func decodeAll(dgrams [][]byte, templates netflow.NetFlowTemplateSystem) int {
	n := 0
	for _, d := range dgrams {
		buf := bytes.NewBuffer(d)
		if len(d) >= 2 && binary.BigEndian.Uint16(d) == 5 {
			var p netflowlegacy.PacketNetFlowV5
			if err := netflowlegacy.DecodeMessageVersion(buf, &p); err == nil {
				n += len(p.Records)
			}
			continue
		}
		var v9 netflow.NFv9Packet
		var ipfix netflow.IPFIXPacket
		if err := netflow.DecodeMessageVersion(buf, templates, &v9, &ipfix); err != nil {
			continue
		}
		n += countRecords(v9.FlowSets) + countRecords(ipfix.FlowSets)
	}
	return n
}

func main() {
	seconds := flag.Float64("seconds", 10, "how long to loop")
	flag.Parse()
	raw, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var dgrams [][]byte
	for len(raw) >= 2 {
		l := int(binary.BigEndian.Uint16(raw))
		dgrams = append(dgrams, raw[2:2+l])
		raw = raw[2+l:]
	}
	templates := netflow.CreateTemplateSystem()
	perPass := decodeAll(dgrams, templates) // learn templates
	var records int64
	start := time.Now()
	c0 := cpuSeconds()
	for time.Since(start).Seconds() < *seconds {
		records += int64(decodeAll(dgrams, templates))
	}
	wall := time.Since(start).Seconds()
	cpu := cpuSeconds() - c0
	fmt.Printf("goflow2 v2.2.6 decoder: %s: %d records/pass, %.2f M records/s wall, %.2f M records per cpu-s (GOMAXPROCS default, GC included)\n",
		flag.Arg(0), perPass, float64(records)/wall/1e6, float64(records)/cpu/1e6)
}
