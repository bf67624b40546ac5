// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import java.util.Locale;

/**
 * The kinds of rollup rows, stored as {@code Enum8} codes in the rollup tables. TALKER and
 * CONVERSATION are the intermediate per-address sums the top-N step ranks; only the ranked
 * TOP_TALKER and TOP_CONVERSATION rows are written.
 */
public enum RollupKind {
    /** Exporter, interface, direction. */
    INTERFACE(1),
    /** Exporter, protocol, destination port. */
    PROTO_PORT(2),
    /** Exporter, source AS, destination AS. */
    AS_PAIR(3),
    /** The N source addresses with the most bytes, per exporter. */
    TOP_TALKER(4),
    /** The N (source, destination) pairs with the most bytes, per exporter. */
    TOP_CONVERSATION(5),
    /** Intermediate: bytes per exporter and source address (not written). */
    TALKER(6),
    /** Intermediate: bytes per exporter and address pair (not written). */
    CONVERSATION(7);

    private final int code;

    RollupKind(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static RollupKind of(int code) {
        for (RollupKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        throw new IllegalArgumentException("rollup kind " + code + " (expected: 1..7)");
    }

    /** The {@code Enum8} declaration of the written kinds. */
    static String enumDefinition() {
        StringBuilder sb = new StringBuilder("Enum8(");
        for (RollupKind k : values()) {
            if (k.code > TOP_CONVERSATION.code) {
                continue;
            }
            if (sb.length() > 6) {
                sb.append(", ");
            }
            sb.append('\'').append(k.name().toLowerCase(Locale.ROOT)).append("' = ").append(k.code);
        }
        return sb.append(')').toString();
    }
}
