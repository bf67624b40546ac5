// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.rules;

import io.flowhouse.codec.flow.IpAddress;
import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The static rules file, loaded: exporters and networks by prefix. The most specific prefix holding
 * an address wins; fields it leaves unsaid come from less specific ones; at equal prefix the later
 * entry wins. Immutable; a reload builds a new one.
 */
public final class StaticRules {

    public static final StaticRules EMPTY = of(List.of(), List.of());

    private final PrefixTable<ExporterEntry> exporters;
    private final PrefixTable<Attributes> networks;
    private final int exporterCount;
    private final int networkCount;

    private StaticRules(
            PrefixTable<ExporterEntry> exporters,
            PrefixTable<Attributes> networks,
            int exporterCount,
            int networkCount) {
        this.exporters = exporters;
        this.networks = networks;
        this.exporterCount = exporterCount;
        this.networkCount = networkCount;
    }

    /** Entries in file order; each merged with the less specific entries that cover it. */
    public static StaticRules of(
            List<Map.Entry<Prefix, ExporterEntry>> exporters,
            List<Map.Entry<Prefix, Attributes>> networks) {
        List<Map.Entry<Prefix, ExporterEntry>> e = new ArrayList<>();
        for (Map.Entry<Prefix, ExporterEntry> entry : latest(exporters)) {
            ExporterEntry merged = entry.getValue();
            for (Map.Entry<Prefix, ExporterEntry> wider : widerFirst(exporters, entry.getKey())) {
                merged = merged.over(wider.getValue());
            }
            e.add(new SimpleEntry<>(entry.getKey(), merged));
        }
        List<Map.Entry<Prefix, Attributes>> n = new ArrayList<>();
        for (Map.Entry<Prefix, Attributes> entry : latest(networks)) {
            Attributes merged = entry.getValue();
            for (Map.Entry<Prefix, Attributes> wider : widerFirst(networks, entry.getKey())) {
                merged = merged.over(wider.getValue());
            }
            n.add(new SimpleEntry<>(entry.getKey(), merged));
        }
        return new StaticRules(new PrefixTable<>(e), new PrefixTable<>(n), e.size(), n.size());
    }

    /** The exporter entry for {@code address} (4 or 16 bytes), or null. */
    public ExporterEntry exporter(byte[] address) {
        return exporters.lookup(address);
    }

    /** As {@link #exporter(byte[])}, for an address as decoded (IPv4 mapped). */
    public ExporterEntry exporter(IpAddress address) {
        return address.isIpv4()
                ? exporters.lookupV4(address.ipv4() & 0xffff_ffffL)
                : exporters.lookupV6(address.hi(), address.lo());
    }

    /** As {@link #network(byte[])}, for an address as decoded (IPv4 mapped). */
    public Attributes network(IpAddress address) {
        Attributes a =
                address.isIpv4()
                        ? networks.lookupV4(address.ipv4() & 0xffff_ffffL)
                        : networks.lookupV6(address.hi(), address.lo());
        return a == null ? Attributes.NONE : a;
    }

    /** The network attributes of {@code address} (4 or 16 bytes), or {@link Attributes#NONE}. */
    public Attributes network(byte[] address) {
        Attributes a = networks.lookup(address);
        return a == null ? Attributes.NONE : a;
    }

    public int exporterCount() {
        return exporterCount;
    }

    public int networkCount() {
        return networkCount;
    }

    /** Of entries with the same prefix, only the last one. */
    private static <V> List<Map.Entry<Prefix, V>> latest(List<Map.Entry<Prefix, V>> entries) {
        Map<Prefix, Map.Entry<Prefix, V>> byPrefix = new java.util.LinkedHashMap<>();
        for (Map.Entry<Prefix, V> entry : entries) {
            byPrefix.remove(entry.getKey());
            byPrefix.put(entry.getKey(), entry);
        }
        return new ArrayList<>(byPrefix.values());
    }

    /**
     * The entries strictly wider than {@code p} that cover it, nearest first (so {@code over}
     * applied in this order lets nearer ones win), one per prefix (the last).
     */
    private static <V> List<Map.Entry<Prefix, V>> widerFirst(
            List<Map.Entry<Prefix, V>> entries, Prefix p) {
        List<Map.Entry<Prefix, V>> out = new ArrayList<>();
        for (Map.Entry<Prefix, V> e : latest(entries)) {
            if (e.getKey().length() < p.length() && e.getKey().covers(p)) {
                out.add(e);
            }
        }
        out.sort((a, b) -> Integer.compare(b.getKey().length(), a.getKey().length()));
        return out;
    }
}
