// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.rules;

/** Which side of the network an interface faces, as operators classify it. */
public enum Boundary {
    UNDEFINED,
    EXTERNAL,
    INTERNAL;

    /** The word stored and written in the rules file ("", "external", "internal"). */
    public String word() {
        return this == UNDEFINED ? "" : name().toLowerCase(java.util.Locale.ROOT);
    }

    public static Boundary of(String text) {
        return switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "external" -> EXTERNAL;
            case "internal" -> INTERNAL;
            case "", "undefined" -> UNDEFINED;
            default ->
                    throw new IllegalArgumentException(
                            "boundary " + text + " (expected: external, internal)");
        };
    }
}
