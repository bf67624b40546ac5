// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich;

import io.flowhouse.enrich.geo.GeoLookup;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.Boundary;
import io.flowhouse.enrich.rules.ExporterEntry;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.enrich.rules.StaticRules;
import java.net.InetAddress;
import java.util.Objects;
import java.util.Optional;

/**
 * Builds the {@link FlowContext} of a flow from every configured source: interface and exporter
 * names from the {@link InterfaceDirectory} sources (in priority order), the static rules on top
 * (exporter and network attributes, interface overrides and classification), countries and AS
 * numbers from the geo databases. Answers from memory only; a source that is off or failed leaves
 * its fields empty.
 */
public final class Enricher {

    /** Interface contexts classified, by exporter entry, ifIndex and the sources' answer. */
    private static final int IFACE_CACHE = 4096;

    private record Classified(
            ExporterEntry entry, long ifIndex, InterfaceInfo info, InterfaceContext context) {}

    private final Classified[] ifaceCache = new Classified[IFACE_CACHE];
    private final InterfaceDirectory sources;
    private final WatchedFile<StaticRules> rules;
    private final GeoLookup geo;

    /**
     * @param sources interface and exporter names, in priority order (may be empty)
     * @param rules the static rules file, or null when none is configured
     * @param geo the geo databases (either may be absent)
     */
    public Enricher(InterfaceDirectory sources, WatchedFile<StaticRules> rules, GeoLookup geo) {
        this.sources = sources;
        this.rules = rules;
        this.geo = geo;
    }

    /** The context of one flow; the AS numbers are the exporter's, chosen per the AS order. */
    public FlowContext enrich(
            InetAddress exporter,
            long inIf,
            long outIf,
            InetAddress src,
            InetAddress dst,
            long srcAs,
            long dstAs,
            long nowNanos) {
        StaticRules r = rules == null ? null : rules.get(nowNanos);
        if (r == null) {
            r = StaticRules.EMPTY;
        }
        sources.observe(exporter);
        ExporterEntry entry = r.exporter(exporter.getAddress());
        Attributes exp = entry == null ? Attributes.NONE : entry.attributes();
        if (exp.name().isEmpty()) {
            Optional<String> name = sources.exporterName(exporter);
            if (name.isPresent()) {
                exp = new Attributes(name.get(), "", "", "", "").over(exp);
            }
        }
        return new FlowContext(
                exp,
                iface(exporter, entry, inIf),
                iface(exporter, entry, outIf),
                geo.country(src, nowNanos),
                geo.country(dst, nowNanos),
                geo.asn(src, srcAs, nowNanos),
                geo.asn(dst, dstAs, nowNanos),
                r.network(src.getAddress()),
                r.network(dst.getAddress()));
    }

    private InterfaceContext iface(InetAddress exporter, ExporterEntry entry, long ifIndex) {
        InterfaceInfo info = sources.lookupInterface(exporter, ifIndex).orElse(null);
        // The rules' regular expressions cost more than the rest of a flow's context: keep the
        // answer while the rules entry is the same object and the sources say the same.
        int slot =
                (int) ((System.identityHashCode(entry) * 31L + ifIndex) * 0x9E3779B9L >>> 20)
                        & (IFACE_CACHE - 1);
        Classified c = ifaceCache[slot];
        if (c != null && c.entry == entry && c.ifIndex == ifIndex && Objects.equals(c.info, info)) {
            return c.context;
        }
        InterfaceContext context = classify(entry, ifIndex, info);
        ifaceCache[slot] = new Classified(entry, ifIndex, info, context);
        return context;
    }

    private static InterfaceContext classify(
            ExporterEntry entry, long ifIndex, InterfaceInfo info) {
        InterfaceContext base =
                Optional.ofNullable(info)
                        .map(
                                i ->
                                        new InterfaceContext(
                                                i.name(),
                                                i.description(),
                                                i.speedMbps(),
                                                Boundary.UNDEFINED,
                                                "",
                                                ""))
                        .orElse(InterfaceContext.UNKNOWN);
        return entry == null ? base : entry.classify(ifIndex, base);
    }
}
