// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import io.flowhouse.config.ValueType;
import io.flowhouse.enrich.geo.AsnOrder;
import io.flowhouse.enrich.geo.MmdbFile;
import io.flowhouse.enrich.snmp.SnmpKeys;
import io.flowhouse.enrich.snmp.SnmpSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The enrichment keys ({@code flowhouse.enrich.*}), declared once, and the {@link EnrichSettings}
 * they resolve to. Every source is off until its file is named. The key table in {@code
 * enrichment/README.md} is generated from these declarations.
 */
public final class EnrichKeys {

    private static final ValueType<AsnOrder> ASN_ORDER =
            ValueType.of("one of exporter-first, database, exporter", AsnOrder::of, AsnOrder::word);

    public static final Key<Path> COUNTRY_DATABASE =
            Key.of("enrich.geoip.country-database", Types.PATH)
                    .doc(
                            "A MaxMind-format country or city database (.mmdb): GeoLite2/GeoIP2"
                                    + " Country or City (`country.iso_code`), or ip-location-db's"
                                    + " country files (`country_code`). Unset: no countries.");

    public static final Key<Path> ASN_DATABASE =
            Key.of("enrich.geoip.asn-database", Types.PATH)
                    .doc(
                            "A MaxMind-format ASN database (.mmdb, `autonomous_system_number`,"
                                    + " `autonomous_system_organization`): GeoLite2-ASN, or the"
                                    + " one `enrichment/scripts/fetch-geo-data.sh` builds from"
                                    + " ip-location-db. Unset: AS numbers as the exporter sent"
                                    + " them.");

    public static final Key<Integer> GEO_CACHE_ENTRIES =
            Key.of("enrich.geoip.cache-entries", Types.integer(1, 1 << 24))
                    .defaultValue(MmdbFile.DEFAULT_CACHE_ENTRIES)
                    .check(n -> Integer.bitCount(n) == 1, "a power of two")
                    .doc(
                            "Answers kept per database by address (four-way set-associative), so a"
                                    + " repeated address costs no tree walk; a reload empties it.");

    public static final Key<AsnOrder> ASN_ORDER_KEY =
            Key.of("enrich.asn-order", ASN_ORDER)
                    .defaultValue(AsnOrder.EXPORTER_FIRST)
                    .doc(
                            "Where src/dst AS numbers come from: exporter-first (the exporter's,"
                                    + " the database's when the exporter sent 0), database (the"
                                    + " database's only), exporter (the exporter's only).");

    public static final Key<Path> RULES_FILE =
            Key.of("enrich.rules-file", Types.PATH)
                    .doc(
                            "The static rules (YAML): exporters by prefix (name, role, site,"
                                    + " region, tenant, interface rules) and networks by prefix;"
                                    + " format in enrichment/README.md. Reloaded when it changes;"
                                    + " a malformed file keeps the last good one. Unset: none.");

    public static final Key<Integer> OPTIONS_MAX_EXPORTERS =
            Key.of("enrich.options.max-exporters", Types.integer(1, 1_000_000))
                    .defaultValue(4096)
                    .doc(
                            "Exporters whose options-data interface names and descriptions are"
                                    + " kept; past it a"
                                    + " new exporter's names are dropped and counted.");

    public static final Key<Integer> OPTIONS_MAX_INTERFACES =
            Key.of("enrich.options.max-interfaces", Types.integer(1, 1_000_000))
                    .defaultValue(4096)
                    .doc(
                            "Interfaces kept per exporter from options data; past it a new"
                                    + " interface's names are dropped and counted.");

    public static final Key<Integer> OPTIONS_MAX_VRFS =
            Key.of("enrich.options.max-vrfs", Types.integer(1, 1_000_000))
                    .defaultValue(4096)
                    .doc(
                            "VRF names (options data's VRFname by ingressVRFID) kept per exporter;"
                                    + " past it a new VRF's name is dropped and counted.");

    public static final Key<Duration> CHECK_INTERVAL =
            Key.of(
                            "enrich.check-interval",
                            Types.duration(ChronoUnit.SECONDS, Duration.ofMillis(100), null))
                    .defaultValue(Duration.ofSeconds(30))
                    .doc(
                            "How often the databases' and the static file's time and size are"
                                    + " looked at; a changed file is reloaded, never per flow.");

    /** In declaration order. */
    public static final List<Key<?>> KEYS =
            List.of(
                    COUNTRY_DATABASE,
                    ASN_DATABASE,
                    GEO_CACHE_ENTRIES,
                    ASN_ORDER_KEY,
                    RULES_FILE,
                    OPTIONS_MAX_EXPORTERS,
                    OPTIONS_MAX_INTERFACES,
                    OPTIONS_MAX_VRFS,
                    CHECK_INTERVAL);

    /** These keys alone under {@code flowhouse}, for their README table. */
    public static final ConfigSchema SCHEMA = ConfigSchema.of("flowhouse", "enrichment", KEYS);

    private EnrichKeys() {}

    private static String text(Path p) {
        return p == null ? null : p.toString();
    }

    /** SNMP's settings, its credentials file read once here so that a bad one fails at start. */
    private static SnmpSettings snmp(Config c) {
        SnmpKeys.options(c);
        return SnmpKeys.settings(c);
    }

    /**
     * The settings these keys resolve to (with {@link SnmpKeys}').
     *
     * @throws ConfigException naming the first bad key
     */
    public static EnrichSettings settings(Config c) {
        try {
            return new EnrichSettings(
                    text(c.get(COUNTRY_DATABASE)),
                    text(c.get(ASN_DATABASE)),
                    c.get(GEO_CACHE_ENTRIES),
                    c.get(ASN_ORDER_KEY),
                    text(c.get(RULES_FILE)),
                    c.get(OPTIONS_MAX_EXPORTERS),
                    c.get(OPTIONS_MAX_INTERFACES),
                    c.get(OPTIONS_MAX_VRFS),
                    c.get(CHECK_INTERVAL),
                    snmp(c));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("config " + e.getMessage(), e);
        }
    }
}
