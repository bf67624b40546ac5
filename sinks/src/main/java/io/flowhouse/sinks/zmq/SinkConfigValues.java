// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Reads typed values from a flat key/value configuration (a properties or YAML file flattened by
 * the job, or {@code --key value} flags), naming the key in every error.
 */
public final class SinkConfigValues {

    private final Map<String, String> values;

    public SinkConfigValues(Map<String, String> values) {
        this.values = values;
    }

    /** The trimmed value, or null when absent or blank. */
    public String string(String key) {
        String v = values.get(key);
        return v == null || v.isBlank() ? null : v.trim();
    }

    public boolean has(String key) {
        return string(key) != null;
    }

    /** {@code true} or {@code false}, case-insensitive. */
    public boolean bool(String key, boolean defaultValue) {
        String v = string(key);
        if (v == null) {
            return defaultValue;
        }
        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(v.toLowerCase(Locale.ROOT));
        }
        throw new IllegalArgumentException(key + " = " + v + " (expected: true or false)");
    }

    public long longValue(String key, long defaultValue) {
        String v = string(key);
        if (v == null) {
            return defaultValue;
        }
        try {
            return Long.parseLong(v.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " = " + v + " (expected: an integer)", e);
        }
    }

    public int intValue(String key, int defaultValue) {
        long v = longValue(key, defaultValue);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(key + " = " + v + " (expected: a 32-bit integer)");
        }
        return (int) v;
    }

    /**
     * {@code 250ms}, {@code 1s}, {@code 5m}, {@code 1h}, ISO-8601 {@code PT1S}, or milliseconds.
     */
    public Duration duration(String key, Duration defaultValue) {
        String v = string(key);
        if (v == null) {
            return defaultValue;
        }
        String s = v.toLowerCase(Locale.ROOT);
        try {
            if (s.startsWith("pt")) {
                return Duration.parse(v.toUpperCase(Locale.ROOT));
            }
            if (s.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2).trim()));
            }
            if (s.endsWith("s")) {
                return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1).trim()));
            }
            if (s.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1).trim()));
            }
            if (s.endsWith("h")) {
                return Duration.ofHours(Long.parseLong(s.substring(0, s.length() - 1).trim()));
            }
            return Duration.ofMillis(Long.parseLong(s));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    key + " = " + v + " (expected: a duration such as 500ms, 1s, 5m)", e);
        }
    }
}
