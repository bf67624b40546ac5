// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.DecodeResult;
import java.util.Arrays;

/**
 * Problems of one datagram counted per kind, so that a datagram of a thousand bad records costs a
 * counter, not a thousand objects: each kind keeps its count and the first occurrence's text, and
 * becomes one {@link DecodeProblem} when the datagram is done. Reused; not thread-safe.
 */
final class ProblemTally {

    private static final DecodeProblem.Kind[] KINDS = DecodeProblem.Kind.values();

    private final int[] counts = new int[KINDS.length];
    private final String[] first = new String[KINDS.length];
    private int total;

    void reset() {
        if (total != 0) {
            Arrays.fill(counts, 0);
            Arrays.fill(first, null);
            total = 0;
        }
    }

    /** Counts one problem; {@code detail} is only kept for the first of its kind. */
    void add(DecodeProblem.Kind kind, String detail) {
        int k = kind.ordinal();
        if (counts[k]++ == 0) {
            first[k] = detail;
        }
        total++;
    }

    /** Whether this kind was counted at least once (so callers can skip building details). */
    boolean seen(DecodeProblem.Kind kind) {
        return counts[kind.ordinal()] != 0;
    }

    int count(DecodeProblem.Kind kind) {
        return counts[kind.ordinal()];
    }

    /** One problem per kind seen: the first detail and how many more there were. */
    void drainTo(DecodeResult.Builder out) {
        if (total == 0) {
            return;
        }
        for (int k = 0; k < KINDS.length; k++) {
            int n = counts[k];
            if (n != 0) {
                String text = n == 1 ? first[k] : first[k] + " (" + n + " in this datagram)";
                out.problems(KINDS[k], n, text, -1);
            }
        }
    }
}
