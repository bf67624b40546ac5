// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.query;

import io.flowhouse.console.filter.Filter;
import io.flowhouse.console.filter.FilterParser;
import io.flowhouse.console.model.Dimension;
import io.flowhouse.console.model.Fields;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parameters of a view, the same in the page's URL and in the API: {@code range} (relative,
 * ending now: {@code 5m}, {@code 1h}, {@code 24h}, {@code 7d}, ...) or {@code from}/{@code to}
 * (epoch seconds or ISO-8601), {@code dimension}, {@code dimensions} (Sankey), {@code filter},
 * {@code metric}, {@code limit}, {@code resolution} ({@code auto}, {@code raw} or a rollup
 * resolution). Everything is checked here; a bad value is a 400.
 */
public record ViewRequest(
        long from,
        long to,
        List<Dimension> dimensions,
        String filterText,
        Filter filter,
        Metric metric,
        int limit,
        String resolution) {

    /** Parameters any view takes. */
    public static final Set<String> PARAMETERS =
            Set.of(
                    "range",
                    "from",
                    "to",
                    "dimension",
                    "dimensions",
                    "filter",
                    "metric",
                    "limit",
                    "resolution");

    private static final Pattern RELATIVE = Pattern.compile("([0-9]{1,4})(s|m|h|d)");

    public ViewRequest {
        dimensions = List.copyOf(dimensions);
    }

    public long span() {
        return to - from;
    }

    /** The one dimension of a traffic or top-N view. */
    public Dimension dimension() {
        return dimensions.get(0);
    }

    /**
     * Parses the parameters.
     *
     * @param defaultDimensions how many dimensions when none is given: 1, or 2 for a Sankey
     * @param nowSeconds the time a relative range ends
     */
    public static ViewRequest parse(
            Map<String, String> p,
            Fields fields,
            FilterParser parser,
            ConsoleLimits limits,
            int minDimensions,
            int maxDimensions,
            long nowSeconds) {
        for (String name : p.keySet()) {
            if (!PARAMETERS.contains(name)) {
                throw QueryException.bad(
                        "unknown parameter '"
                                + Metric.shorten(name)
                                + "' (expected: "
                                + String.join(", ", PARAMETERS.stream().sorted().toList())
                                + ")");
            }
        }
        long from;
        long to;
        if (p.containsKey("from") || p.containsKey("to")) {
            if (p.containsKey("range")) {
                throw QueryException.bad("give either range or from/to");
            }
            from = time("from", p.get("from"));
            to = p.containsKey("to") ? time("to", p.get("to")) : nowSeconds;
        } else {
            to = nowSeconds;
            from = to - relative(p.getOrDefault("range", "24h")).toSeconds();
        }
        if (to <= from) {
            throw QueryException.bad(
                    "the range ends before it starts (from " + from + ", to " + to + ")");
        }
        if (to - from < 60) {
            throw QueryException.bad("the range is shorter than a minute");
        }
        if (to - from > limits.maxRange().toSeconds()) {
            throw QueryException.bad(
                    "the range is longer than " + Durations.text(limits.maxRange()));
        }
        List<Dimension> dims = new ArrayList<>();
        String dimText = p.containsKey("dimensions") ? p.get("dimensions") : p.get("dimension");
        if (dimText == null || dimText.isBlank()) {
            dimText = maxDimensions == 1 ? "Exporter" : "SrcAS,DstAS";
        }
        String[] names = dimText.split(",", -1);
        if (names.length < minDimensions || names.length > maxDimensions) {
            throw QueryException.bad(
                    "expected "
                            + (minDimensions == maxDimensions
                                    ? minDimensions
                                    : minDimensions + " to " + maxDimensions)
                            + " dimension(s), got "
                            + names.length);
        }
        for (String name : names) {
            dims.add(
                    fields.dimension(name.trim())
                            .orElseThrow(
                                    () ->
                                            QueryException.bad(
                                                    "unknown dimension '"
                                                            + Metric.shorten(name)
                                                            + "' (dimensions: "
                                                            + String.join(
                                                                    ", ",
                                                                    fields.dimensions().stream()
                                                                            .map(Dimension::name)
                                                                            .toList())
                                                            + ")")));
        }
        String filterText = p.getOrDefault("filter", "");
        Filter filter = parser.parse(filterText);
        int limit = 10;
        if (p.containsKey("limit")) {
            String l = p.get("limit");
            if (!l.matches("[0-9]{1,3}")
                    || Integer.parseInt(l) < 1
                    || Integer.parseInt(l) > limits.maxTopN()) {
                throw QueryException.bad(
                        "limit '"
                                + Metric.shorten(l)
                                + "' (expected: 1.."
                                + limits.maxTopN()
                                + ")");
            }
            limit = Integer.parseInt(l);
        }
        String resolution = p.getOrDefault("resolution", "auto").trim().toLowerCase(Locale.ROOT);
        if (!resolution.equals("auto") && !resolution.equals("raw")) {
            Duration d = relative(resolution);
            if (!limits.resolutions().contains(d)) {
                throw QueryException.bad(
                        "resolution '"
                                + Metric.shorten(resolution)
                                + "' (expected: auto, raw, "
                                + String.join(
                                        ", ",
                                        limits.resolutions().stream().map(Durations::text).toList())
                                + ")");
            }
        }
        return new ViewRequest(
                from,
                to,
                dims,
                filterText,
                filter,
                Metric.parse(p.get("metric")),
                limit,
                resolution);
    }

    static Duration relative(String text) {
        Matcher m = RELATIVE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw QueryException.bad(
                    "range '" + Metric.shorten(text) + "' (expected: N followed by s, m, h or d)");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }

    private static long time(String name, String text) {
        if (text == null || text.isBlank()) {
            throw QueryException.bad(name + " is empty");
        }
        String t = text.trim();
        if (t.matches("[0-9]{1,12}")) {
            return Long.parseLong(t);
        }
        try {
            return Instant.parse(t).getEpochSecond();
        } catch (DateTimeParseException e) {
            throw QueryException.bad(
                    name
                            + " '"
                            + Metric.shorten(t)
                            + "' (expected: epoch seconds or ISO-8601 like 2024-01-15T12:00:00Z)");
        }
    }
}
