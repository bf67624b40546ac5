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

    /**
     * An interface's classified context, for the exporter, rules entry and ifIndex; valid while the
     * sources' {@link InterfaceDirectory#version()} is {@code version}.
     */
    private record Classified(
            IpAddress exporter,
            ExporterEntry entry,
            long ifIndex,
            InterfaceInfo info,
            InterfaceContext context,
            long version) {}

    /** Ways per set of the caches below. */
    private static final int WAYS = 4;

    /** Exporters' {@link InetAddress}es (what the interface sources take), by address. */
    private static final int EXPORTER_CACHE = 1024;

    /** How often a flow's exporter is told to the sources at most (SNMP only needs it rarely). */
    private static final long OBSERVE_EVERY_NANOS = 1_000_000_000L;

    /** An exporter as the interface sources take it, when it was last told, and its name. */
    private static final class Exporter {
        final IpAddress address;
        final InetAddress inet;
        long observedNanos;
        long nameVersion = InterfaceDirectory.UNVERSIONED;
        Optional<String> name = Optional.empty();
        StaticRules rules;
        ExporterEntry entry;

        Exporter(IpAddress address, InetAddress inet, long nowNanos) {
            this.address = address;
            this.inet = inet;
            this.observedNanos = nowNanos;
        }

        /** The rules' entry of this exporter, matched again only when the rules are reloaded. */
        ExporterEntry entry(StaticRules r) {
            if (r != rules) {
                entry = r.exporter(address);
                rules = r;
            }
            return entry;
        }
    }

    /** What one address gets: country and AS from the databases, network from the rules. */
    private record AddressContext(GeoLookup.Answer geo, Attributes network) {}

    /** An address's context with the rules and files it came from; immutable. */
    private record CachedAddress(
            long hi,
            long lo,
            AddressContext context,
            StaticRules rules,
            Object countryFile,
            Object asnFile) {}

    /**
     * Address contexts kept, four ways per set: flows repeat addresses, and one probe answers the
     * country, the AS and the network (two database walks and a prefix match on a miss).
     */
    private static final int ADDRESS_CACHE = 65_536;

    private final CachedAddress[] addressCache = new CachedAddress[ADDRESS_CACHE];
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
        long version = sources.version();
        Exporter exporter = exporter(exporterAddress, nowNanos);
        ExporterEntry entry = exporter.entry(r);
        Attributes exp = entry == null ? Attributes.NONE : entry.attributes();
        if (exp.name().isEmpty()) {
            Optional<String> name = exporterName(exporter, version);
            if (name.isPresent()) {
                exp = new Attributes(name.get(), "", "", "", "").over(exp);
            }
        }
        Object countryFile = geo.countryGeneration(nowNanos);
        Object asnFile = geo.asnGeneration(nowNanos);
        AddressContext s = address(src, r, countryFile, asnFile, nowNanos);
        AddressContext d = address(dst, r, countryFile, asnFile, nowNanos);
        return new FlowContext(
                exp,
                iface(exporter, entry, inIf, version),
                iface(exporter, entry, outIf, version),
                s.geo().country(),
                d.geo().country(),
                geo.asn(s.geo(), srcAs),
                geo.asn(d.geo(), dstAs),
                s.network(),
                d.network());
    }

    private AddressContext address(
            IpAddress a, StaticRules r, Object countryFile, Object asnFile, long nowNanos) {
        long hi = a.hi();
        long lo = a.lo();
        // Both halves mixed before the top bits are taken: IPv4 addresses differ in lo only.
        long mixed = (hi * 0x9E3779B97F4A7C15L + lo) * 0xC2B2AE3D27D4EB4FL;
        int hash = (int) (mixed ^ (mixed >>> 29) ^ (mixed >>> 47));
        int set = (hash >>> (32 - Integer.numberOfTrailingZeros(ADDRESS_CACHE))) & ~(WAYS - 1);
        int free = -1;
        for (int w = 0; w < WAYS; w++) {
            CachedAddress c = addressCache[set + w];
            if (c == null || c.rules != r || c.countryFile != countryFile || c.asnFile != asnFile) {
                free = free < 0 ? set + w : free;
            } else if (c.hi == hi && c.lo == lo) {
                return c.context;
            }
        }
        AddressContext context = new AddressContext(geo.lookup(a, nowNanos), r.network(a));
        addressCache[free >= 0 ? free : set + (hash & (WAYS - 1))] =
                new CachedAddress(hi, lo, context, r, countryFile, asnFile);
        return context;
    }

    /**
     * The exporter as the interface sources take it: few exporters, so kept once each; told to the
     * sources when first seen here and then at most once a second.
     */
    private Exporter exporter(IpAddress address, long nowNanos) {
        int hash = address.hashCode() * 0x9E3779B9;
        int set = (hash >>> (32 - Integer.numberOfTrailingZeros(EXPORTER_CACHE))) & ~(WAYS - 1);
        int free = -1;
        for (int w = 0; w < WAYS; w++) {
            Exporter e = exporterCache[set + w];
            if (e == null) {
                free = free < 0 ? set + w : free;
            } else if (e.address.equals(address)) {
                if (nowNanos - e.observedNanos >= OBSERVE_EVERY_NANOS) {
                    e.observedNanos = nowNanos;
                    sources.observe(e.inet);
                }
                return e;
            }
        }
        Exporter e = new Exporter(address, address.toInetAddress(), nowNanos);
        sources.observe(e.inet);
        exporterCache[free >= 0 ? free : set + (hash & (WAYS - 1))] = e;
        return e;
    }

    /** The sources' name of the exporter, asked again only when their answers may have changed. */
    private Optional<String> exporterName(Exporter e, long version) {
        if (version == InterfaceDirectory.UNVERSIONED || version != e.nameVersion) {
            e.name = sources.exporterName(e.inet);
            e.nameVersion = version;
        }
        return e.name;
    }

    private InterfaceContext iface(
            Exporter exporter, ExporterEntry entry, long ifIndex, long version) {
        // The rules' regular expressions cost more than the rest of a flow's context: keep the
        // answer while the rules entry is the same object and the sources say the same. Four ways
        // per set: direct-mapped, about a fifth of 1,024 interfaces shared a slot and ran their
        // expressions again on every other flow.
        int hash =
                (int)
                        (((exporter.address.hashCode() * 31L + System.identityHashCode(entry)) * 31L
                                                + ifIndex)
                                        * 0x9E3779B97F4A7C15L
                                >>> 32);
        int set = (hash >>> (32 - Integer.numberOfTrailingZeros(IFACE_CACHE))) & ~(WAYS - 1);
        int way = -1;
        Classified hit = null;
        for (int w = 0; w < WAYS; w++) {
            Classified c = ifaceCache[set + w];
            if (c == null) {
                way = way < 0 ? set + w : way;
            } else if (c.entry == entry
                    && c.ifIndex == ifIndex
                    && c.exporter.equals(exporter.address)) {
                if (version != InterfaceDirectory.UNVERSIONED && c.version == version) {
                    return c.context; // the sources have not changed since
                }
                hit = c;
                way = set + w;
                break;
            }
        }
        InterfaceInfo info = sources.lookupInterface(exporter.inet, ifIndex).orElse(null);
        InterfaceContext context =
                hit != null && Objects.equals(hit.info, info)
                        ? hit.context
                        : classify(entry, ifIndex, info);
        ifaceCache[way >= 0 ? way : set + (hash & (WAYS - 1))] =
                new Classified(exporter.address, entry, ifIndex, info, context, version);
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
