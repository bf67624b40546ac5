// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.geo;

import com.maxmind.db.MaxMindDbConstructor;
import com.maxmind.db.MaxMindDbParameter;

/**
 * The fields read from one .mmdb record, whichever schema the file has: MaxMind's Country/City
 * ({@code country.iso_code}), ip-location-db's country ({@code country_code}), and the ASN schema
 * both use ({@code autonomous_system_number}, {@code autonomous_system_organization}). Absent
 * fields are null. The reader caches decoded records by offset, so a record is built once per
 * distinct database entry, not per lookup.
 */
public final class MmdbRecord {

    /** The {@code country} map of MaxMind's schema; only its ISO code is read. */
    public static final class Country {
        final String isoCode;

        @MaxMindDbConstructor
        public Country(@MaxMindDbParameter(name = "iso_code") String isoCode) {
            this.isoCode = isoCode;
        }
    }

    private final String country;
    private final long asn;
    private final String asName;

    @MaxMindDbConstructor
    public MmdbRecord(
            @MaxMindDbParameter(name = "country") Country country,
            @MaxMindDbParameter(name = "country_code") String countryCode,
            @MaxMindDbParameter(name = "autonomous_system_number") Long asn,
            @MaxMindDbParameter(name = "autonomous_system_organization") String asName) {
        String iso = country == null ? null : country.isoCode;
        this.country = iso != null ? iso : countryCode;
        this.asn = asn == null ? 0 : asn;
        this.asName = asName;
    }

    /** ISO 3166-1 alpha-2 code, or null. */
    public String country() {
        return country;
    }

    /** AS number, 0 when absent. */
    public long asn() {
        return asn;
    }

    /** AS organisation, or null. */
    public String asName() {
        return asName;
    }
}
