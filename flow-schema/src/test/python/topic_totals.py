#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads the decoded-flows topic the way a consumer we do not know would, and sums it per exporter.

No Flowhouse code: a pure-Python Kafka client (kafka-python) with isolation_level=read_committed,
and Python's protobuf runtime with the published .proto files, compiled to a descriptor set
(protoc --include_imports --descriptor_set_out=schema.pb flowhouse/v1/flow.proto goflow2/flow.proto).

Prints one line per exporter: "<exporter ip>:<port> records packets bytes distinct_ids".
The flowhouse format counts the reverse (biflow) counters too and keys distinct ids on
(row_id, row_id_hi); goflow2's FlowMessage is length-delimited and has no id (distinct_ids "-").

With --sflow (flowhouse format) the line goes on with what sFlow flow samples carry:
"... scaled_packets scaled_bytes min_rate max_rate sflow_records agents distinct_samples", scaled
meaning times sampling_rate, sflow_records those with version 105 and an agent address, agents the
distinct (sflow_agent_address, sflow_sub_agent_id) and distinct_samples the distinct
(agent, sub-agent, source class, source index, sample sequence).
"""
import argparse
import ipaddress
import sys
import time

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.internal.decoder import _DecodeVarint32
from kafka import KafkaConsumer, TopicPartition


def message_class(descriptor_set, full_name):
    fds = descriptor_pb2.FileDescriptorSet()
    with open(descriptor_set, "rb") as f:
        fds.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for fd in fds.file:
        pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(full_name))


def exporter(key):
    # 16-byte IPv6 (IPv4 mapped), then the UDP port big-endian.
    if key is None or len(key) != 18:
        raise ValueError("record key is not the 18-byte exporter key: %r" % (key,))
    addr = ipaddress.IPv6Address(key[:16])
    shown = addr.ipv4_mapped or addr
    return "%s:%d" % (shown, int.from_bytes(key[16:], "big"))


def address(b):
    if len(b) == 4:
        return str(ipaddress.IPv4Address(b))
    addr = ipaddress.IPv6Address(b)
    return str(addr.ipv4_mapped or addr)


# The context fields --context prints after the addresses and AS numbers, by their .proto names.
CONTEXT_FIELDS = [
    "exporter_name", "exporter_role", "exporter_site", "exporter_region", "exporter_tenant",
    "in_if_name", "in_if_description", "in_if_speed", "in_if_boundary", "in_if_provider",
    "in_if_connectivity",
    "out_if_name", "out_if_description", "out_if_speed", "out_if_boundary", "out_if_provider",
    "out_if_connectivity",
    "src_country", "dst_country",
    "src_net_name", "src_net_role", "src_net_site", "src_net_region", "src_net_tenant",
    "dst_net_name", "dst_net_role", "dst_net_site", "dst_net_region", "dst_net_tenant",
]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--format", choices=["flowhouse", "goflow2"], default="flowhouse")
    ap.add_argument("--descriptor-set", required=True)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--sflow", action="store_true", help="add the sFlow columns (flowhouse format)")
    ap.add_argument("--context", action="store_true",
                    help="one line per record with its context fields (flowhouse format)")
    ap.add_argument("--fields", help="comma-separated .proto field names --context prints instead"
                    " of CONTEXT_FIELDS")
    args = ap.parse_args()
    fields = args.fields.split(",") if args.fields else CONTEXT_FIELDS
    if args.context and args.format != "flowhouse":
        sys.exit("--context reads the flowhouse format")
    context_lines = []

    goflow2 = args.format == "goflow2"
    cls = message_class(
        args.descriptor_set, "flowpb.FlowMessage" if goflow2 else "flowhouse.v1.Flow"
    )
    consumer = KafkaConsumer(
        bootstrap_servers=args.bootstrap,
        isolation_level="read_committed",
        enable_auto_commit=False,
        auto_offset_reset="earliest",
    )
    parts = [TopicPartition(args.topic, p) for p in sorted(consumer.partitions_for_topic(args.topic) or [])]
    if not parts:
        sys.exit("no partitions for topic %s" % args.topic)
    consumer.assign(parts)
    consumer.seek_to_beginning(*parts)
    end = consumer.end_offsets(parts)  # read_committed: the last stable offsets

    totals = {}
    deadline = time.monotonic() + args.timeout
    while any(consumer.position(tp) < end[tp] for tp in parts):
        if time.monotonic() > deadline:
            sys.exit("timed out: positions %s, ends %s" % ({tp.partition: consumer.position(tp) for tp in parts}, end))
        for records in consumer.poll(timeout_ms=500).values():
            for r in records:
                key = exporter(r.key)
                m = cls()
                if goflow2:
                    size, pos = _DecodeVarint32(r.value, 0)
                    if pos + size != len(r.value):
                        sys.exit("goflow2 record is not one length-delimited message")
                    m.ParseFromString(r.value[pos:])
                    sender = address(m.sampler_address)
                    packets, octets, rid = m.packets, m.bytes, None
                else:
                    m.ParseFromString(r.value)
                    sender = "%s:%d" % (address(m.exporter_address), m.exporter_port)
                    packets = m.packets + m.reverse_packets
                    octets = m.bytes + m.reverse_bytes
                    rid = (m.row_id, m.row_id_hi)
                if (key.rsplit(":", 1)[0] if goflow2 else key) != sender:
                    sys.exit("record keyed %s carries exporter %s" % (key, sender))
                if args.context:
                    values = [address(m.src_addr), address(m.dst_addr), m.src_as, m.dst_as]
                    values += [getattr(m, f) for f in fields]
                    context_lines.append("\t".join(str(v) for v in values))
                t = totals.setdefault(
                    key,
                    {"records": 0, "packets": 0, "bytes": 0, "ids": set(), "scaled_packets": 0,
                     "scaled_bytes": 0, "rates": set(), "sflow": 0, "agents": set(), "samples": set()},
                )
                t["records"] += 1
                t["packets"] += packets
                t["bytes"] += octets
                if rid is not None:
                    t["ids"].add(rid)
                if args.sflow and not goflow2:
                    t["scaled_packets"] += packets * m.sampling_rate
                    t["scaled_bytes"] += octets * m.sampling_rate
                    t["rates"].add(m.sampling_rate)
                    if m.version == 105 and len(m.sflow_agent_address) == 16:
                        agent = (address(m.sflow_agent_address), m.sflow_sub_agent_id)
                        t["sflow"] += 1
                        t["agents"].add(agent)
                        t["samples"].add(
                            agent + (m.sflow_source_id_class, m.sflow_source_id_index, m.sflow_sample_sequence)
                        )
    consumer.close()
    if args.context:
        for line in sorted(context_lines):
            print(line)
        return
    for k, t in sorted(totals.items()):
        distinct = "-" if goflow2 else len(t["ids"])
        if args.sflow and not goflow2:
            print(k, t["records"], t["packets"], t["bytes"], distinct, t["scaled_packets"],
                  t["scaled_bytes"], min(t["rates"]), max(t["rates"]), t["sflow"], len(t["agents"]),
                  len(t["samples"]))
        else:
            print(k, t["records"], t["packets"], t["bytes"], distinct)


if __name__ == "__main__":
    main()
