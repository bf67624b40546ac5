// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich;

import io.flowhouse.enrich.geo.AsnOrder;
import io.flowhouse.enrich.geo.GeoLookup;
import io.flowhouse.enrich.geo.MmdbFile;
import io.flowhouse.enrich.rules.StaticRules;
import io.flowhouse.enrich.rules.StaticRulesParser;
import io.flowhouse.enrich.snmp.SnmpSettings;
import java.io.Serializable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What {@link EnrichKeys} resolve to: the files of each source (null: that source is off), the
 * AS-number order, the reload check interval and the SNMP poller's settings (null: off).
 * Serializable so the job can ship it to its operators, which open the files where they run (paths
 * as text: {@link Path} is not serializable).
 */
public record EnrichSettings(
        String countryDatabase,
        String asnDatabase,
        int geoCacheEntries,
        AsnOrder asnOrder,
        String rulesFile,
        int optionsMaxExporters,
        int optionsMaxInterfaces,
        int optionsMaxVrfs,
        Duration checkInterval,
        SnmpSettings snmp)
        implements Serializable {

    public EnrichSettings {
        Objects.requireNonNull(asnOrder, "asnOrder");
        Objects.requireNonNull(checkInterval, "checkInterval");
    }

    /** Whether any file source or SNMP is configured: else the job stores flows as decoded. */
    public boolean enabled() {
        return countryDatabase != null || asnDatabase != null || rulesFile != null || snmp != null;
    }

    /** An empty options-data directory within the configured bounds. */
    public LearnedInterfaces newLearnedInterfaces() {
        return new LearnedInterfaces(optionsMaxExporters, optionsMaxInterfaces);
    }

    /** An empty options-data VRF name directory within the configured bounds. */
    public LearnedVrfs newLearnedVrfs() {
        return new LearnedVrfs(optionsMaxExporters, optionsMaxVrfs);
    }

    /** Opens the configured databases; a missing or bad file is reported there, not thrown. */
    public GeoLookup openGeo() {
        MmdbFile country =
                countryDatabase == null
                        ? null
                        : MmdbFile.open(Path.of(countryDatabase), checkInterval, geoCacheEntries);
        MmdbFile asn =
                asnDatabase == null
                        ? null
                        : asnDatabase.equals(countryDatabase)
                                ? country
                                : MmdbFile.open(
                                        Path.of(asnDatabase), checkInterval, geoCacheEntries);
        return new GeoLookup(country, asn, asnOrder);
    }

    /**
     * Loads the rules file, or null when none is configured; a bad file is reported, not thrown.
     */
    public WatchedFile<StaticRules> openRules() {
        return rulesFile == null
                ? null
                : WatchedFile.open(
                        "enrichment rules",
                        Path.of(rulesFile),
                        checkInterval,
                        StaticRulesParser::read);
    }

    /**
     * An enricher over every configured file, with {@code sources} (SNMP, options data...) in
     * priority order for interface and exporter names.
     */
    public Enricher open(List<? extends InterfaceDirectory> sources) {
        return new Enricher(new CompositeDirectory(sources), openRules(), openGeo());
    }
}
