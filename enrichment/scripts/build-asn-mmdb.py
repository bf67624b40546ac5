#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Builds an ASN .mmdb (GeoLite2-ASN schema) from ip-location-db's asn CSV files.

ip-location-db publishes its ASN data (CC BY 4.0, RouteViews and DB-IP) on npm as CSV only:
rows "first,last,asn,organization". This writes them with mmdb-writer, the library ip-location-db
builds its own .mmdb files with, keeping MaxMind's key names so one reader serves both:
autonomous_system_number (uint32) and autonomous_system_organization (string).

usage: build-asn-mmdb.py OUT.mmdb IPV4.csv IPV6.csv
"""
import csv
import sys
from collections import defaultdict

from mmdb_writer import MMDBWriter, MmdbU32
from netaddr import IPRange, IPSet


def main(out, *csv_files):
    ranges = defaultdict(list)
    for path in csv_files:
        with open(path, newline="", encoding="utf-8") as f:
            for first, last, asn, org in csv.reader(f):
                ranges[(int(asn), org)].append(IPRange(first, last))
    writer = MMDBWriter(
        ip_version=6,
        database_type="ip-location-db-asn",
        languages=["en"],
        description={"en": "ip-location-db asn (RouteViews, DB-IP; CC BY 4.0)"},
        ipv4_compatible=True,
    )
    for (asn, org), rs in ranges.items():
        # One IPSet per AS, built at once: growing it range by range is quadratic.
        writer.insert_network(
            IPSet(c for r in rs for c in r.cidrs()),
            {
                "autonomous_system_number": MmdbU32(asn),
                "autonomous_system_organization": org,
            },
        )
    writer.to_db_file(out)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], *sys.argv[2:])
