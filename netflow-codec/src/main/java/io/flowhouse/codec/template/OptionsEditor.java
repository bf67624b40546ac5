// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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

    /** The string maps of {@link OptionsData}, each keyed as its record's scope says. */
    public enum Text {
        /** {@code interfaceName} (IE 82) by ifIndex. */
        INTERFACE_NAME,
        /** {@code interfaceDescription} (IE 83) by ifIndex. */
        INTERFACE_DESCRIPTION,
        /** {@code samplerName} (IE 84) by sampler id. */
        SAMPLER_NAME,
        /** {@code VRFname} (IE 236) by VRF id. */
        VRF_NAME;

        Map<Long, String> of(OptionsData o) {
            return switch (this) {
                case INTERFACE_NAME -> o.interfaceNames();
                case INTERFACE_DESCRIPTION -> o.interfaceDescriptions();
                case SAMPLER_NAME -> o.samplerNames();
                case VRF_NAME -> o.vrfNames();
            };
        }
    }

    private static final Text[] TEXTS = Text.values();

    // TemplateWire sizes: a rate entry is id + rate; a string entry is its key, length and bytes.
    private static final int RATE_BYTES = 16;
    private static final int NAME_OVERHEAD = 12;
    // The second format's two more counts (descriptions, sampler names); the third's one more.
    private static final int SECOND_FORMAT_BYTES = 8;
    private static final int THIRD_FORMAT_BYTES = 4;

    private OptionsLimits limits = OptionsLimits.defaults();
    private OptionsData base = OptionsData.EMPTY;
    // What this datagram changed, by key; merged into the base once, by build().
    private Map<Long, Long> rates;
    // Per Text, by ordinal: the changed strings (null until the first) and how many are new.
    private final Map<Long, String>[] texts = newTextMaps();
    private final int[] addedTexts = new int[TEXTS.length];
    private int addedRates;
    private long systemInit = OptionsData.UNKNOWN;
    private boolean changed;
    private long bytes;

    /** Starts editing {@code base} (nothing is copied). */
    public OptionsEditor reset(OptionsData base, OptionsLimits limits) {
        this.base = base;
        this.limits = limits;
        this.rates = null;
        Arrays.fill(texts, null);
        Arrays.fill(addedTexts, 0);
        this.addedRates = 0;
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

    @SuppressWarnings("unchecked")
    private static Map<Long, String>[] newTextMaps() {
        return (Map<Long, String>[]) new Map<?, ?>[TEXTS.length];
    }

    private String text(Text kind, long key) {
        Map<Long, String> changes = texts[kind.ordinal()];
        String n = changes == null ? null : changes.get(key);
        return n != null ? n : kind.of(base).get(key);
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
        return text(Text.INTERFACE_NAME, ifIndex, b, pos, length);
    }

    /**
     * Sets one string of {@code kind} under {@code key}, {@code length} UTF-8 bytes at {@code
     * b[pos]}, as {@link #interfaceName}. Every string map has its own entry bound; the bytes bound
     * is the scope's, shared.
     */
    public Outcome text(Text kind, long key, byte[] b, int pos, int length) {
        String old = text(kind, key);
        if (old != null && sameUtf8(old, b, pos, length)) {
            return Outcome.UNCHANGED;
        }
        int k = kind.ordinal();
        if (old == null && kind.of(base).size() + addedTexts[k] >= limits.maxEntriesPerScope()) {
            return Outcome.REFUSED_ENTRIES;
        }
        long oldBytes = old == null ? 0 : NAME_OVERHEAD + utf8Length(old);
        // The first description or sampler name moves the scope to the wire's second format.
        long format = kind != Text.INTERFACE_NAME && !secondFormat() ? SECOND_FORMAT_BYTES : 0;
        if (kind == Text.VRF_NAME && !thirdFormat()) {
            format += THIRD_FORMAT_BYTES;
        }
        long grown = bytes() - oldBytes + NAME_OVERHEAD + length + format;
        if (grown > limits.maxBytesPerScope() && grown > bytes()) {
            return Outcome.REFUSED_BYTES;
        }
        if (texts[k] == null) {
            texts[k] = new HashMap<>();
        }
        String value = new String(b, pos, length, StandardCharsets.UTF_8);
        texts[k].put(key, value);
        if (old == null) {
            addedTexts[k]++;
        }
        // A malformed sequence decodes to U+FFFD, whose UTF-8 form is longer: count what is stored.
        bytes = grown - length + utf8Length(value);
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
                merged(Text.INTERFACE_NAME),
                merged(Text.INTERFACE_DESCRIPTION),
                merged(Text.SAMPLER_NAME),
                merged(Text.VRF_NAME));
    }

    private Map<Long, String> merged(Text kind) {
        Map<Long, String> changes = texts[kind.ordinal()];
        return changes == null ? kind.of(base) : SortedLongMap.of(kind.of(base)).merge(changes);
    }

    private boolean secondFormat() {
        return !base.interfaceDescriptions().isEmpty()
                || !base.samplerNames().isEmpty()
                || addedTexts[Text.INTERFACE_DESCRIPTION.ordinal()] > 0
                || addedTexts[Text.SAMPLER_NAME.ordinal()] > 0
                || thirdFormat();
    }

    private boolean thirdFormat() {
        return !base.vrfNames().isEmpty() || addedTexts[Text.VRF_NAME.ordinal()] > 0;
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
