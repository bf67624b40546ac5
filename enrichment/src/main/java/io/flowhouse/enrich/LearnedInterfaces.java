// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich;

import io.flowhouse.codec.template.OptionsData;
import java.net.InetAddress;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Interface names learned from the flows' own stream (IPFIX/v9 options data: {@code interfaceName},
 * {@code interfaceDescription}), kept per exporter in memory. Bounded: at most {@code maxExporters}
 * exporters and {@code maxInterfaces} interfaces each; what would go past a bound is dropped and
 * counted (a hostile exporter cannot grow it), and a known interface is always updated. A name sent
 * without an ifIndex (under {@link OptionsData#OBSERVED_INTERFACE}) is one entry like any other.
 */
public final class LearnedInterfaces implements InterfaceDirectory {

    private final int maxExporters;
    private final int maxInterfaces;
    private final Map<InetAddress, Map<Long, InterfaceInfo>> byExporter = new ConcurrentHashMap<>();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong version = new AtomicLong();

    public LearnedInterfaces(int maxExporters, int maxInterfaces) {
        if (maxExporters < 1 || maxInterfaces < 1) {
            throw new IllegalArgumentException("bounds must be >= 1");
        }
        this.maxExporters = maxExporters;
        this.maxInterfaces = maxInterfaces;
    }

    /**
     * Records what an exporter said about {@code ifIndex}; empty fields keep what was known.
     *
     * @return false when a bound dropped it
     */
    public boolean learn(InetAddress exporter, long ifIndex, String name, String description) {
        Map<Long, InterfaceInfo> ifs = byExporter.get(exporter);
        if (ifs == null) {
            if (byExporter.size() >= maxExporters) {
                dropped.incrementAndGet();
                return false;
            }
            ifs = byExporter.computeIfAbsent(exporter, e -> new ConcurrentHashMap<>());
        }
        InterfaceInfo old = ifs.get(ifIndex);
        if (old == null && ifs.size() >= maxInterfaces) {
            dropped.incrementAndGet();
            return false;
        }
        String n = name == null || name.isEmpty() ? old == null ? "" : old.name() : name;
        String d =
                description == null || description.isEmpty()
                        ? old == null ? "" : old.description()
                        : description;
        InterfaceInfo learned = new InterfaceInfo(n, d, old == null ? 0 : old.speedMbps());
        if (!learned.equals(old)) {
            ifs.put(ifIndex, learned);
            version.incrementAndGet();
        }
        return true;
    }

    @Override
    public long version() {
        return version.get();
    }

    /**
     * What the exporter said about {@code ifIndex}; for an ifIndex it named nothing, the interface
     * its metering process observes ({@link OptionsData#OBSERVED_INTERFACE}: softflowd names it
     * without an ifIndex and stamps that interface's index on every flow), if it named one.
     */
    @Override
    public Optional<InterfaceInfo> lookupInterface(InetAddress exporter, long ifIndex) {
        Map<Long, InterfaceInfo> ifs = byExporter.get(exporter);
        if (ifs == null) {
            return Optional.empty();
        }
        InterfaceInfo i = ifs.get(ifIndex);
        return Optional.ofNullable(i != null ? i : ifs.get(OptionsData.OBSERVED_INTERFACE));
    }

    @Override
    public Optional<String> exporterName(InetAddress exporter) {
        return Optional.empty();
    }

    /** Entries dropped at a bound. */
    public long dropped() {
        return dropped.get();
    }

    /** Interfaces known, over all exporters. */
    public int size() {
        return byExporter.values().stream().mapToInt(Map::size).sum();
    }
}
