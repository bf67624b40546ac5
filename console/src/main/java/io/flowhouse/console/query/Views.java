// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.flowhouse.console.filter.Filter;
import io.flowhouse.console.filter.FilterSql;
import io.flowhouse.console.model.Source;
import io.flowhouse.console.sql.SqlLiteral;
import io.flowhouse.console.sql.SqlLiteral.AddressForm;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The traffic views: top-N with totals and error bounds, traffic over time split by a dimension
 * (top N + other), and the Sankey between 2-3 dimensions. Each builds its SQL from the plan, the
 * field table's expressions and {@link SqlLiteral}; every answer lists the queries it ran with the
 * rows the server read.
 */
public final class Views {

    static final ObjectMapper JSON = new ObjectMapper();

    /** Most (bucket, key) groups a traffic view reads in one scan. */
    static final int ONE_SCAN_GROUPS = 50_000;

    private final ClickHouseReader ch;
    private final Planner planner;
    private final AddressForm form;

    public Views(ClickHouseReader ch, Planner planner, AddressForm form) {
        this.ch = ch;
        this.planner = planner;
        this.form = form;
    }

    /**
     * When the context tables were last found missing, ms (0: never looked; they appear when the
     * job starts).
     */
    private volatile long contextMissingAt;

    private volatile boolean contextPresent;

    /**
     * Whether the job writes the context rollups (enrichment on): their finest table exists. Found
     * once; while missing, looked for again at most once a minute.
     */
    private boolean contextTables(QueryLog log) {
        List<java.time.Duration> res = planner.limits().resolutions();
        if (contextPresent || res.isEmpty()) {
            return contextPresent;
        }
        long now = System.currentTimeMillis();
        if (now - contextMissingAt < 60_000L) {
            return false;
        }
        String sql =
                "SELECT count() FROM system.tables WHERE database = "
                        + SqlLiteral.string(db())
                        + " AND name = "
                        + SqlLiteral.string(
                                Source.CONTEXT_INTERFACE_IN.tablePrefix()
                                        + Durations.text(res.get(0)));
        List<JsonNode> rows = ch.query(sql, log).rows();
        contextPresent = !rows.isEmpty() && rows.get(0).get(0).asLong() == 1;
        if (!contextPresent) {
            contextMissingAt = now;
        }
        return contextPresent;
    }

    /**
     * Gives the keys the names of their AS numbers from {@code as_names} (one query, only when a
     * key holds an AS); without that table (an older schema) the labels stay numbers.
     */
    private void nameAses(Keys keys, List<List<String>> keyValues, QueryLog log) {
        Set<Long> ases = keys.asNumbers(keyValues);
        if (ases.isEmpty()) {
            return;
        }
        StringBuilder in = new StringBuilder();
        for (long as : ases) {
            in.append(in.length() == 0 ? "" : ", ").append(SqlLiteral.integer(as));
        }
        String sql =
                "SELECT asn, argMax(name, updated) FROM "
                        + SqlLiteral.identifier(db())
                        + ".`as_names`"
                        + " WHERE asn IN ("
                        + in
                        + ") GROUP BY asn";
        Map<Long, String> names = new HashMap<>();
        try {
            for (JsonNode row : ch.query(sql, log).rows()) {
                names.put(row.get(0).asLong(), row.get(1).asText());
            }
        } catch (QueryException e) {
            return;
        }
        keys.asNames(names);
    }

    private String db() {
        return planner.limits().database();
    }

    private String where(Plan plan, Filter filter) {
        return plan.baseCondition() + " AND (" + FilterSql.where(filter, plan.source(), form) + ")";
    }

    /** The top N keys of the request's dimension, with totals, percentages and bounds. */
    public ObjectNode top(ViewRequest r, QueryLog log) {
        Plan plan = planner.plan(r, List.of(r.dimension()), true, contextTables(log));
        ObjectNode out = header("top", r, plan);
        TopResult top = topRows(r, plan, log);
        out.set("rows", top.json);
        out.set("total", top.total);
        out.set("other", top.other);
        return finish(out, log);
    }

    /** Traffic over time split by the request's dimension: top N series plus "other". */
    public ObjectNode traffic(ViewRequest r, QueryLog log) {
        Plan plan = planner.plan(r, List.of(r.dimension()), true, contextTables(log));
        ObjectNode out = header("traffic", r, plan);
        if (!plan.raw() && !plan.source().ranked() && trafficInOneScan(r, plan, out, log)) {
            return finish(out, log);
        }
        TopResult top = topRows(r, plan, log);
        out.set("rows", top.json);
        out.set("total", top.total);
        out.set("other", top.other);
        Keys keys = new Keys(List.of(r.dimension()), plan.source(), form);
        int n = plan.buckets();
        ArrayNode timestamps = out.putArray("timestamps");
        for (int i = 0; i < n; i++) {
            timestamps.add(plan.from() + i * plan.step());
        }
        Map<List<String>, long[]> series = new LinkedHashMap<>();
        for (JsonNode row : top.keyRows) {
            series.put(keys.values(row, 0), new long[n]);
        }
        long[] shown = new long[n];
        if (!top.keyRows.isEmpty()) {
            String metric = r.metric().sql(plan.raw());
            if (plan.source().ranked()) {
                metric = Metric.BYTES.sql(false);
            }
            String sql =
                    "SELECT "
                            + plan.bucket()
                            + " AS t, "
                            + keys.select()
                            + ", "
                            + metric
                            + " AS v FROM "
                            + plan.from(db())
                            + " WHERE "
                            + where(plan, r.filter())
                            + " AND "
                            + keys.in(top.keyRows)
                            + " GROUP BY t, "
                            + keys.groupBy()
                            + " ORDER BY t";
            for (JsonNode row : ch.query(sql, log).rows()) {
                int i = index(plan, row.get(0).asLong());
                long[] values = series.get(keys.values(row, 1));
                if (i >= 0 && values != null) {
                    long v = row.get(keys.size() + 1).asLong();
                    values[i] += v;
                    shown[i] += v;
                }
            }
        }
        ArrayNode s = out.putArray("series");
        int k = 0;
        for (Map.Entry<List<String>, long[]> e : series.entrySet()) {
            ObjectNode o = s.addObject();
            o.set("key", JSON.valueToTree(e.getKey()));
            o.put("label", top.json.get(k).path("label").asText());
            o.put("filter", top.json.get(k).path("filter").asText());
            ArrayNode values = o.putArray("values");
            for (long v : e.getValue()) {
                values.add(v);
            }
            k++;
        }
        long[] totals = totalSeries(r, plan, log);
        if (totals != null) {
            ArrayNode other = out.putArray("otherValues");
            ArrayNode total = out.putArray("totalValues");
            for (int i = 0; i < n; i++) {
                other.add(Math.max(0, totals[i] - shown[i]));
                total.add(totals[i]);
            }
        } else {
            out.putNull("otherValues");
            out.putNull("totalValues");
        }
        return finish(out, log);
    }

    /**
     * On a rollup, most traffic views have few keys per bucket (exporters, their interfaces,
     * services; the rows are the job's bounded buckets): one read of the rows, grouped by bucket
     * and key, gives the series, the top N, the totals and "other" at once. When the groups exceed
     * {@link #ONE_SCAN_GROUPS} it gives up (false) and the view reads top keys, their series and
     * the totals apart.
     */
    private boolean trafficInOneScan(ViewRequest r, Plan plan, ObjectNode out, QueryLog log) {
        Keys keys = new Keys(List.of(r.dimension()), plan.source(), form);
        boolean raw = plan.raw();
        String sql =
                "SELECT "
                        + plan.bucket()
                        + " AS t, "
                        + keys.select()
                        + ", "
                        + Metric.BYTES.sql(raw)
                        + ", "
                        + Metric.PACKETS.sql(raw)
                        + ", "
                        + Metric.FLOWS.sql(raw)
                        + " FROM "
                        + plan.from(db())
                        + " WHERE "
                        + where(plan, r.filter())
                        + " GROUP BY t, "
                        + keys.groupBy()
                        + " LIMIT "
                        + SqlLiteral.integer(ONE_SCAN_GROUPS + 1);
        List<JsonNode> rows = ch.query(sql, log).rows();
        if (rows.size() > ONE_SCAN_GROUPS) {
            return false;
        }
        int n = plan.buckets();
        int m = r.metric().ordinal();
        Map<List<String>, long[]> sums = new LinkedHashMap<>();
        Map<List<String>, long[]> perBucket = new LinkedHashMap<>();
        long[] total = new long[3];
        long[] totals = new long[n];
        for (JsonNode row : rows) {
            List<String> key = keys.values(row, 1);
            long[] v = new long[3];
            for (int c = 0; c < 3; c++) {
                v[c] = row.get(1 + keys.size() + c).asLong();
                total[c] += v[c];
            }
            long[] s = sums.computeIfAbsent(key, x -> new long[3]);
            for (int c = 0; c < 3; c++) {
                s[c] += v[c];
            }
            int i = index(plan, row.get(0).asLong());
            if (i >= 0) {
                perBucket.computeIfAbsent(key, x -> new long[n])[i] += v[m];
                totals[i] += v[m];
            }
        }
        List<List<String>> top = new ArrayList<>(sums.keySet());
        top.sort(
                (a, b) -> {
                    int c = Long.compare(sums.get(b)[m], sums.get(a)[m]);
                    return c != 0 ? c : String.join("\t", a).compareTo(String.join("\t", b));
                });
        top = top.subList(0, Math.min(r.limit(), top.size()));
        nameAses(keys, top, log);
        ArrayNode json = out.putArray("rows");
        ArrayNode series = JSON.createArrayNode();
        long[] shownTotal = new long[3];
        long[] shown = new long[n];
        for (List<String> key : top) {
            long[] v = sums.get(key);
            ObjectNode o = json.addObject();
            o.set("key", JSON.valueToTree(key));
            o.put("label", keys.label(key, 0, keys.size()));
            o.put("filter", keys.filter(key, 0, keys.size()));
            o.put("bytes", v[0]);
            o.put("packets", v[1]);
            o.put("flows", v[2]);
            if (total[m] > 0) {
                o.put("percent", Math.round(10_000.0 * v[m] / total[m]) / 100.0);
            } else {
                o.putNull("percent");
            }
            o.put("bytesLow", v[0]);
            o.put("bytesHigh", v[0]);
            o.put("exact", true);
            for (int c = 0; c < 3; c++) {
                shownTotal[c] += v[c];
            }
            ObjectNode s = series.addObject();
            s.set("key", JSON.valueToTree(key));
            s.put("label", o.path("label").asText());
            s.put("filter", o.path("filter").asText());
            ArrayNode values = s.putArray("values");
            long[] b = perBucket.getOrDefault(key, new long[n]);
            for (int i = 0; i < n; i++) {
                values.add(b[i]);
                shown[i] += b[i];
            }
        }
        ObjectNode t = out.putObject("total");
        ObjectNode other = out.putObject("other");
        String[] names = {"bytes", "packets", "flows"};
        for (int c = 0; c < 3; c++) {
            t.put(names[c], total[c]);
            other.put(names[c], total[c] - shownTotal[c]);
        }
        ArrayNode timestamps = out.putArray("timestamps");
        for (int i = 0; i < n; i++) {
            timestamps.add(plan.from() + i * plan.step());
        }
        out.set("series", series);
        ArrayNode otherValues = out.putArray("otherValues");
        ArrayNode totalValues = out.putArray("totalValues");
        for (int i = 0; i < n; i++) {
            otherValues.add(totals[i] - shown[i]);
            totalValues.add(totals[i]);
        }
        return true;
    }

    /** Links between 2-3 dimensions: the heaviest key combinations, the rest as "other". */
    public ObjectNode sankey(ViewRequest r, QueryLog log) {
        Plan plan = planner.plan(r, r.dimensions(), false, contextTables(log));
        ObjectNode out = header("sankey", r, plan);
        Keys keys = new Keys(r.dimensions(), plan.source(), form);
        String sql =
                "SELECT "
                        + keys.select()
                        + ", "
                        + r.metric().sql(plan.raw())
                        + " AS v FROM "
                        + plan.from(db())
                        + " WHERE "
                        + where(plan, r.filter())
                        + " GROUP BY "
                        + keys.groupBy()
                        + " WITH TOTALS ORDER BY v DESC, "
                        + keys.groupBy()
                        + " LIMIT "
                        + SqlLiteral.integer(planner.limits().sankeyLinks());
        ClickHouseReader.Result result = ch.query(sql, log);
        List<List<String>> shownKeys = new ArrayList<>();
        for (JsonNode row : result.rows()) {
            shownKeys.add(keys.values(row, 0));
        }
        nameAses(keys, shownKeys, log);
        int[] bounds = new int[r.dimensions().size() + 1];
        for (int d = 0; d < r.dimensions().size(); d++) {
            bounds[d + 1] = bounds[d] + r.dimensions().get(d).fields().size();
        }
        Map<String, ObjectNode> nodes = new LinkedHashMap<>();
        Map<String, Long> links = new LinkedHashMap<>();
        ArrayNode combos = out.putArray("combinations");
        long shown = 0;
        for (JsonNode row : result.rows()) {
            List<String> values = keys.values(row, 0);
            long v = row.get(keys.size()).asLong();
            shown += v;
            ObjectNode combo = combos.addObject();
            ArrayNode labels = combo.putArray("labels");
            String previous = null;
            for (int d = 0; d < r.dimensions().size(); d++) {
                String label = keys.label(values, bounds[d], bounds[d + 1]);
                labels.add(label);
                String id = r.dimensions().get(d).name() + ": " + label;
                nodes.computeIfAbsent(
                        id,
                        x -> {
                            ObjectNode node = JSON.createObjectNode();
                            node.put("name", x);
                            return node;
                        });
                if (previous != null) {
                    links.merge(previous + "\u0000" + id, v, Long::sum);
                }
                previous = id;
            }
            combo.put("value", v);
        }
        ArrayNode nodeArray = out.putArray("nodes");
        nodes.values().forEach(nodeArray::add);
        ArrayNode linkArray = out.putArray("links");
        links.forEach(
                (k, v) -> {
                    String[] ends = k.split("\u0000");
                    ObjectNode link = linkArray.addObject();
                    link.put("source", ends[0]);
                    link.put("target", ends[1]);
                    link.put("value", v);
                });
        long total = result.totals() == null ? shown : result.totals().get(keys.size()).asLong();
        out.put("total", total);
        out.put("other", total - shown);
        return finish(out, log);
    }

    /** The top rows and totals (one query; two more on a ranked source, for the bounds). */
    private TopResult topRows(ViewRequest r, Plan plan, QueryLog log) {
        Keys keys = new Keys(List.of(r.dimension()), plan.source(), form);
        boolean raw = plan.raw();
        String t = plan.from(db());
        String w = where(plan, r.filter());
        List<JsonNode> rows;
        long[] total;
        long caps = 0;
        boolean ranked = plan.source().ranked();
        if (!ranked) {
            String sql =
                    "SELECT "
                            + keys.select()
                            + ", "
                            + Metric.BYTES.sql(raw)
                            + " AS v_bytes, "
                            + Metric.PACKETS.sql(raw)
                            + " AS v_packets, "
                            + Metric.FLOWS.sql(raw)
                            + " AS v_flows FROM "
                            + t
                            + " WHERE "
                            + w
                            + " GROUP BY "
                            + keys.groupBy()
                            + " WITH TOTALS ORDER BY v_"
                            + r.metric().key()
                            + " DESC, "
                            + keys.groupBy()
                            + " LIMIT "
                            + SqlLiteral.integer(r.limit());
            ClickHouseReader.Result res = ch.query(sql, log);
            rows = res.rows();
            JsonNode tot = res.totals();
            total =
                    tot == null
                            ? new long[3]
                            : new long[] {
                                tot.get(keys.size()).asLong(),
                                tot.get(keys.size() + 1).asLong(),
                                tot.get(keys.size() + 2).asLong()
                            };
        } else {
            String capsSql =
                    "SELECT window_start, exporter, if(count() >= "
                            + SqlLiteral.integer(planner.limits().jobTopN())
                            + ", min(bytes), 0) AS cap FROM "
                            + t
                            + " WHERE "
                            + w
                            + " GROUP BY window_start, exporter";
            String sql =
                    "SELECT "
                            + keys.groupBy()
                            + ", sum(bytes) AS v_bytes, sum(packets) AS v_packets, sum(flows) AS"
                            + " v_flows, sum(bytes_error) AS v_error, sum(cap) AS v_caps FROM"
                            + " (SELECT window_start, exporter, "
                            + keys.select()
                            + ", bytes, packets, flows, bytes_error FROM "
                            + t
                            + " WHERE "
                            + w
                            + ") ANY LEFT JOIN ("
                            + capsSql
                            + ") USING (window_start, exporter) GROUP BY "
                            + keys.groupBy()
                            + " ORDER BY v_bytes DESC, "
                            + keys.groupBy()
                            + " LIMIT "
                            + SqlLiteral.integer(r.limit());
            rows = ch.query(sql, log).rows();
            List<JsonNode> capRows = ch.query("SELECT sum(cap) FROM (" + capsSql + ")", log).rows();
            caps = capRows.isEmpty() ? 0 : capRows.get(0).get(0).asLong();
            total = rankedTotal(r, plan, log);
        }
        List<List<String>> rowKeys = new ArrayList<>();
        for (JsonNode row : rows) {
            rowKeys.add(keys.values(row, 0));
        }
        nameAses(keys, rowKeys, log);
        TopResult out = new TopResult();
        out.keyRows = rows;
        out.json = JSON.createArrayNode();
        long[] sum = new long[3];
        for (JsonNode row : rows) {
            List<String> values = keys.values(row, 0);
            ObjectNode o = out.json.addObject();
            o.set("key", JSON.valueToTree(values));
            o.put("label", keys.label(values, 0, keys.size()));
            o.put("filter", keys.filter(values, 0, keys.size()));
            long b = row.get(keys.size()).asLong();
            long p = row.get(keys.size() + 1).asLong();
            long f = row.get(keys.size() + 2).asLong();
            o.put("bytes", b);
            o.put("packets", p);
            o.put("flows", f);
            sum[0] += b;
            sum[1] += p;
            sum[2] += f;
            long value = r.metric() == Metric.BYTES ? b : r.metric() == Metric.PACKETS ? p : f;
            long totalOfMetric = total[r.metric().ordinal()];
            if (totalOfMetric > 0) {
                o.put("percent", Math.round(10_000.0 * value / totalOfMetric) / 100.0);
            } else {
                o.putNull("percent");
            }
            if (ranked) {
                long error = row.get(keys.size() + 3).asLong();
                long presentCaps = row.get(keys.size() + 4).asLong();
                o.put("bytesLow", b - error);
                o.put("bytesHigh", b + (caps - presentCaps));
                o.put("exact", error == 0 && caps - presentCaps == 0);
            } else {
                o.put("bytesLow", b);
                o.put("bytesHigh", b);
                o.put("exact", true);
            }
        }
        out.total = JSON.createObjectNode();
        out.total.put("bytes", total[0]);
        out.total.put("packets", total[1]);
        out.total.put("flows", total[2]);
        out.other = JSON.createObjectNode();
        out.other.put("bytes", Math.max(0, total[0] - sum[0]));
        out.other.put("packets", Math.max(0, total[1] - sum[1]));
        out.other.put("flows", Math.max(0, total[2] - sum[2]));
        return out;
    }

    /** The whole traffic of a ranked view's range and (exporter) filter, from interface rows. */
    private long[] rankedTotal(ViewRequest r, Plan plan, QueryLog log) {
        Plan in = totalsPlan(plan);
        String sql =
                "SELECT sum(bytes), sum(packets), sum(flows) FROM "
                        + in.from(db())
                        + " WHERE "
                        + where(in, r.filter());
        JsonNode row = ch.query(sql, log).rows().get(0);
        return new long[] {row.get(0).asLong(), row.get(1).asLong(), row.get(2).asLong()};
    }

    private static Plan totalsPlan(Plan plan) {
        return new Plan(
                Source.INTERFACE_IN,
                plan.table(),
                plan.resolutionSeconds(),
                plan.from(),
                plan.to(),
                plan.step(),
                plan.notes());
    }

    /** The total per bucket (for "other"): the same source, or interface rows for ranked ones. */
    private long[] totalSeries(ViewRequest r, Plan plan, QueryLog log) {
        Plan p = plan.source().ranked() ? totalsPlan(plan) : plan;
        Metric m = plan.source().ranked() ? Metric.BYTES : r.metric();
        String sql =
                "SELECT "
                        + p.bucket()
                        + " AS t, "
                        + m.sql(p.raw())
                        + " AS v FROM "
                        + p.from(db())
                        + " WHERE "
                        + where(p, r.filter())
                        + " GROUP BY t ORDER BY t";
        long[] out = new long[plan.buckets()];
        for (JsonNode row : ch.query(sql, log).rows()) {
            int i = index(plan, row.get(0).asLong());
            if (i >= 0) {
                out[i] += row.get(1).asLong();
            }
        }
        return out;
    }

    private static int index(Plan plan, long t) {
        long i = (t - plan.from()) / plan.step();
        return i >= 0 && i < plan.buckets() ? (int) i : -1;
    }

    private ObjectNode header(String view, ViewRequest r, Plan plan) {
        ObjectNode out = JSON.createObjectNode();
        out.put("view", view);
        out.put("from", plan.from());
        out.put("to", plan.to());
        out.put("step", plan.step());
        out.put("resolution", plan.resolutionText());
        out.put("source", plan.source().name().toLowerCase(java.util.Locale.ROOT));
        out.put("table", plan.table());
        out.put("metric", r.metric().key());
        out.put("rateUnit", r.metric().rateUnit());
        ArrayNode dims = out.putArray("dimensions");
        r.dimensions().forEach(d -> dims.add(d.name()));
        out.put("filter", r.filterText());
        out.set("notes", JSON.valueToTree(plan.notes()));
        return out;
    }

    static ObjectNode finish(ObjectNode out, QueryLog log) {
        ArrayNode queries = out.putArray("queries");
        double millis = 0;
        for (QueryLog.Entry e : log.entries()) {
            ObjectNode q = queries.addObject();
            q.put("sql", e.sql());
            q.put("rowsRead", e.rowsRead());
            q.put("bytesRead", e.bytesRead());
            q.put("rows", e.rows());
            q.put("millis", Math.round(e.millis() * 10) / 10.0);
            millis += e.millis();
        }
        out.put("rowsRead", log.rowsRead());
        out.put("queryMillis", Math.round(millis * 10) / 10.0);
        return out;
    }

    private static final class TopResult {
        List<JsonNode> keyRows = new ArrayList<>();
        ArrayNode json;
        ObjectNode total;
        ObjectNode other;
    }
}
