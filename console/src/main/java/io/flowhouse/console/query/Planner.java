// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.query;

import io.flowhouse.console.model.Dimension;
import io.flowhouse.console.model.Field;
import io.flowhouse.console.model.Source;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Chooses what a view reads. The resolution follows the range (raw up to {@code autoRawUpTo}, the
 * finest rollup up to {@code autoFinestUpTo}, the next one beyond), or the request names it. A
 * rollup answers when one of its kinds holds every field the view needs (the split dimensions and
 * the filter's fields); otherwise the raw table does, for ranges up to {@code rawMaxRange}, and a
 * longer range is a 400 that says which fields need the raw table. The range is then aligned to the
 * chart's step: a nice step of at least the resolution, with at most {@code maxPoints} buckets.
 */
public final class Planner {

    /** Steps a chart may use, seconds. */
    static final long[] STEPS = {
        10, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400
    };

    private static final List<Source> ROLLUP_ORDER =
            List.of(
                    Source.INTERFACE_IN,
                    Source.INTERFACE_OUT,
                    Source.PROTO_PORT,
                    Source.AS_PAIR,
                    Source.TOP_TALKER,
                    Source.TOP_CONVERSATION,
                    Source.CONTEXT_INTERFACE_IN,
                    Source.CONTEXT_INTERFACE_OUT,
                    Source.COUNTRY_PAIR,
                    Source.BOUNDARY_AS);

    private final ConsoleLimits limits;

    public Planner(ConsoleLimits limits) {
        this.limits = limits;
    }

    public ConsoleLimits limits() {
        return limits;
    }

    /**
     * The plan for a view over these dimensions.
     *
     * @param allowRanked whether per-window top-N rows (with error bounds) may answer
     */
    public Plan plan(ViewRequest r, List<Dimension> dims, boolean allowRanked) {
        return plan(r, dims, allowRanked, false);
    }

    /**
     * The plan for a view over these dimensions.
     *
     * @param allowRanked whether per-window top-N rows (with error bounds) may answer
     * @param context whether the context rollups ({@code flows_context_<resolution>}) exist: the
     *     job writes them only while enrichment is on
     */
    public Plan plan(ViewRequest r, List<Dimension> dims, boolean allowRanked, boolean context) {
        Set<Field> needed = new LinkedHashSet<>();
        dims.forEach(d -> needed.addAll(d.fields()));
        Set<Field> filterFields = r.filter().fields();
        needed.addAll(filterFields);
        List<String> notes = new ArrayList<>();
        long span = r.span();
        Duration resolution = resolution(r, span);
        if (resolution != null) {
            for (Source s : ROLLUP_ORDER) {
                if (!context && s.tablePrefix().equals(Source.CONTEXT_INTERFACE_IN.tablePrefix())) {
                    continue;
                }
                if (s.ranked()
                        && (!allowRanked
                                || filterFields.stream()
                                        .anyMatch(f -> !f.name().equals("Exporter")))) {
                    continue;
                }
                if (needed.stream().allMatch(f -> f.availableIn(s))) {
                    if (s.ranked()) {
                        notes.add(
                                "top-N rows per window and exporter (the job's top "
                                        + limits.jobTopN()
                                        + "): bytes are upper bounds, each row says how far off"
                                        + " it can be");
                    }
                    return aligned(
                            s,
                            s.tablePrefix() + Durations.text(resolution),
                            resolution.toSeconds(),
                            r,
                            notes);
                }
            }
            String fieldNames = needed.stream().map(Field::name).collect(Collectors.joining(", "));
            if (span > limits.rawMaxRange().toSeconds()) {
                throw QueryException.bad(
                        "no rollup holds "
                                + fieldNames
                                + " together; the raw table answers that for ranges up to "
                                + Durations.text(limits.rawMaxRange())
                                + ": shorten the range or drop a field");
            }
            notes.add("no rollup holds " + fieldNames + " together: read from the raw table");
        } else if (span > limits.rawMaxRange().toSeconds()) {
            throw QueryException.bad(
                    "the raw table is read for ranges up to "
                            + Durations.text(limits.rawMaxRange())
                            + "; use a rollup resolution for longer ones");
        }
        return aligned(Source.RAW, "flows", 0, r, notes);
    }

    /** The rollup resolution for the request, or null for raw. */
    private Duration resolution(ViewRequest r, long span) {
        List<Duration> res = limits.resolutions();
        return switch (r.resolution()) {
            case "raw" -> null;
            case "auto" -> {
                if (span <= limits.autoRawUpTo().toSeconds() || res.isEmpty()) {
                    yield null;
                }
                if (span <= limits.autoFinestUpTo().toSeconds() || res.size() == 1) {
                    yield res.get(0);
                }
                yield res.get(1);
            }
            default -> ViewRequest.relative(r.resolution());
        };
    }

    private Plan aligned(
            Source source, String table, long resolution, ViewRequest r, List<String> notes) {
        long min = Math.max(resolution, 1);
        long wanted = (r.span() + limits.maxPoints() - 1) / limits.maxPoints();
        long step = STEPS[STEPS.length - 1];
        for (long s : STEPS) {
            if (s >= min && s >= wanted && s % min == 0) {
                step = s;
                break;
            }
        }
        long from = Math.floorDiv(r.from(), step) * step;
        long to = -Math.floorDiv(-r.to(), step) * step;
        return new Plan(source, table, resolution, from, to, step, notes);
    }
}
