// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich;

import java.net.InetAddress;
import java.util.List;
import java.util.Optional;

/**
 * Several {@link InterfaceDirectory} sources in priority order (e.g. SNMP, then exporter options
 * data): each field of an interface comes from the first source that knows it, so an SNMP {@code
 * ifAlias} wins over an options-data description while options data still names an interface SNMP
 * has not polled yet. The static rules are applied on top, by {@link Enricher}.
 */
public final class CompositeDirectory implements InterfaceDirectory {

    private final InterfaceDirectory[] sources;

    public CompositeDirectory(List<? extends InterfaceDirectory> sources) {
        this.sources = sources.toArray(new InterfaceDirectory[0]);
    }

    @Override
    public Optional<InterfaceInfo> lookupInterface(InetAddress exporter, long ifIndex) {
        if (sources.length == 1) {
            return sources[0].lookupInterface(exporter, ifIndex);
        }
        String name = "";
        String description = "";
        long speed = 0;
        boolean any = false;
        for (InterfaceDirectory s : sources) {
            Optional<InterfaceInfo> o = s.lookupInterface(exporter, ifIndex);
            if (o.isEmpty()) {
                continue;
            }
            InterfaceInfo i = o.get();
            any = true;
            name = name.isEmpty() ? i.name() : name;
            description = description.isEmpty() ? i.description() : description;
            speed = speed == 0 ? i.speedMbps() : speed;
        }
        return any ? Optional.of(new InterfaceInfo(name, description, speed)) : Optional.empty();
    }

    @Override
    public Optional<String> exporterName(InetAddress exporter) {
        for (InterfaceDirectory s : sources) {
            Optional<String> n = s.exporterName(exporter);
            if (n.isPresent() && !n.get().isEmpty()) {
                return n;
            }
        }
        return Optional.empty();
    }

    /** The sum of the sources' versions: it grows whenever one of them does. */
    @Override
    public long version() {
        long sum = 0;
        for (InterfaceDirectory s : sources) {
            long v = s.version();
            if (v == UNVERSIONED) {
                return UNVERSIONED;
            }
            sum += v;
        }
        return sum;
    }

    @Override
    public void observe(InetAddress exporter) {
        for (InterfaceDirectory s : sources) {
            s.observe(exporter);
        }
    }
}
