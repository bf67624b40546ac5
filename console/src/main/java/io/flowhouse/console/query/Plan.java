// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.query;

import io.flowhouse.console.model.Source;
import io.flowhouse.console.sql.SqlLiteral;
import java.util.List;

/**
 * Where and how a view reads: the source (raw table or a rollup kind), its table, the resolution,
 * the range aligned to the chart's time step, and why (notes the page shows).
 *
 * @param source rows read
 * @param table {@code flows} or {@code flows_<resolution>}
 * @param resolutionSeconds 0 for raw
 * @param from range start, epoch seconds, aligned to {@code step}
 * @param to range end (exclusive), aligned to {@code step}
 * @param step chart bucket, seconds
 * @param notes what the page should say about this plan
 */
public record Plan(
        Source source,
        String table,
        long resolutionSeconds,
        long from,
        long to,
        long step,
        List<String> notes) {

    public Plan {
        notes = List.copyOf(notes);
    }

    public boolean raw() {
        return source.isRaw();
    }

    /** {@code `db`.`table` FINAL}. */
    public String from(String database) {
        return SqlLiteral.identifier(database) + "." + SqlLiteral.identifier(table) + " FINAL";
    }

    /** The time column. */
    public String timeColumn() {
        return raw() ? "time_received" : "window_start";
    }

    /** The range and the source's rows. */
    public String baseCondition() {
        String range =
                timeColumn()
                        + " >= "
                        + SqlLiteral.dateTime(from)
                        + " AND "
                        + timeColumn()
                        + " < "
                        + SqlLiteral.dateTime(to);
        return raw() ? range : range + " AND " + source.rowCondition();
    }

    /** The chart bucket of a row: {@code toUInt32(intDiv(toUInt32(t), step) * step)}. */
    public String bucket() {
        return "toUInt32(intDiv(toUInt32("
                + timeColumn()
                + "), "
                + SqlLiteral.integer(step)
                + ") * "
                + SqlLiteral.integer(step)
                + ")";
    }

    /** {@code raw}, {@code 1m}, {@code 1h}. */
    public String resolutionText() {
        return raw() ? "raw" : Durations.text(java.time.Duration.ofSeconds(resolutionSeconds));
    }

    /** Number of chart buckets. */
    public int buckets() {
        return (int) ((to - from) / step);
    }
}
