// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.query;

import java.time.Duration;

/** Durations as the console writes them: {@code 1m}, {@code 1h}, {@code 7d}, {@code 90s}. */
public final class Durations {

    private Durations() {}

    public static String text(Duration d) {
        long s = d.toSeconds();
        if (s % 86_400 == 0) {
            return s / 86_400 + "d";
        }
        if (s % 3600 == 0) {
            return s / 3600 + "h";
        }
        if (s % 60 == 0) {
            return s / 60 + "m";
        }
        return s + "s";
    }
}
