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

    /** What the databases say of one address: its country ("" when unknown) and AS record. */
    public record Answer(String country, MmdbRecord asRecord) {
        static final Answer NONE = new Answer("", null);
    }

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

    /**
     * Country and AS record of {@code address} from both files (each answers from its own cache
     * when it can).
     */
    public Answer lookup(IpAddress address, long nowNanos) {
        MmdbRecord country = countryDb == null ? null : countryDb.lookup(address, nowNanos);
        MmdbRecord as = asRecord(address, nowNanos);
        if (country == null && as == null) {
            return Answer.NONE;
        }
        return new Answer(
                country == null || country.country() == null ? "" : country.country(), as);
    }

    /**
     * The files' identities now: an answer of {@link #lookup} kept beside them is stale once one
     * changes (a reloaded file).
     */
    public Object countryGeneration(long nowNanos) {
        return countryDb == null ? null : countryDb.generation(nowNanos);
    }

    /** As {@link #countryGeneration}, for the ASN file. */
    public Object asnGeneration(long nowNanos) {
        return asnDb == null ? null : asnDb.generation(nowNanos);
    }

    /** The AS number to store for an address whose {@link #lookup} gave {@code answer}. */
    public long asn(Answer answer, long exporterAs) {
        if (asnOrder.keepsExporter(exporterAs)) {
            return exporterAs;
        }
        return answer.asRecord() == null ? 0 : answer.asRecord().asn();
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
