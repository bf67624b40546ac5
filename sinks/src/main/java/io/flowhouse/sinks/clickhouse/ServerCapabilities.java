// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the connected ClickHouse server can do, found by {@code SELECT version()} and by probing
 * {@code system.data_type_families}, {@code system.settings} and {@code system.merge_tree_settings}
 * (a probe wins over a version threshold where one exists). The schema templates and the row
 * encoders both read it, so the column types written and the bytes sent always agree.
 *
 * @param version the server's version string, e.g. {@code 18.16.1} or {@code 24.8.4.13}
 * @param ipv6Type the {@code IPv6} data type exists (else {@code FixedString(16)})
 * @param dateTime64 the {@code DateTime64(3)} data type exists (else {@code DateTime}, seconds)
 * @param lowCardinality {@code LowCardinality} is a regular (non-experimental) type
 * @param codecs column {@code CODEC(...)} clauses are understood
 * @param ttl table {@code TTL} clauses are understood
 * @param insertDeduplicationToken the {@code insert_deduplication_token} setting exists
 * @param nonReplicatedDeduplication the {@code non_replicated_deduplication_window} MergeTree
 *     setting exists
 */
public record ServerCapabilities(
        String version,
        boolean ipv6Type,
        boolean dateTime64,
        boolean lowCardinality,
        boolean codecs,
        boolean ttl,
        boolean insertDeduplicationToken,
        boolean nonReplicatedDeduplication)
        implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final Pattern VERSION = Pattern.compile("^(\\d+)\\.(\\d+)");

    /** The probes {@link #detect} runs, as one query returning {@code name\tvalue} rows. */
    public static final String PROBE_SQL =
            "SELECT 'version', version()"
                    + " UNION ALL SELECT concat('type:', name), '1' FROM system.data_type_families"
                    + " WHERE name IN ('IPv6', 'DateTime64', 'LowCardinality')"
                    + " UNION ALL SELECT concat('setting:', name), '1' FROM system.settings"
                    + " WHERE name IN ('insert_deduplication_token',"
                    + " 'allow_experimental_low_cardinality_type')"
                    + " UNION ALL SELECT concat('mt:', name), '1' FROM system.merge_tree_settings"
                    + " WHERE name IN ('non_replicated_deduplication_window', 'ttl_only_drop_parts')";

    /** ClickHouse 18.16.1 as Debian ships it: no modern types, no TTL, no codecs. */
    public static ServerCapabilities legacy(String version) {
        return new ServerCapabilities(version, false, false, false, false, false, false, false);
    }

    /** Everything a current server (20.x and later) has. */
    public static ServerCapabilities modern(String version) {
        return new ServerCapabilities(version, true, true, true, true, true, true, true);
    }

    /** Builds the capabilities from the {@link #PROBE_SQL} rows ({@code name -> value}). */
    public static ServerCapabilities fromProbe(Map<String, String> probe) {
        String version = probe.getOrDefault("version", "0.0");
        int[] mm = majorMinor(version);
        boolean atLeast20 = mm[0] >= 20;
        Set<String> keys = probe.keySet();
        // LowCardinality is listed in 18.16 too, but only behind an experimental setting there;
        // it became a regular type in 19.x.
        boolean lowCardinality = keys.contains("type:LowCardinality") && mm[0] >= 19;
        return new ServerCapabilities(
                version,
                keys.contains("type:IPv6"),
                keys.contains("type:DateTime64"),
                lowCardinality,
                atLeast20,
                keys.contains("mt:ttl_only_drop_parts") || atLeast20,
                keys.contains("setting:insert_deduplication_token"),
                keys.contains("mt:non_replicated_deduplication_window"));
    }

    /** Parses TabSeparated probe output lines. */
    public static ServerCapabilities fromProbeLines(Iterable<String> lines) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : lines) {
            int tab = line.indexOf('\t');
            if (tab > 0) {
                m.put(line.substring(0, tab), line.substring(tab + 1));
            }
        }
        return fromProbe(m);
    }

    /** Major and minor version numbers; {0, 0} when unparseable. */
    public static int[] majorMinor(String version) {
        Matcher m = VERSION.matcher(version);
        if (!m.find()) {
            return new int[] {0, 0};
        }
        return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))};
    }

    /** True when the schema gets its modern form (IPv6, DateTime64(3), codecs, TTL). */
    public boolean isModern() {
        return ipv6Type && dateTime64 && codecs && ttl;
    }
}
