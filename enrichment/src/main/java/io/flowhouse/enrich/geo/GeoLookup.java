// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.geo;

import io.flowhouse.codec.flow.IpAddress;
import java.net.InetAddress;

/**
 * Country and AS of an address from up to two databases (a country or city file, an ASN file;
 * either may be absent, or one file may carry both), with the AS number chosen per {@link
 * AsnOrder}.
 */
public final class GeoLookup {

    private final MmdbFile countryDb;
    private final MmdbFile asnDb;
    private final AsnOrder asnOrder;

    /** Either file may be null: that field is then never filled. */
    public GeoLookup(MmdbFile countryDb, MmdbFile asnDb, AsnOrder asnOrder) {
        this.countryDb = countryDb;
        this.asnDb = asnDb;
        this.asnOrder = asnOrder;
    }

    /** ISO 3166-1 alpha-2 country code, or "" when unknown. */
    public String country(InetAddress address, long nowNanos) {
        return country(IpAddress.of(address), nowNanos);
    }

    /** As {@link #country(InetAddress, long)}, for a flow's address as decoded. */
    public String country(IpAddress address, long nowNanos) {
        if (countryDb == null) {
            return "";
        }
        MmdbRecord r = countryDb.lookup(address, nowNanos);
        return r == null || r.country() == null ? "" : r.country();
    }

    /** The database's record for the AS of {@code address}, or null. */
    public MmdbRecord asRecord(InetAddress address, long nowNanos) {
        return asRecord(IpAddress.of(address), nowNanos);
    }

    /** As {@link #asRecord(InetAddress, long)}, for a flow's address as decoded. */
    public MmdbRecord asRecord(IpAddress address, long nowNanos) {
        return asnDb == null ? null : asnDb.lookup(address, nowNanos);
    }

    /** The AS number to store: the exporter's or the database's, per the configured order. */
    public long asn(InetAddress address, long exporterAs, long nowNanos) {
        return asn(IpAddress.of(address), exporterAs, nowNanos);
    }

    /** As {@link #asn(InetAddress, long, long)}, for a flow's address as decoded. */
    public long asn(IpAddress address, long exporterAs, long nowNanos) {
        if (asnOrder.keepsExporter(exporterAs)) {
            return exporterAs;
        }
        MmdbRecord r = asRecord(address, nowNanos);
        return r == null ? 0 : r.asn();
    }

    public AsnOrder asnOrder() {
        return asnOrder;
    }

    /** The country file, or null. */
    public MmdbFile countryDb() {
        return countryDb;
    }

    /** The ASN file, or null. */
    public MmdbFile asnDb() {
        return asnDb;
    }
}
