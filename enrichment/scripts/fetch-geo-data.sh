#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Fetches open GeoIP/ASN data through the npm registry into a cache directory, so the demo and the
# tests enrich on a fresh machine without committing database files:
#   DIR/country.mmdb  @ip-location-db/geo-whois-asn-country-mmdb (country_code; npm: CC0-1.0,
#                     data: NRO delegations CC BY 4.0, see DIR/licenses/)
#   DIR/asn.mmdb      built from @ip-location-db/asn (RouteViews + DB-IP ASN Lite, CC BY 4.0) with
#                     PyPI's mmdb-writer, in MaxMind's GeoLite2-ASN key names
# Prints DIR. Does nothing when DIR already holds the pinned versions.
#
# usage: fetch-geo-data.sh [DIR]   (default: $FLOWHOUSE_GEO_DIR, else ~/.cache/flowhouse/geo)
set -euo pipefail

DIR="${1:-${FLOWHOUSE_GEO_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/flowhouse/geo}}"
COUNTRY_PKG="@ip-location-db/geo-whois-asn-country-mmdb@${FLOWHOUSE_GEO_COUNTRY_VERSION:-2.3.2026061719}"
ASN_PKG="@ip-location-db/asn@${FLOWHOUSE_GEO_ASN_VERSION:-2.3.2026061719}"
MMDB_WRITER="mmdb-writer==0.2.7"
STAMP="$COUNTRY_PKG $ASN_PKG $MMDB_WRITER"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

mkdir -p "$DIR"
if [[ -f "$DIR/country.mmdb" && -f "$DIR/asn.mmdb" && "$(cat "$DIR/VERSION" 2>/dev/null)" == "$STAMP" ]]; then
  echo "$DIR"
  exit 0
fi
for cmd in npm python3; do
  command -v "$cmd" >/dev/null || { echo "fetch-geo-data: $cmd is missing (apt-get install npm python3-venv)" >&2; exit 1; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "fetch-geo-data: npm pack $COUNTRY_PKG $ASN_PKG" >&2
if ! (cd "$work" && npm pack --loglevel=error "$COUNTRY_PKG" "$ASN_PKG" >/dev/null 2>"$work/npm.err"); then
  # Why, in a few lines: npm's error code and the failed request (registry, cache and proxy are
  # npm's own settings: npm_config_registry, npm_config_cache, ...).
  echo "fetch-geo-data: npm pack failed (registry $(npm config get registry 2>/dev/null)):" >&2
  grep -E '^npm (error|ERR!) (code |.*(request to|reason))' "$work/npm.err" | head -3 >&2 || tail -3 "$work/npm.err" >&2
  exit 1
fi
mkdir -p "$work/country" "$work/asn" "$DIR/licenses"
tar xzf "$work"/ip-location-db-geo-whois-asn-country-mmdb-*.tgz -C "$work/country"
tar xzf "$work"/ip-location-db-asn-*.tgz -C "$work/asn"

if [[ ! -x "$DIR/venv/bin/python" ]] || ! "$DIR/venv/bin/python" -c 'import mmdb_writer' 2>/dev/null; then
  echo "fetch-geo-data: pip install $MMDB_WRITER (venv $DIR/venv)" >&2
  python3 -m venv "$DIR/venv"
  "$DIR/venv/bin/pip" install -q "$MMDB_WRITER"
fi
echo "fetch-geo-data: building asn.mmdb (a few minutes)" >&2
"$DIR/venv/bin/python" "$HERE/build-asn-mmdb.py" "$DIR/.asn.mmdb.tmp" \
  "$work/asn/package/asn-ipv4.csv" "$work/asn/package/asn-ipv6.csv"

cp "$work/country/package/geo-whois-asn-country.mmdb" "$DIR/.country.mmdb.tmp"
for f in NRO_LICENSE README.md; do cp "$work/country/package/$f" "$DIR/licenses/country-$f"; done
for f in DBIP-LICENSE ROUTEVIEWS-LICENSE MODIFICATIONS README.md; do cp "$work/asn/package/$f" "$DIR/licenses/asn-$f"; done
# Replace atomically: a running job reloads a changed file, never a half-written one.
mv -f "$DIR/.country.mmdb.tmp" "$DIR/country.mmdb"
mv -f "$DIR/.asn.mmdb.tmp" "$DIR/asn.mmdb"
echo "$STAMP" > "$DIR/VERSION"
echo "$DIR"
