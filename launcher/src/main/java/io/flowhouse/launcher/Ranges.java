// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

/** Bounds of numeric flags: a value outside is a usage error naming the flag. */
final class Ranges {

    private Ranges() {}

    static int check(String flag, int value, int min, int max) {
        if (value < min || value > max) {
            throw new UsageError(flag + ": " + value + " (expected: " + min + ".." + max + ")");
        }
        return value;
    }
}
