// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich;

import io.flowhouse.codec.flow.IpAddress;
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

    /** Ways per set of the caches below. */
    private static final int WAYS = 4;

    /** Exporters' {@link InetAddress}es (what the interface sources take), by address. */
    private static final int EXPORTER_CACHE = 1024;

    private record Exporter(IpAddress address, InetAddress inet) {}

    private final Classified[] ifaceCache = new Classified[IFACE_CACHE];
    private final Exporter[] exporterCache = new Exporter[EXPORTER_CACHE];
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
        return enrich(
                IpAddress.of(exporter),
                inIf,
                outIf,
                IpAddress.of(src),
                IpAddress.of(dst),
                srcAs,
                dstAs,
                nowNanos);
    }

    /**
     * As {@link #enrich(InetAddress, long, long, InetAddress, InetAddress, long, long, long)}, with
     * the addresses as the decoder gives them: the rules and the geo databases are looked up from
     * their two longs, so a flow whose answers are cached allocates only its context.
     */
    public FlowContext enrich(
            IpAddress exporterAddress,
            long inIf,
            long outIf,
            IpAddress src,
            IpAddress dst,
            long srcAs,
            long dstAs,
            long nowNanos) {
        StaticRules r = rules == null ? null : rules.get(nowNanos);
        if (r == null) {
            r = StaticRules.EMPTY;
        }
        InetAddress exporter = inet(exporterAddress);
        sources.observe(exporter);
        ExporterEntry entry = r.exporter(exporterAddress);
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
                r.network(src),
                r.network(dst));
    }

    /** The exporter as the interface sources take it: few exporters, so kept once each. */
    private InetAddress inet(IpAddress address) {
        int hash = address.hashCode() * 0x9E3779B9;
        int set = (hash >>> (32 - Integer.numberOfTrailingZeros(EXPORTER_CACHE))) & ~(WAYS - 1);
        int free = -1;
        for (int w = 0; w < WAYS; w++) {
            Exporter e = exporterCache[set + w];
            if (e == null) {
                free = free < 0 ? set + w : free;
            } else if (e.address.equals(address)) {
                return e.inet;
            }
        }
        InetAddress inet = address.toInetAddress();
        exporterCache[free >= 0 ? free : set + (hash & (WAYS - 1))] = new Exporter(address, inet);
        return inet;
    }

    private InterfaceContext iface(InetAddress exporter, ExporterEntry entry, long ifIndex) {
        InterfaceInfo info = sources.lookupInterface(exporter, ifIndex).orElse(null);
        // The rules' regular expressions cost more than the rest of a flow's context: keep the
        // answer while the rules entry is the same object and the sources say the same. Four ways
        // per set: direct-mapped, about a fifth of 1,024 interfaces shared a slot and ran their
        // expressions again on every other flow.
        int hash =
                (int)
                        ((System.identityHashCode(entry) * 31L + ifIndex) * 0x9E3779B97F4A7C15L
                                >>> 32);
        int set = (hash >>> (32 - Integer.numberOfTrailingZeros(IFACE_CACHE))) & ~(WAYS - 1);
        int way = -1;
        for (int w = 0; w < WAYS; w++) {
            Classified c = ifaceCache[set + w];
            if (c == null) {
                way = way < 0 ? set + w : way;
            } else if (c.entry == entry && c.ifIndex == ifIndex) {
                if (Objects.equals(c.info, info)) {
                    return c.context;
                }
                way = set + w; // the sources changed their answer: replace it
                break;
            }
        }
        InterfaceContext context = classify(entry, ifIndex, info);
        ifaceCache[way >= 0 ? way : set + (hash & (WAYS - 1))] =
                new Classified(entry, ifIndex, info, context);
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
