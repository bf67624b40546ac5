// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The options data of one scope while one datagram changes it. Reads see every change at once; the
 * maps are copied at most once per datagram (at the first change), and {@link #build()} makes the
 * immutable {@link OptionsData} once, so a datagram of many options records costs its records, not
 * one copy of the scope per record. Applies {@link OptionsLimits}. Reused; not thread-safe.
 */
public final class OptionsEditor {

    /** What became of one change. */
    public enum Outcome {
        /** The value was already there. */
        UNCHANGED,
        APPLIED,
        /** Refused: the map holds {@link OptionsLimits#maxEntriesPerScope()} entries. */
        REFUSED_ENTRIES,
        /** Refused: the scope would exceed {@link OptionsLimits#maxBytesPerScope()}. */
        REFUSED_BYTES
    }

    // TemplateWire sizes: a rate entry is id + rate; a name entry is ifIndex, length and the bytes.
    private static final int RATE_BYTES = 16;
    private static final int NAME_OVERHEAD = 12;

    private OptionsLimits limits = OptionsLimits.defaults();
    private OptionsData base = OptionsData.EMPTY;
    // What this datagram changed, by key; merged into the base once, by build().
    private Map<Long, Long> rates;
    private Map<Long, String> names;
    private int addedRates;
    private int addedNames;
    private long systemInit = OptionsData.UNKNOWN;
    private boolean changed;
    private long bytes;

    /** Starts editing {@code base} (nothing is copied). */
    public OptionsEditor reset(OptionsData base, OptionsLimits limits) {
        this.base = base;
        this.limits = limits;
        this.rates = null;
        this.names = null;
        this.addedRates = 0;
        this.addedNames = 0;
        this.systemInit = base.systemInitTimeMillis();
        this.changed = false;
        this.bytes = -1;
        return this;
    }

    /** True once any change was applied since {@link #reset}. */
    public boolean changed() {
        return changed;
    }

    private Long rate(long samplerId) {
        Long r = rates == null ? null : rates.get(samplerId);
        return r != null ? r : base.samplingRates().get(samplerId);
    }

    private String name(long ifIndex) {
        String n = names == null ? null : names.get(ifIndex);
        return n != null ? n : base.interfaceNames().get(ifIndex);
    }

    /** As {@link OptionsData#samplingRate(long)}, with the changes so far. */
    public long samplingRate(long samplerId) {
        Long r = rate(samplerId);
        if (r == null) {
            r = rate(OptionsData.ANY_SAMPLER);
        }
        return r == null ? 0L : r;
    }

    public long systemInitTimeMillis() {
        return systemInit;
    }

    public Outcome samplingRate(long samplerId, long rate) {
        Long old = rate(samplerId);
        if (old != null && old == rate) {
            return Outcome.UNCHANGED;
        }
        if (old == null) {
            if (base.samplingRates().size() + addedRates >= limits.maxEntriesPerScope()) {
                return Outcome.REFUSED_ENTRIES;
            }
            if (bytes() + RATE_BYTES > limits.maxBytesPerScope()) {
                return Outcome.REFUSED_BYTES;
            }
            bytes += RATE_BYTES;
            addedRates++;
        }
        if (rates == null) {
            rates = new HashMap<>();
        }
        rates.put(samplerId, rate);
        changed = true;
        return Outcome.APPLIED;
    }

    public Outcome systemInitTimeMillis(long millis) {
        if (millis == systemInit) {
            return Outcome.UNCHANGED;
        }
        systemInit = millis;
        changed = true;
        return Outcome.APPLIED;
    }

    /**
     * Sets an interface name of {@code length} UTF-8 bytes at {@code b[pos]}; the caller has cut it
     * to {@link OptionsLimits#maxStringBytes()}. The string is made only if it changes something.
     */
    public Outcome interfaceName(long ifIndex, byte[] b, int pos, int length) {
        String old = name(ifIndex);
        if (old != null && sameUtf8(old, b, pos, length)) {
            return Outcome.UNCHANGED;
        }
        if (old == null
                && base.interfaceNames().size() + addedNames >= limits.maxEntriesPerScope()) {
            return Outcome.REFUSED_ENTRIES;
        }
        long oldBytes = old == null ? 0 : NAME_OVERHEAD + utf8Length(old);
        long grown = bytes() - oldBytes + NAME_OVERHEAD + length;
        if (grown > limits.maxBytesPerScope() && grown > bytes()) {
            return Outcome.REFUSED_BYTES;
        }
        if (names == null) {
            names = new HashMap<>();
        }
        String name = new String(b, pos, length, StandardCharsets.UTF_8);
        names.put(ifIndex, name);
        if (old == null) {
            addedNames++;
        }
        // A malformed sequence decodes to U+FFFD, whose UTF-8 form is longer: count what is stored.
        bytes = grown - length + utf8Length(name);
        changed = true;
        return Outcome.APPLIED;
    }

    /** The edited options data, the changes merged in one pass; {@code base} if none. */
    public OptionsData build() {
        if (!changed) {
            return base;
        }
        return new OptionsData(
                rates == null
                        ? base.samplingRates()
                        : SortedLongMap.of(base.samplingRates()).merge(rates),
                systemInit,
                names == null
                        ? base.interfaceNames()
                        : SortedLongMap.of(base.interfaceNames()).merge(names));
    }

    /** The wire size so far, computed from the base at the first change that needs it. */
    private long bytes() {
        if (bytes < 0) {
            bytes = TemplateWire.encodedSize(base);
        }
        return bytes;
    }

    private static boolean sameUtf8(String s, byte[] b, int pos, int length) {
        // Interface names are ASCII in practice: compare without encoding; fall back otherwise.
        if (s.length() != length) {
            return s.length() < length
                    && new String(b, pos, length, StandardCharsets.UTF_8).equals(s);
        }
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c >= 0x80 || c != b[pos + i]) {
                return c >= 0x80 && new String(b, pos, length, StandardCharsets.UTF_8).equals(s);
            }
        }
        return true;
    }

    static int utf8Length(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }
}
