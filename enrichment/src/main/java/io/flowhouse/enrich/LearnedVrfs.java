// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich;

import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * VRF names learned from the flows' own stream (IPFIX/v9 options data: {@code VRFname} by {@code
 * ingressVRFID}), kept per exporter in memory like {@link LearnedInterfaces}. Bounded: at most
 * {@code maxExporters} exporters and {@code maxVrfs} VRFs each; what would go past a bound is
 * dropped and counted, and a known VRF is always updated.
 */
public final class LearnedVrfs {

    private final int maxExporters;
    private final int maxVrfs;
    private final Map<InetAddress, Map<Long, String>> byExporter = new ConcurrentHashMap<>();
    private final AtomicLong dropped = new AtomicLong();

    public LearnedVrfs(int maxExporters, int maxVrfs) {
        if (maxExporters < 1 || maxVrfs < 1) {
            throw new IllegalArgumentException("bounds must be >= 1");
        }
        this.maxExporters = maxExporters;
        this.maxVrfs = maxVrfs;
    }

    /**
     * Records the name an exporter gave {@code vrfId}; an empty name keeps what was known.
     *
     * @return false when a bound dropped it
     */
    public boolean learn(InetAddress exporter, long vrfId, String name) {
        if (name == null || name.isEmpty()) {
            return true;
        }
        Map<Long, String> vrfs = byExporter.get(exporter);
        if (vrfs == null) {
            if (byExporter.size() >= maxExporters) {
                dropped.incrementAndGet();
                return false;
            }
            vrfs = byExporter.computeIfAbsent(exporter, e -> new ConcurrentHashMap<>());
        }
        if (!vrfs.containsKey(vrfId) && vrfs.size() >= maxVrfs) {
            dropped.incrementAndGet();
            return false;
        }
        vrfs.put(vrfId, name);
        return true;
    }

    /** The name of {@code exporter}'s {@code vrfId}, or "" (also for VRF id 0: none given). */
    public String name(InetAddress exporter, long vrfId) {
        if (vrfId == 0) {
            return "";
        }
        Map<Long, String> vrfs = byExporter.get(exporter);
        if (vrfs == null) {
            return "";
        }
        String n = vrfs.get(vrfId);
        return n == null ? "" : n;
    }

    /** Entries dropped at a bound. */
    public long dropped() {
        return dropped.get();
    }

    /** VRF names known, over all exporters. */
    public int size() {
        return byExporter.values().stream().mapToInt(Map::size).sum();
    }
}
