// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import io.flowhouse.enrich.InterfaceInfo;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What one poll learned of one exporter, immutable. Interfaces are held in a sorted {@code long[]}
 * with their infos beside it: a lookup is a binary search that allocates nothing.
 */
final class ExporterSnapshot {

    static final ExporterSnapshot EMPTY = new ExporterSnapshot("", new TreeMap<>());

    private final String sysName;
    private final long[] ifIndexes;
    private final InterfaceInfo[] infos;

    ExporterSnapshot(String sysName, SortedMap<Long, InterfaceInfo> interfaces) {
        this.sysName = sysName;
        this.ifIndexes = new long[interfaces.size()];
        this.infos = new InterfaceInfo[interfaces.size()];
        int i = 0;
        for (Map.Entry<Long, InterfaceInfo> e : interfaces.entrySet()) {
            ifIndexes[i] = e.getKey();
            infos[i] = e.getValue();
            i++;
        }
    }

    String sysName() {
        return sysName;
    }

    /** The interface, or null. */
    InterfaceInfo lookup(long ifIndex) {
        int at = Arrays.binarySearch(ifIndexes, ifIndex);
        return at >= 0 ? infos[at] : null;
    }

    int size() {
        return ifIndexes.length;
    }

    Map<Long, InterfaceInfo> asMap() {
        Map<Long, InterfaceInfo> m = new LinkedHashMap<>();
        for (int i = 0; i < ifIndexes.length; i++) {
            m.put(ifIndexes[i], infos[i]);
        }
        return Collections.unmodifiableMap(m);
    }

    /** Same name and interfaces: a poll that learned nothing new replaces nothing. */
    @Override
    public boolean equals(Object o) {
        return o instanceof ExporterSnapshot other
                && sysName.equals(other.sysName)
                && Arrays.equals(ifIndexes, other.ifIndexes)
                && Arrays.equals(infos, other.infos);
    }

    @Override
    public int hashCode() {
        return sysName.hashCode() * 31 + Arrays.hashCode(ifIndexes);
    }
}
