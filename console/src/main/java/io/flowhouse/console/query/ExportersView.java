// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.flowhouse.console.filter.FilterEval;
import io.flowhouse.console.filter.FilterSql;
import io.flowhouse.console.kafka.RejectedTopic;
import io.flowhouse.console.model.Field;
import io.flowhouse.console.model.Source;
import io.flowhouse.console.sql.SqlLiteral;
import io.flowhouse.console.sql.SqlLiteral.AddressForm;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Each exporter's health over a range: datagrams, records, sequence gaps and what they lost,
 * resets, records before their template, decode problems by kind and rejected records, from {@code
 * exporter_stats} (one query for the table, one for the time series); and the dead letters of the
 * rejected topic (datagrams the agent refused, which never reach the job's statistics) per exporter
 * and reason.
 */
public final class ExportersView {

    /** The counters of exporter_stats, in the order the API returns them. */
    static final List<String> COUNTERS =
            List.of(
                    "datagrams",
                    "records",
                    "sequence_gaps",
                    "lost_datagrams",
                    "lost_records",
                    "sequence_resets",
                    "records_before_template",
                    "rejected_records");

    private final ClickHouseReader ch;
    private final ConsoleLimits limits;
    private final AddressForm form;
    private final RejectedTopic rejected;

    /**
     * @param rejected the dead-letter topic, or null when the console has no Kafka
     */
    public ExportersView(
            ClickHouseReader ch, ConsoleLimits limits, AddressForm form, RejectedTopic rejected) {
        this.ch = ch;
        this.limits = limits;
        this.form = form;
        this.rejected = rejected;
    }

    public ObjectNode exporters(ViewRequest r, QueryLog log) {
        for (Field f : r.filter().fields()) {
            if (!f.name().equals("Exporter")) {
                throw QueryException.bad(
                        "the exporters view filters by Exporter only, not " + f.name());
            }
        }
        long step = 60;
        long wanted = (r.span() + limits.maxPoints() - 1) / limits.maxPoints();
        for (long s : Planner.STEPS) {
            if (s >= 60 && s >= wanted) {
                step = s;
                break;
            }
        }
        final long bucket = step;
        long from = Math.floorDiv(r.from(), bucket) * bucket;
        long to = -Math.floorDiv(-r.to(), bucket) * bucket;
        String table =
                SqlLiteral.identifier(limits.database())
                        + "."
                        + SqlLiteral.identifier("exporter_stats")
                        + " FINAL";
        String exporterText =
                form == AddressForm.FIXED_STRING
                        ? "IPv6NumToString(exporter)"
                        : "toString(exporter)";
        String where =
                "minute >= "
                        + SqlLiteral.dateTime(from)
                        + " AND minute < "
                        + SqlLiteral.dateTime(to)
                        + " AND ("
                        + FilterSql.where(r.filter(), Source.RAW, form)
                        + ")";
        StringBuilder sums = new StringBuilder();
        for (String c : COUNTERS) {
            sums.append(", sum(").append(c).append(")");
        }
        ObjectNode out = Views.JSON.createObjectNode();
        out.put("view", "exporters");
        out.put("from", from);
        out.put("to", to);
        out.put("step", step);
        out.put("filter", r.filterText());
        out.set("counters", Views.JSON.valueToTree(COUNTERS));
        String sql =
                "SELECT "
                        + exporterText
                        + " AS k0, groupUniqArray(version) AS versions"
                        + sums
                        + " FROM "
                        + table
                        + " WHERE "
                        + where
                        + " GROUP BY k0 ORDER BY k0";
        // 18.16's sumMap takes numeric keys only: the problem kinds are counted apart.
        String problemsSql =
                "SELECT "
                        + exporterText
                        + " AS k0, kind, sum(n) FROM "
                        + table
                        + " ARRAY JOIN problem_kinds AS kind, problem_counts AS n WHERE "
                        + where
                        + " GROUP BY k0, kind ORDER BY k0, kind";
        ArrayNode rows = out.putArray("rows");
        Map<String, ObjectNode> byExporter = new LinkedHashMap<>();
        for (JsonNode row : ch.query(sql, log).rows()) {
            ObjectNode o = rows.addObject();
            String name = strip(row.get(0).asText());
            o.put("exporter", name);
            o.set("versions", row.get(1));
            for (int i = 0; i < COUNTERS.size(); i++) {
                o.put(camel(COUNTERS.get(i)), row.get(2 + i).asLong());
            }
            o.putObject("problems");
            o.put("deadLetters", 0);
            byExporter.put(name, o);
        }
        for (JsonNode row : ch.query(problemsSql, log).rows()) {
            ObjectNode o = byExporter.get(strip(row.get(0).asText()));
            if (o != null) {
                ((ObjectNode) o.get("problems")).put(row.get(1).asText(), row.get(2).asLong());
            }
        }
        String series =
                "SELECT toUInt32(intDiv(toUInt32(minute), "
                        + SqlLiteral.integer(step)
                        + ") * "
                        + SqlLiteral.integer(step)
                        + ") AS t, "
                        + exporterText
                        + " AS k0"
                        + sums
                        + ", sum(arraySum(problem_counts)) FROM "
                        + table
                        + " WHERE "
                        + where
                        + " GROUP BY t, k0 ORDER BY t, k0";
        int n = (int) ((to - from) / step);
        ArrayNode timestamps = out.putArray("timestamps");
        for (int i = 0; i < n; i++) {
            timestamps.add(from + i * step);
        }
        Map<String, long[][]> perExporter = new LinkedHashMap<>();
        for (JsonNode row : ch.query(series, log).rows()) {
            int i = (int) ((row.get(0).asLong() - from) / step);
            if (i < 0 || i >= n) {
                continue;
            }
            long[][] s =
                    perExporter.computeIfAbsent(
                            strip(row.get(1).asText()), x -> new long[COUNTERS.size() + 2][n]);
            for (int c = 0; c <= COUNTERS.size(); c++) {
                s[c][i] += row.get(2 + c).asLong();
            }
        }
        if (rejected != null) {
            out.set(
                    "deadLetters",
                    deadLetters(r, from, to, step, log, rows, byExporter, perExporter));
        } else {
            out.putNull("deadLetters");
        }
        ObjectNode s = out.putObject("series");
        perExporter.forEach(
                (e, values) -> {
                    ObjectNode o = s.putObject(e);
                    for (int c = 0; c < COUNTERS.size(); c++) {
                        o.set(camel(COUNTERS.get(c)), Views.JSON.valueToTree(values[c]));
                    }
                    o.set("problems", Views.JSON.valueToTree(values[COUNTERS.size()]));
                    o.set("deadLetters", Views.JSON.valueToTree(values[COUNTERS.size() + 1]));
                });
        return Views.finish(out, log);
    }

    /** The rejected topic's records in the range: totals, per exporter, per bucket. */
    private ObjectNode deadLetters(
            ViewRequest r,
            long from,
            long to,
            long step,
            QueryLog log,
            ArrayNode rows,
            Map<String, ObjectNode> byExporter,
            Map<String, long[][]> perExporter) {
        int n = (int) ((to - from) / step);
        long started = System.nanoTime();
        RejectedTopic.Counts counts =
                rejected.count(from, to, step, a -> FilterEval.matches(r.filter(), a));
        log.add(
                new QueryLog.Entry(
                        "kafka: flows.rejected",
                        counts.records(),
                        0,
                        counts.perExporter().size(),
                        (System.nanoTime() - started) / 1e6));
        ObjectNode dl = Views.JSON.createObjectNode();
        dl.put("records", counts.records());
        dl.put("truncated", counts.truncated());
        if (counts.error() != null) {
            dl.put("error", counts.error());
        }
        dl.set("perExporter", Views.JSON.valueToTree(counts.perExporter()));
        counts.perExporter()
                .forEach(
                        (exporter, reasons) -> {
                            ObjectNode o =
                                    byExporter.computeIfAbsent(
                                            exporter, e -> rows.addObject().put("exporter", e));
                            o.put(
                                    "deadLetters",
                                    reasons.values().stream().mapToLong(Long::longValue).sum());
                        });
        int deadLetterRow = COUNTERS.size() + 1;
        counts.buckets()
                .forEach(
                        (t, m) -> {
                            int i = (int) ((t - from) / step);
                            if (i < 0 || i >= n) {
                                return;
                            }
                            m.forEach(
                                    (e, c) -> {
                                        long[][] values =
                                                perExporter.computeIfAbsent(
                                                        e, x -> new long[COUNTERS.size() + 2][n]);
                                        values[deadLetterRow][i] += c;
                                    });
                        });
        return dl;
    }

    private static String strip(String address) {
        return address.startsWith("::ffff:") && address.indexOf('.') > 0
                ? address.substring(7)
                : address;
    }

    static String camel(String snake) {
        StringBuilder sb = new StringBuilder();
        boolean up = false;
        for (char c : snake.toCharArray()) {
            if (c == '_') {
                up = true;
            } else {
                sb.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return sb.toString();
    }
}
