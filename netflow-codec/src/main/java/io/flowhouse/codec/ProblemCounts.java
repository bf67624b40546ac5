// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import io.flowhouse.codec.DecodeProblem.Kind;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * How many problems of each {@link Kind} one datagram had: one counter per kind, so the cost of a
 * datagram full of problems is its counting, never a list as long as the problems. Immutable.
 */
public final class ProblemCounts {

    private static final Kind[] KINDS = Kind.values();

    /** No problems. */
    public static final ProblemCounts NONE = new ProblemCounts(new int[KINDS.length], 0);

    private final int[] counts;
    private final int total;

    private ProblemCounts(int[] counts, int total) {
        this.counts = counts;
        this.total = total;
    }

    /** Takes ownership of {@code counts} (indexed by {@link Kind#ordinal()}). */
    static ProblemCounts of(int[] counts) {
        int total = 0;
        for (int c : counts) {
            total += c;
        }
        return total == 0 ? NONE : new ProblemCounts(counts, total);
    }

    /** Problems of one kind. */
    public int count(Kind kind) {
        return counts[kind.ordinal()];
    }

    /** Problems of all kinds. */
    public int total() {
        return total;
    }

    public boolean isEmpty() {
        return total == 0;
    }

    /** The kinds that occurred, with their counts, in {@link Kind} order. */
    public Map<Kind, Integer> asMap() {
        if (total == 0) {
            return Map.of();
        }
        Map<Kind, Integer> m = new EnumMap<>(Kind.class);
        for (Kind k : KINDS) {
            if (counts[k.ordinal()] > 0) {
                m.put(k, counts[k.ordinal()]);
            }
        }
        return Collections.unmodifiableMap(m);
    }

    @Override
    public boolean equals(Object o) {
        return o == this || (o instanceof ProblemCounts p && Arrays.equals(counts, p.counts));
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(counts);
    }

    @Override
    public String toString() {
        return asMap().toString();
    }
}
