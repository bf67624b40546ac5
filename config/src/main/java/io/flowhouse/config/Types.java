// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** The value types keys are declared with. */
public final class Types {

    private Types() {}

    /** Any text. */
    public static final ValueType<String> STRING = ValueType.of("string", s -> s, s -> s);

    /** A file or directory. */
    public static final ValueType<Path> PATH = ValueType.of("path", Path::of, Path::toString);

    /** {@code true} or {@code false}. */
    public static final ValueType<Boolean> BOOLEAN =
            new ValueType<>() {
                @Override
                public String describe() {
                    return "boolean";
                }

                @Override
                public Boolean parse(String text) {
                    String t = text.trim().toLowerCase(Locale.ROOT);
                    if (t.equals("true") || t.equals("false")) {
                        return Boolean.valueOf(t);
                    }
                    throw new IllegalArgumentException("(expected: true or false)");
                }

                @Override
                public Object toTree(Boolean value) {
                    return value;
                }
            };

    /** {@code HOST:PORT}, {@code [V6]:PORT} or {@code :PORT}. */
    public static final ValueType<HostPort> HOST_PORT =
            ValueType.of("host:port", HostPort::parse, HostPort::toString);

    /** An IPv4 or IPv6 prefix such as {@code 10.0.0.0/8} or {@code 2001:db8::/32}. */
    public static final ValueType<String> CIDR = ValueType.of("CIDR", Types::checkCidr, s -> s);

    /** A whole number in {@code min..max}; underscores are allowed ({@code 1_000}). */
    public static ValueType<Integer> integer(int min, int max) {
        ValueType<Long> wide = longRange(min, max);
        return new ValueType<>() {
            @Override
            public String describe() {
                return wide.describe();
            }

            @Override
            public Integer parse(String text) {
                return wide.parse(text).intValue();
            }

            @Override
            public Object toTree(Integer value) {
                return value;
            }
        };
    }

    /** A whole number in {@code min..max}. */
    public static ValueType<Long> longRange(long min, long max) {
        String range = range(min, max);
        return new ValueType<>() {
            @Override
            public String describe() {
                return "integer" + (range.isEmpty() ? "" : " " + range);
            }

            @Override
            public Long parse(String text) {
                long n;
                try {
                    n = Long.parseLong(text.trim().replace("_", ""));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("(expected: a whole number)", e);
                }
                return inRange(n, min, max);
            }

            @Override
            public Object toTree(Long value) {
                return value;
            }
        };
    }

    /** A decimal number in {@code min..max}. */
    public static ValueType<Double> decimal(double min, double max) {
        String range = fmt(min) + ".." + (max == Double.MAX_VALUE ? "" : fmt(max));
        return new ValueType<>() {
            @Override
            public String describe() {
                return "number " + range;
            }

            @Override
            public Double parse(String text) {
                double d;
                try {
                    d = Double.parseDouble(text.trim().replace("_", ""));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("(expected: a number)", e);
                }
                if (!(d >= min && d <= max)) {
                    throw new IllegalArgumentException("(expected: " + range + ")");
                }
                return d;
            }

            @Override
            public String format(Double value) {
                return fmt(value);
            }

            @Override
            public Object toTree(Double value) {
                return value;
            }
        };
    }

    private static final Pattern SIZE =
            Pattern.compile("(\\d[\\d_]*)\\s*(b|kib|mib|gib|tib)?", Pattern.CASE_INSENSITIVE);

    private static final String[] SIZE_UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

    /** A byte count: {@code 65536}, {@code 64KiB}, {@code 32MiB}, {@code 1GiB}. */
    public static ValueType<Long> size(long min, long max) {
        String range =
                formatSize(min)
                        + ".."
                        + (max == Long.MAX_VALUE || max == Integer.MAX_VALUE
                                ? ""
                                : formatSize(max));
        return new ValueType<>() {
            @Override
            public String describe() {
                return "size " + range;
            }

            @Override
            public Long parse(String text) {
                var m = SIZE.matcher(text.trim());
                if (!m.matches()) {
                    throw new IllegalArgumentException("(expected: bytes, or N KiB/MiB/GiB)");
                }
                long n;
                try {
                    n = Long.parseLong(m.group(1).replace("_", ""));
                    String unit = m.group(2) == null ? "b" : m.group(2).toLowerCase(Locale.ROOT);
                    int shift = Arrays.asList("b", "kib", "mib", "gib", "tib").indexOf(unit) * 10;
                    n = Math.multiplyExact(n, 1L << shift);
                } catch (NumberFormatException | ArithmeticException e) {
                    throw new IllegalArgumentException("(expected: " + range + ")", e);
                }
                if (n < min || n > max) {
                    throw new IllegalArgumentException("(expected: " + range + ")");
                }
                return n;
            }

            @Override
            public String format(Long value) {
                return formatSize(value);
            }

            @Override
            public Object toTree(Long value) {
                String s = formatSize(value);
                return s.endsWith("B") ? s : value;
            }
        };
    }

    /** {@code 64MiB} when exact, else the plain byte count. */
    public static String formatSize(long bytes) {
        int unit = 0;
        long v = bytes;
        while (v != 0 && v % 1024 == 0 && unit < SIZE_UNITS.length - 1) {
            v /= 1024;
            unit++;
        }
        return unit == 0 ? Long.toString(bytes) : v + SIZE_UNITS[unit];
    }

    // Flink's unit names too (TimeUtils), so the job's existing values read unchanged.
    private static final Pattern DURATION =
            Pattern.compile(
                    "(\\d+(?:\\.\\d+)?)\\s*(ms|millis?|milliseconds?|s|secs?|seconds?|m|mins?"
                            + "|minutes?|h|hours?|d|days?)?",
                    Pattern.CASE_INSENSITIVE);

    /**
     * A duration: {@code 500ms}, {@code 30s}, {@code 1.5s}, {@code 5m}, {@code 2h}, {@code 1d}. A
     * bare number is in {@code bareUnit} (keys named {@code ...-ms} take milliseconds).
     */
    public static ValueType<Duration> duration(ChronoUnit bareUnit, Duration min, Duration max) {
        String range = formatDuration(min) + ".." + (max == null ? "" : formatDuration(max));
        return new ValueType<>() {
            @Override
            public String describe() {
                return "duration " + range;
            }

            @Override
            public Duration parse(String text) {
                String t = text.trim();
                if (t.regionMatches(true, 0, "PT", 0, 2) || t.regionMatches(true, 0, "P", 0, 1)) {
                    // ISO-8601 (PT30S), as Flink's duration options and the sinks read it.
                    return inRange(isoDuration(t, range), min, max, range);
                }
                var m = DURATION.matcher(t);
                if (!m.matches()) {
                    throw new IllegalArgumentException("(expected: 500ms, 30s, 5m, 2h)");
                }
                String unit = m.group(2) == null ? null : m.group(2).toLowerCase(Locale.ROOT);
                long nanosPerUnit =
                        unit == null
                                ? bareUnit.getDuration().toNanos()
                                : switch (unit.charAt(0)) {
                                    case 's' -> 1_000_000_000L;
                                    case 'h' -> 3_600_000_000_000L;
                                    case 'd' -> 86_400_000_000_000L;
                                    default ->
                                            unit.equals("m") || unit.startsWith("min")
                                                    ? 60_000_000_000L
                                                    : 1_000_000L;
                                };
                Duration d;
                try {
                    d =
                            Duration.ofNanos(
                                    new BigDecimal(m.group(1))
                                            .multiply(BigDecimal.valueOf(nanosPerUnit))
                                            .longValueExact());
                } catch (ArithmeticException e) {
                    throw new IllegalArgumentException("(expected: " + range + ")", e);
                }
                if (d.compareTo(min) < 0 || (max != null && d.compareTo(max) > 0)) {
                    throw new IllegalArgumentException("(expected: " + range + ")");
                }
                return d;
            }

            @Override
            public String format(Duration value) {
                return formatDuration(value);
            }
        };
    }

    private static Duration isoDuration(String text, String range) {
        try {
            return Duration.parse(text.toUpperCase(Locale.ROOT));
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException("(expected: 500ms, 30s, 5m, 2h or PT30S)", e);
        }
    }

    private static Duration inRange(Duration d, Duration min, Duration max, String range) {
        if (d.compareTo(min) < 0 || (max != null && d.compareTo(max) > 0)) {
            throw new IllegalArgumentException("(expected: " + range + ")");
        }
        return d;
    }

    /** The largest unit that holds the duration exactly: {@code 2m}, {@code 100ms}. */
    public static String formatDuration(Duration d) {
        long ms = d.toMillis();
        if (d.toNanos() % 1_000_000L != 0) {
            return d.toNanos() + "ns";
        }
        if (ms == 0) {
            return "0s";
        }
        if (ms % 86_400_000L == 0) {
            return ms / 86_400_000L + "d";
        }
        if (ms % 3_600_000L == 0) {
            return ms / 3_600_000L + "h";
        }
        if (ms % 60_000L == 0) {
            return ms / 60_000L + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }

    /** One of the constants of {@code type}, written in lower case. */
    public static <E extends Enum<E>> ValueType<E> enumOf(Class<E> type) {
        E[] values = type.getEnumConstants();
        String names =
                Arrays.stream(values)
                        .map(v -> v.name().toLowerCase(Locale.ROOT))
                        .collect(Collectors.joining(", "));
        return new ValueType<>() {
            @Override
            public String describe() {
                return "one of " + names;
            }

            @Override
            public E parse(String text) {
                for (E v : values) {
                    if (v.name().equalsIgnoreCase(text.trim())) {
                        return v;
                    }
                }
                throw new IllegalArgumentException("(expected: " + names + ")");
            }

            @Override
            public String format(E value) {
                return value.name().toLowerCase(Locale.ROOT);
            }
        };
    }

    /** One of fixed words, matched ignoring case and returned in lower case. */
    public static ValueType<String> oneOf(String... words) {
        String names = String.join(", ", words);
        return ValueType.of(
                "one of " + names,
                text -> {
                    String t = text.trim().toLowerCase(Locale.ROOT);
                    if (Arrays.asList(words).contains(t)) {
                        return t;
                    }
                    throw new IllegalArgumentException("(expected: " + names + ")");
                },
                s -> s);
    }

    /**
     * A list: a YAML sequence, or text separated by {@code ,} or {@code ;} in flags and the
     * environment. A named flag that is repeated appends.
     */
    public static <E> ValueType<List<E>> list(ValueType<E> element) {
        return new ValueType<>() {
            @Override
            public String describe() {
                return "list of " + element.describe();
            }

            @Override
            public boolean repeatable() {
                return true;
            }

            @Override
            public List<E> parse(String text) {
                if (text.strip().equals("[]")) {
                    return List.of();
                }
                List<E> out = new ArrayList<>();
                // ';' is Flink's list separator, so the job's existing values read unchanged.
                for (String part : text.split("[,;]", -1)) {
                    if (!part.isBlank()) {
                        out.add(element(element, part.trim()));
                    }
                }
                return List.copyOf(out);
            }

            @Override
            public List<E> fromTree(Object node) {
                if (node instanceof List<?> items) {
                    List<E> out = new ArrayList<>();
                    for (Object o : items) {
                        out.add(element(element, String.valueOf(o)));
                    }
                    return List.copyOf(out);
                }
                return ValueType.super.fromTree(node);
            }

            @Override
            public String format(List<E> value) {
                if (value.isEmpty()) {
                    return "[]";
                }
                return value.stream().map(element::format).collect(Collectors.joining(","));
            }

            @Override
            public Object toTree(List<E> value) {
                return value.stream().map(element::toTree).collect(Collectors.toList());
            }
        };
    }

    private static <E> E element(ValueType<E> type, String text) {
        try {
            return type.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(text + ": " + e.getMessage(), e);
        }
    }

    /**
     * Free-form properties passed through to a library (the Kafka producer's): a YAML mapping
     * (nested mappings become dotted names), or {@code name=value,name=value} text. Layers merge by
     * property name instead of replacing the whole map.
     */
    public static final ValueType<Map<String, String>> PROPERTIES = new PropertiesType();

    static final class PropertiesType implements ValueType<Map<String, String>> {
        @Override
        public String describe() {
            return "map of name: value";
        }

        @Override
        public Map<String, String> parse(String text) {
            if (text.strip().equals("{}")) {
                return Map.of();
            }
            Map<String, String> out = new LinkedHashMap<>();
            for (String part : text.split(",", -1)) {
                if (part.isBlank()) {
                    continue;
                }
                int eq = part.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException(part + " (expected: name=value)");
                }
                out.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
            }
            return Map.copyOf(out);
        }

        @Override
        public Map<String, String> fromTree(Object node) {
            if (node instanceof Map<?, ?> m) {
                Map<String, String> out = new LinkedHashMap<>();
                flatten("", m, out);
                return Map.copyOf(out);
            }
            return ValueType.super.fromTree(node);
        }

        private static void flatten(String prefix, Map<?, ?> m, Map<String, String> out) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                String name = prefix + e.getKey();
                if (e.getValue() instanceof Map<?, ?> inner) {
                    flatten(name + ".", inner, out);
                } else if (e.getValue() != null) {
                    out.put(name, String.valueOf(e.getValue()));
                }
            }
        }

        @Override
        public String format(Map<String, String> value) {
            if (value.isEmpty()) {
                return "{}";
            }
            return value.entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(","));
        }

        @Override
        public Object toTree(Map<String, String> value) {
            return value;
        }
    }

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    private static String checkCidr(String text) {
        String t = text.trim();
        int slash = t.indexOf('/');
        String address = slash < 0 ? t : t.substring(0, slash);
        boolean v6 = address.indexOf(':') >= 0;
        if (v6) {
            boolean literal = address.matches("[0-9A-Fa-f:.]+");
            try {
                // Only hex digits, ':' and '.': parsed as an IPv6 literal, never looked up.
                literal = literal && java.net.InetAddress.getByName(address) != null;
            } catch (java.net.UnknownHostException e) {
                literal = false;
            }
            if (!literal) {
                throw new IllegalArgumentException("bad address (expected: IPv4 or IPv6 prefix)");
            }
        } else if (!IPV4.matcher(address).matches()
                || Arrays.stream(address.split("\\.")).anyMatch(o -> Integer.parseInt(o) > 255)) {
            throw new IllegalArgumentException("bad address (expected: IPv4 or IPv6 prefix)");
        }
        if (slash >= 0) {
            int max = v6 ? 128 : 32;
            int n;
            try {
                n = Integer.parseInt(t.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad prefix length (expected: 0.." + max + ")");
            }
            if (n < 0 || n > max) {
                throw new IllegalArgumentException(
                        "prefix length " + n + " (expected: 0.." + max + ")");
            }
        }
        return t;
    }

    private static long inRange(long n, long min, long max) {
        if (n < min || n > max) {
            throw new IllegalArgumentException("(expected: " + range(min, max) + ")");
        }
        return n;
    }

    private static String range(long min, long max) {
        if (min == Long.MIN_VALUE && max == Long.MAX_VALUE) {
            return "";
        }
        String hi = max == Long.MAX_VALUE || max == Integer.MAX_VALUE ? "" : Long.toString(max);
        return (min == Long.MIN_VALUE ? "" : Long.toString(min)) + ".." + hi;
    }

    private static String fmt(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15
                ? Long.toString((long) d)
                : Double.toString(d);
    }
}
