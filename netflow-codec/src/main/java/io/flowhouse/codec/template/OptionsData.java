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
 * @param interfaceNames interface names (IE 82) by ifIndex ({@link #OBSERVED_INTERFACE} for a name
 *     sent under a scope without one)
 * @param interfaceDescriptions interface descriptions (IE 83) by ifIndex, as the names
 * @param samplerNames sampler names (IE 84, v9 {@code SAMPLER_NAME}) by sampler id ({@link
 *     #ANY_SAMPLER} for a name given without one)
 * @param vrfNames VRF names (IE 236) by VRF id (IE 234, the scope Cisco exports them under)
 */
public record OptionsData(
        Map<Long, Long> samplingRates,
        long systemInitTimeMillis,
        Map<Long, String> interfaceNames,
        Map<Long, String> interfaceDescriptions,
        Map<Long, String> samplerNames,
        Map<Long, String> vrfNames) {

    /** Marks an unknown time. */
    public static final long UNKNOWN = Long.MIN_VALUE;

    /**
     * Sampler id of a rate that came without one, and of data records that name none (as Akvorado
     * keys them); also the fallback for a sampler id with no rate of its own.
     */
    public static final long ANY_SAMPLER = 0L;

    /**
     * The key of an interface name or description sent under a scope that holds no ifIndex (RFC
     * 7011 section 3.4.2.1: softflowd scopes its options record by {@code meteringProcessId}): it
     * names the interface that metering process observes, whose index its flows carry as their
     * ingress and egress interface. Outside the ifIndex range (unsigned 32 bits), so it never takes
     * the place of a real ifIndex; a lookup falls back to it for an ifIndex without a name.
     */
    public static final long OBSERVED_INTERFACE = 1L << 32;

    /** Upper bound on entries per map, against floods of options records. */
    public static final int MAX_ENTRIES = 4096;

    public static final OptionsData EMPTY =
            new OptionsData(SortedLongMap.empty(), UNKNOWN, SortedLongMap.empty());

    /**
     * Keeps every map as a sorted array ({@link SortedLongMap}): compact, iterated in key order.
     */
    public OptionsData {
        samplingRates = SortedLongMap.of(samplingRates);
        interfaceNames = SortedLongMap.of(interfaceNames);
        interfaceDescriptions = SortedLongMap.of(interfaceDescriptions);
        samplerNames = SortedLongMap.of(samplerNames);
        vrfNames = SortedLongMap.of(vrfNames);
    }

    /** Options data without VRF names. */
    public OptionsData(
            Map<Long, Long> samplingRates,
            long systemInitTimeMillis,
            Map<Long, String> interfaceNames,
            Map<Long, String> interfaceDescriptions,
            Map<Long, String> samplerNames) {
        this(
                samplingRates,
                systemInitTimeMillis,
                interfaceNames,
                interfaceDescriptions,
                samplerNames,
                SortedLongMap.empty());
    }

    /** Options data without descriptions or sampler names. */
    public OptionsData(
            Map<Long, Long> samplingRates,
            long systemInitTimeMillis,
            Map<Long, String> interfaceNames) {
        this(
                samplingRates,
                systemInitTimeMillis,
                interfaceNames,
                SortedLongMap.empty(),
                SortedLongMap.empty());
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
        return new OptionsData(
                m,
                systemInitTimeMillis,
                interfaceNames,
                interfaceDescriptions,
                samplerNames,
                vrfNames);
    }

    public OptionsData withSystemInitTimeMillis(long millis) {
        if (millis == systemInitTimeMillis) {
            return this;
        }
        return new OptionsData(
                samplingRates,
                millis,
                interfaceNames,
                interfaceDescriptions,
                samplerNames,
                vrfNames);
    }

    public OptionsData withInterfaceName(long ifIndex, String name) {
        Map<Long, String> m = with(interfaceNames, ifIndex, name);
        return m == interfaceNames
                ? this
                : new OptionsData(
                        samplingRates,
                        systemInitTimeMillis,
                        m,
                        interfaceDescriptions,
                        samplerNames,
                        vrfNames);
    }

    public OptionsData withInterfaceDescription(long ifIndex, String description) {
        Map<Long, String> m = with(interfaceDescriptions, ifIndex, description);
        return m == interfaceDescriptions
                ? this
                : new OptionsData(
                        samplingRates,
                        systemInitTimeMillis,
                        interfaceNames,
                        m,
                        samplerNames,
                        vrfNames);
    }

    public OptionsData withSamplerName(long samplerId, String name) {
        Map<Long, String> m = with(samplerNames, samplerId, name);
        return m == samplerNames
                ? this
                : new OptionsData(
                        samplingRates,
                        systemInitTimeMillis,
                        interfaceNames,
                        interfaceDescriptions,
                        m,
                        vrfNames);
    }

    public OptionsData withVrfName(long vrfId, String name) {
        Map<Long, String> m = with(vrfNames, vrfId, name);
        return m == vrfNames
                ? this
                : new OptionsData(
                        samplingRates,
                        systemInitTimeMillis,
                        interfaceNames,
                        interfaceDescriptions,
                        samplerNames,
                        m);
    }

    private static Map<Long, String> with(Map<Long, String> map, long key, String value) {
        if (value.equals(map.get(key))) {
            return map;
        }
        if (!map.containsKey(key) && map.size() >= MAX_ENTRIES) {
            return map;
        }
        Map<Long, String> m = new HashMap<>(map);
        m.put(key, value);
        return m;
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
