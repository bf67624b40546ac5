#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Rebuilds ipfix-information-elements-update.csv: the IANA IPFIX information elements assigned
after the checked-in 2013 export (ids above 402), without network access to iana.org.

Source: the IANA registry as generated into vmware/go-ipfix (Apache-2.0), module
github.com/vmware/go-ipfix@v0.17.0 (tagged 2026-06-16), pkg/registry/registry_IANA.go, which its
build_registry tool writes from https://www.iana.org/assignments/ipfix/ipfix-information-elements.csv.
It gives each element's id, name and abstract data type (except types it cannot express, left
empty); data type semantics, description and units are not in it and are left empty (the codec
does not use them to decode).

    cd /tmp && go mod download -json github.com/vmware/go-ipfix@v0.17.0   # Go module proxy
    netflow-codec/tools/ie-registry-update.py \\
        /root/go/pkg/mod/github.com/vmware/go-ipfix@v0.17.0/pkg/registry/registry_IANA.go

Ids <= 402 whose name or type changed since the 2013 export (placeholders IANA has since
assigned, tcpControlBits widened to unsigned16, one rename) are written too: loaded after the
export, they replace its rows. --compare lists every difference.
"""
import argparse
import csv
import pathlib
import re
import sys

# go-ipfix pkg/entities/ie.go: IEDataType values in declaration order (iota).
GO_TYPES = [
    "octetArray", "unsigned8", "unsigned16", "unsigned32", "unsigned64", "signed8", "signed16",
    "signed32", "signed64", "float32", "float64", "boolean", "macAddress", "string",
    "dateTimeSeconds", "dateTimeMilliseconds", "dateTimeMicroseconds", "dateTimeNanoseconds",
    "ipv4Address", "ipv6Address", "basicList", "subTemplateList", "subTemplateMultiList",
]

HERE = pathlib.Path(__file__).resolve().parent
RESOURCES = HERE.parent / "src/main/resources/io/flowhouse/codec/ie"
EXPORT_2013 = RESOURCES / "ipfix-information-elements.csv"
OUT = RESOURCES / "ipfix-information-elements-update.csv"
LAST_2013 = 402
HEADER = ["ElementID", "Name", "Data Type", "Data Type Semantics", "Status", "Description",
          "Units", "Range", "References", "Requester", "Revision", "Date"]
ENTRY = re.compile(r'NewInfoElement\("([A-Za-z0-9]+)", (\d+), (\d+), (\d+), (\d+)\)')


def go_registry(path):
    out = {}
    for name, eid, typ, pen, _length in ENTRY.findall(pathlib.Path(path).read_text()):
        if int(pen) != 0:
            continue
        # 255 is go-ipfix's InvalidDataType: a type it cannot express (IANA's unsigned256 of
        # RFC 9740, e.g. ipv6ExtensionHeadersFull). Left empty, the registry reads it as UNKNOWN
        # and a decoder skips such a field by its length.
        out[int(eid)] = (name, GO_TYPES[int(typ)] if int(typ) < len(GO_TYPES) else "")
    return out


def export_2013():
    out = {}
    with open(EXPORT_2013, newline="", encoding="utf-8") as f:
        for row in csv.reader(f):
            if row and row[0].isdigit():
                out[int(row[0])] = (row[1], row[2])
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("registry_go", help="go-ipfix pkg/registry/registry_IANA.go")
    p.add_argument("--compare", action="store_true", help="list ids <= 402 that differ")
    args = p.parse_args()
    go = go_registry(args.registry_go)
    if len(go) < 400:
        sys.exit(f"{args.registry_go}: only {len(go)} elements found; not a registry_IANA.go?")
    old = export_2013()
    newer = {i: v for i, v in go.items() if i > LAST_2013}
    # Elements the 2013 export names differently: placeholders IANA has since assigned (43, 84,
    # 87, 89, 100), tcpControlBits widened to unsigned16 (RFC 7125), a rename (278). Loaded after
    # the export, these rows replace its rows for the same id.
    changed = {
        i: v
        for i, v in go.items()
        if 0 < i <= LAST_2013 and v[0] not in ("", "Unassigned", "Reserved") and old.get(i) != v
    }
    with open(OUT, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEADER)
        rows = {**changed, **newer}
        for eid in sorted(rows):
            name, typ = rows[eid]
            w.writerow([eid, name, typ, "", "current", "", "", "", "", "", "", ""])
    print(f"{OUT}: {len(newer)} new elements, ids {min(newer)}..{max(newer)}, and "
          f"{len(changed)} changed since 2013: {sorted(changed)}")
    if args.compare:
        for eid in sorted(i for i in go if i <= LAST_2013):
            if eid in old and old[eid] != go[eid]:
                print(f"  {eid}: 2013 {old[eid][0]} ({old[eid][1]}) / now {go[eid][0]} ({go[eid][1]})")
        for eid in sorted(i for i in old if i not in go):
            print(f"  {eid}: 2013 {old[eid][0]} not in the current registry (deprecated or removed)")


if __name__ == "__main__":
    main()
