// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.query;

import java.util.Locale;

/**
 * What is summed. Raw rows count as the rollups do (flink-jobs/README-rollups.md): both directions
 * of a biflow, times the sampling rate (at least 1); a row is one flow.
 */
public enum Metric {
    BYTES("sum((bytes + reverse_bytes) * greatest(sampling_rate, 1))", "sum(bytes)", "bits/s"),
    PACKETS(
            "sum((packets + reverse_packets) * greatest(sampling_rate, 1))",
            "sum(packets)",
            "packets/s"),
    FLOWS("count()", "sum(flows)", "flows/s");

    private final String raw;
    private final String rollup;
    private final String rateUnit;

    Metric(String raw, String rollup, String rateUnit) {
        this.raw = raw;
        this.rollup = rollup;
        this.rateUnit = rateUnit;
    }

    /** The aggregate on the raw table or a rollup table (constant SQL). */
    public String sql(boolean rawTable) {
        return rawTable ? raw : rollup;
    }

    public String rateUnit() {
        return rateUnit;
    }

    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** {@code bytes}, {@code packets} or {@code flows}. */
    public static Metric parse(String text) {
        if (text == null || text.isBlank()) {
            return BYTES;
        }
        for (Metric m : values()) {
            if (m.key().equals(text.trim().toLowerCase(Locale.ROOT))) {
                return m;
            }
        }
        throw QueryException.bad(
                "metric '" + shorten(text) + "' (expected: bytes, packets, flows)");
    }

    static String shorten(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }
}
