// SPDX-License-Identifier: Apache-2.0

// Command goflow2bench times goflow2's NetFlow v5/v9/IPFIX and sFlow v5 decoders
// (github.com/netsampler/goflow2 v2.2.6, decoders only, no producer mapping) on the UDP payloads
// of a capture, exported by io.flowhouse.codec.bench.PeerBench as <capture>.dgrams (u16
// big-endian length + payload). It prints flow records (sFlow: flow samples) per CPU second, the
// peer figure in netflow-codec/BENCHMARKS.md. With -producer, sFlow datagrams also go through
// goflow2's own mapping to flow messages (protoproducer.ProcessMessageSFlowConfig: the sampled
// header parsed into addresses, ports, VLANs), which is what the flowhouse decoder's output
// corresponds to.
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
	"github.com/netsampler/goflow2/v2/decoders/sflow"
	protoproducer "github.com/netsampler/goflow2/v2/producer/proto"
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

func countFlowSamples(samples []interface{}) int {
	n := 0
	for _, s := range samples {
		switch s.(type) {
		case sflow.FlowSample, sflow.ExpandedFlowSample:
			n++
		}
	}
	return n
}

// pool returns goflow2's flow messages to its pool, as its own pipeline does after formatting.
var pool, _ = protoproducer.CreateProtoProducer(nil, nil)

func decodeAll(dgrams [][]byte, templates netflow.NetFlowTemplateSystem, produce bool) int {
	n := 0
	for _, d := range dgrams {
		buf := bytes.NewBuffer(d)
		if len(d) >= 4 && binary.BigEndian.Uint32(d) == 5 {
			var p sflow.Packet
			if err := sflow.DecodeMessageVersion(buf, &p); err != nil {
				continue
			}
			if !produce {
				n += countFlowSamples(p.Samples)
				continue
			}
			msgs, err := protoproducer.ProcessMessageSFlowConfig(&p, nil)
			if err == nil {
				n += len(msgs)
			}
			pool.Commit(msgs)
			continue
		}
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
	produce := flag.Bool("producer", false, "sFlow: also map samples to flow messages (goflow2's producer)")
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
	perPass := decodeAll(dgrams, templates, *produce) // learn templates
	var records int64
	start := time.Now()
	c0 := cpuSeconds()
	for time.Since(start).Seconds() < *seconds {
		records += int64(decodeAll(dgrams, templates, *produce))
	}
	wall := time.Since(start).Seconds()
	cpu := cpuSeconds() - c0
	what := "decoder"
	if *produce {
		what = "decoder + producer"
	}
	fmt.Printf("goflow2 v2.2.6 %s: %s: %d records/pass, %.2f M records/s wall, %.2f M records per cpu-s (GOMAXPROCS default, GC included)\n",
		what, flag.Arg(0), perPass, float64(records)/wall/1e6, float64(records)/cpu/1e6)
}
