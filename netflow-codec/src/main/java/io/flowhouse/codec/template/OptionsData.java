// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

import java.util.HashMap;
import java.util.Map;

/**
 * What options data records told us about one {@link TemplateScope}, kept beside its templates
 * (Akvorado's {@code templatesAndOptions}). Immutable; the {@code with*} methods return copies.
 *
 * @param samplingRates sampling rate (1 in N) by sampler/selector id; id {@link #ANY_SAMPLER} holds
 *     a rate given without a sampler id (system scope)
 * @param systemInitTimeMillis {@code systemInitTimeMilliseconds} (IE 160), epoch ms, or {@link
 *     #UNKNOWN}
 * @param interfaceNames interface names (IE 82) by ifIndex
 */
public record OptionsData(
        Map<Long, Long> samplingRates,
        long systemInitTimeMillis,
        Map<Long, String> interfaceNames) {

    /** Marks an unknown time. */
    public static final long UNKNOWN = Long.MIN_VALUE;

    /**
     * Sampler id of a rate that came without one, and of data records that name none (as Akvorado
     * keys them); also the fallback for a sampler id with no rate of its own.
     */
    public static final long ANY_SAMPLER = 0L;

    /** Upper bound on entries per map, against floods of options records. */
    public static final int MAX_ENTRIES = 4096;

    public static final OptionsData EMPTY =
            new OptionsData(SortedLongMap.empty(), UNKNOWN, SortedLongMap.empty());

    /** Keeps both maps as sorted arrays ({@link SortedLongMap}): compact, iterated in key order. */
    public OptionsData {
        samplingRates = SortedLongMap.of(samplingRates);
        interfaceNames = SortedLongMap.of(interfaceNames);
    }

    public OptionsData withSamplingRate(long samplerId, long rate) {
        Long old = samplingRates.get(samplerId);
        if (old != null && old == rate) {
            return this;
        }
        if (old == null && samplingRates.size() >= MAX_ENTRIES) {
            return this;
        }
        Map<Long, Long> m = new HashMap<>(samplingRates);
        m.put(samplerId, rate);
        return new OptionsData(m, systemInitTimeMillis, interfaceNames);
    }

    public OptionsData withSystemInitTimeMillis(long millis) {
        if (millis == systemInitTimeMillis) {
            return this;
        }
        return new OptionsData(samplingRates, millis, interfaceNames);
    }

    public OptionsData withInterfaceName(long ifIndex, String name) {
        if (name.equals(interfaceNames.get(ifIndex))) {
            return this;
        }
        if (!interfaceNames.containsKey(ifIndex) && interfaceNames.size() >= MAX_ENTRIES) {
            return this;
        }
        Map<Long, String> m = new HashMap<>(interfaceNames);
        m.put(ifIndex, name);
        return new OptionsData(samplingRates, systemInitTimeMillis, m);
    }

    /**
     * The rate for a sampler id: that sampler's rate, else the rate given without a sampler id,
     * else 0 (unknown).
     */
    public long samplingRate(long samplerId) {
        Long r = samplingRates.get(samplerId);
        if (r == null) {
            r = samplingRates.get(ANY_SAMPLER);
        }
        return r == null ? 0L : r;
    }
}
