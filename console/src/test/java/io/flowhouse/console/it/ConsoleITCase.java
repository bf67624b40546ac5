// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.it;

import static io.flowhouse.console.it.PipelineFixture.DB;
import static io.flowhouse.console.it.PipelineFixture.FROM;
import static io.flowhouse.console.it.PipelineFixture.TO;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowhouse.config.ConfigResolver;
import io.flowhouse.console.Console;
import io.flowhouse.console.access.ConsoleUser;
import io.flowhouse.console.config.ConsoleConfig;
import io.flowhouse.console.config.ConsoleKeys;
import io.flowhouse.console.filter.FilterParser;
import io.flowhouse.console.model.Field;
import io.flowhouse.console.model.FieldType;
import io.flowhouse.console.model.Fields;
import io.flowhouse.console.query.ClickHouseReader;
import io.flowhouse.console.query.Planner;
import io.flowhouse.console.query.QueryLog;
import io.flowhouse.console.query.ViewRequest;
import io.flowhouse.console.query.Views;
import io.flowhouse.console.server.ConsoleServer;
import io.flowhouse.console.sql.SqlLiteral.AddressForm;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console against real parts: captures through the production job into a real ClickHouse (18.16
 * here), the console's own read-only user, its HTTP API, and headless Chromium. Every number the
 * API returns is checked against SQL written here by hand over the raw {@code flows} table for the
 * same range and filter (top talkers from the rollups: the raw value lies within the bounds the API
 * returns). Bad filters are 400s that never reach ClickHouse (its query log is read back).
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ConsoleITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    static final ObjectMapper JSON = new ObjectMapper();
    static final String BYTES = "sum((bytes + reverse_bytes) * greatest(sampling_rate, 1))";
    static final String PACKETS = "sum((packets + reverse_packets) * greatest(sampling_rate, 1))";
    static final String RANGE =
            "time_received >= toDateTime(" + FROM + ") AND time_received < toDateTime(" + TO + ")";
    static final String FLOW_RANGE =
            "if(flow_end > toDateTime(0), flow_end, time_received) >= toDateTime("
                    + FROM
                    + ") AND if(flow_end > toDateTime(0), flow_end, time_received) < toDateTime("
                    + TO
                    + ")";

    @TempDir static Path work;

    static LocalClickHouse ch;
    static ConsoleConfig config;
    static ConsoleServer server;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void fill() throws Exception {
        ch = CLICKHOUSE.local();
        // The query log, to prove what the console sent (and what it did not).
        Path confD = ch.directory().resolve("config.d");
        Files.createDirectories(confD);
        Files.writeString(
                confD.resolve("query_log.xml"),
                "<?xml version=\"1.0\"?><yandex><query_log><database>system</database>"
                        + "<table>query_log</table><flush_interval_milliseconds>500"
                        + "</flush_interval_milliseconds></query_log></yandex>\n");
        ch.restart();
        PipelineFixture.fill(KAFKA.bootstrapServers(), ch);
        System.out.println(
                "rollup rows by kind: "
                        + ch.query("SELECT kind, count() FROM " + DB + ".flows_1m GROUP BY kind")
                        + ", exporter_stats: "
                        + ch.query(
                                "SELECT minute, count() FROM "
                                        + DB
                                        + ".exporter_stats GROUP BY minute"));
        config = PipelineFixture.console(ch, KAFKA.bootstrapServers(), work);
        server = Console.start(config);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    static JsonNode get(String path) throws Exception {
        HttpResponse<String> r = getRaw(path);
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    static HttpResponse<String> getRaw(String path) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(server.url() + path.substring(1)))
                        .timeout(Duration.ofSeconds(60))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static String q(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    static String range() {
        return "from=" + FROM + "&to=" + TO;
    }

    /** key (tab-joined leading columns) -> the numeric columns after them. */
    static Map<String, long[]> sql(String sql, int keyColumns) {
        Map<String, long[]> out = new LinkedHashMap<>();
        for (List<String> row : ch.queryRows(sql)) {
            long[] v = new long[row.size() - keyColumns];
            for (int i = 0; i < v.length; i++) {
                v[i] = Long.parseLong(row.get(keyColumns + i));
            }
            out.put(String.join("\t", row.subList(0, keyColumns)), v);
        }
        return out;
    }

    static String key(JsonNode row) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode k : row.path("key")) {
            if (sb.length() > 0) {
                sb.append('\t');
            }
            sb.append(k.asText());
        }
        return sb.toString();
    }

    static String ip(String column) {
        return "replaceRegexpOne(IPv6NumToString(" + column + "), '^::ffff:', '')";
    }

    @Test
    void rawTrafficPerExporterEqualsSql() throws Exception {
        JsonNode t = get("/api/traffic?" + range() + "&resolution=raw&dimension=Exporter&limit=10");
        assertThat(t.path("source").asText()).isEqualTo("raw");
        long step = t.path("step").asLong();
        Map<String, long[]> totals =
                sql(
                        "SELECT "
                                + ip("exporter")
                                + " AS k1, "
                                + BYTES
                                + ", "
                                + PACKETS
                                + ", count() FROM "
                                + DB
                                + ".flows FINAL WHERE "
                                + RANGE
                                + " GROUP BY k1",
                        1);
        assertThat(totals).hasSize(PipelineFixture.EXPORTERS.size());
        assertThat(t.path("rows")).hasSize(totals.size());
        for (JsonNode row : t.path("rows")) {
            long[] expected = totals.get(key(row));
            assertThat(
                            new long[] {
                                row.path("bytes").asLong(),
                                row.path("packets").asLong(),
                                row.path("flows").asLong()
                            })
                    .as(key(row))
                    .containsExactly(expected);
        }
        long[] all =
                sql(
                                "SELECT "
                                        + BYTES
                                        + ", "
                                        + PACKETS
                                        + ", count() FROM "
                                        + DB
                                        + ".flows FINAL"
                                        + " WHERE "
                                        + RANGE,
                                0)
                        .values()
                        .iterator()
                        .next();
        assertThat(t.path("total").path("bytes").asLong()).isEqualTo(all[0]);
        assertThat(t.path("total").path("packets").asLong()).isEqualTo(all[1]);
        assertThat(t.path("total").path("flows").asLong()).isEqualTo(all[2]);
        // Every point of every series: the bytes of that exporter in that bucket.
        Map<String, long[]> points =
                sql(
                        "SELECT "
                                + ip("exporter")
                                + " AS k1, toString(intDiv(toUInt32(time_received), "
                                + step
                                + ") * "
                                + step
                                + ") AS k2, "
                                + BYTES
                                + " FROM "
                                + DB
                                + ".flows FINAL WHERE "
                                + RANGE
                                + " GROUP BY k1, k2",
                        2);
        int checked = 0;
        for (JsonNode s : t.path("series")) {
            JsonNode values = s.path("values");
            for (int i = 0; i < values.size(); i++) {
                long ts = t.path("timestamps").get(i).asLong();
                long[] expected = points.get(key(s) + "\t" + ts);
                assertThat(values.get(i).asLong())
                        .as(key(s) + " at " + ts)
                        .isEqualTo(expected == null ? 0 : expected[0]);
                checked += expected == null ? 0 : 1;
            }
        }
        assertThat(checked).isEqualTo(points.size());
    }

    @Test
    void topServicesOfTcpFromTheMinuteRollupEqualRawSql() throws Exception {
        JsonNode t =
                get(
                        "/api/top?"
                                + range()
                                + "&resolution=1m&dimension=Service&limit=50&filter="
                                + q("Proto = tcp"));
        assertThat(t.path("source").asText()).isEqualTo("proto_port");
        assertThat(t.path("table").asText()).isEqualTo("flows_1m");
        String port =
                "multiIf(proto IN (1, 58), dst_port, src_port = 0, dst_port, dst_port = 0,"
                        + " src_port, least(src_port, dst_port))";
        Map<String, long[]> expected =
                sql(
                        "SELECT toString(proto) AS k1, toString("
                                + port
                                + ") AS k2, "
                                + BYTES
                                + ", "
                                + PACKETS
                                + ", count() FROM "
                                + DB
                                + ".flows FINAL WHERE "
                                + FLOW_RANGE
                                + " AND proto = 6 GROUP BY k1, k2",
                        2);
        assertThat(expected).isNotEmpty();
        assertThat(t.path("rows")).hasSize(Math.min(50, expected.size()));
        long[] shown = new long[3];
        long smallestShown = Long.MAX_VALUE;
        Map<String, long[]> notShown = new HashMap<>(expected);
        for (JsonNode row : t.path("rows")) {
            assertThat(
                            new long[] {
                                row.path("bytes").asLong(),
                                row.path("packets").asLong(),
                                row.path("flows").asLong()
                            })
                    .as(key(row))
                    .containsExactly(expected.get(key(row)));
            assertThat(row.path("exact").asBoolean()).isTrue();
            notShown.remove(key(row));
            shown[0] += row.path("bytes").asLong();
            shown[1] += row.path("packets").asLong();
            shown[2] += row.path("flows").asLong();
            smallestShown = Math.min(smallestShown, row.path("bytes").asLong());
        }
        // The top 50 by bytes: nothing left out is larger than what is shown.
        for (long[] v : notShown.values()) {
            assertThat(v[0]).isLessThanOrEqualTo(smallestShown);
        }
        long[] all =
                sql(
                                "SELECT "
                                        + BYTES
                                        + ", "
                                        + PACKETS
                                        + ", count() FROM "
                                        + DB
                                        + ".flows FINAL"
                                        + " WHERE "
                                        + FLOW_RANGE
                                        + " AND proto = 6",
                                0)
                        .values()
                        .iterator()
                        .next();
        assertThat(t.path("total").path("bytes").asLong()).isEqualTo(all[0]);
        assertThat(t.path("total").path("packets").asLong()).isEqualTo(all[1]);
        assertThat(t.path("total").path("flows").asLong()).isEqualTo(all[2]);
        assertThat(t.path("other").path("bytes").asLong()).isEqualTo(all[0] - shown[0]);
        assertThat(t.path("other").path("packets").asLong()).isEqualTo(all[1] - shown[1]);
        assertThat(t.path("other").path("flows").asLong()).isEqualTo(all[2] - shown[2]);
    }

    @Test
    void interfacesOverTimeFromTheRollupAddUpToRawSql() throws Exception {
        JsonNode t =
                get(
                        "/api/traffic?"
                                + range()
                                + "&resolution=1m&dimension=InIf&limit=50&filter="
                                + q("Exporter = 192.0.2.1"));
        assertThat(t.path("source").asText()).isEqualTo("interface_in");
        Map<String, long[]> raw =
                sql(
                        "SELECT "
                                + ip("exporter")
                                + " AS k1, toString(in_if) AS k2, "
                                + BYTES
                                + " FROM "
                                + DB
                                + ".flows FINAL WHERE "
                                + FLOW_RANGE
                                + " AND exporter = toFixedString(unhex("
                                + "'00000000000000000000ffffc0000201'), 16) GROUP BY k1, k2",
                        2);
        assertThat(raw).isNotEmpty();
        assertThat(t.path("series")).hasSize(raw.size());
        long step = t.path("step").asLong();
        // Per bucket, the rollup's own rows (a flow is split over the minutes it spans).
        Map<String, long[]> buckets =
                sql(
                        "SELECT toString(interface) AS k1, toString(intDiv(toUInt32(window_start), "
                                + step
                                + ") * "
                                + step
                                + ") AS k2, sum(bytes) FROM "
                                + DB
                                + ".flows_1m FINAL WHERE kind = 'interface' AND direction = 0"
                                + " AND exporter = toFixedString(unhex("
                                + "'00000000000000000000ffffc0000201'), 16) GROUP BY k1, k2",
                        2);
        long sumOfAll = 0;
        for (JsonNode s : t.path("series")) {
            long sum = 0;
            for (int i = 0; i < s.path("values").size(); i++) {
                long v = s.path("values").get(i).asLong();
                long[] b =
                        buckets.get(
                                s.path("key").get(1).asText()
                                        + "\t"
                                        + t.path("timestamps").get(i).asLong());
                assertThat(v).isEqualTo(b == null ? 0 : b[0]);
                sum += v;
            }
            assertThat(sum).as(key(s)).isEqualTo(raw.get(key(s))[0]);
            sumOfAll += sum;
        }
        long total = 0;
        for (JsonNode v : t.path("totalValues")) {
            total += v.asLong();
        }
        assertThat(total).isEqualTo(sumOfAll);
    }

    @Test
    void topTalkersFromTheRollupHoldTheRawValueWithinTheirBounds() throws Exception {
        JsonNode t = get("/api/top?" + range() + "&resolution=1m&dimension=SrcAddr&limit=20");
        assertThat(t.path("source").asText()).isEqualTo("top_talker");
        Map<String, long[]> raw =
                sql(
                        "SELECT "
                                + ip("src_addr")
                                + " AS k1, "
                                + BYTES
                                + " FROM "
                                + DB
                                + ".flows FINAL WHERE "
                                + FLOW_RANGE
                                + " GROUP BY k1",
                        1);
        assertThat(t.path("rows").size()).isPositive();
        for (JsonNode row : t.path("rows")) {
            long truth = raw.get(key(row))[0];
            assertThat(truth)
                    .as(key(row))
                    .isBetween(row.path("bytesLow").asLong(), row.path("bytesHigh").asLong());
        }
        long[] all =
                sql("SELECT " + BYTES + " FROM " + DB + ".flows FINAL WHERE " + FLOW_RANGE, 0)
                        .values()
                        .iterator()
                        .next();
        assertThat(t.path("total").path("bytes").asLong()).isEqualTo(all[0]);
    }

    @Test
    void sankeysEqualRawSql() throws Exception {
        JsonNode as = get("/api/sankey?" + range() + "&resolution=1m&dimensions=SrcAS,DstAS");
        assertThat(as.path("source").asText()).isEqualTo("as_pair");
        Map<String, long[]> asRaw =
                sql(
                        "SELECT toString(src_as) AS k1, toString(dst_as) AS k2, "
                                + BYTES
                                + " FROM "
                                + DB
                                + ".flows FINAL WHERE "
                                + FLOW_RANGE
                                + " GROUP BY k1, k2",
                        2);
        long shown = 0;
        for (JsonNode c : as.path("combinations")) {
            shown += c.path("value").asLong();
        }
        long all = asRaw.values().stream().mapToLong(v -> v[0]).sum();
        assertThat(all).isPositive();
        assertThat(as.path("total").asLong()).isEqualTo(all);
        assertThat(as.path("other").asLong()).isEqualTo(all - shown);

        JsonNode mixed =
                get("/api/sankey?" + range() + "&resolution=1m&dimensions=Proto,InIf&metric=flows");
        assertThat(mixed.path("source").asText()).isEqualTo("raw");
        assertThat(mixed.path("notes").toString()).contains("raw table");
        Map<String, long[]> raw =
                sql(
                        "SELECT toString(proto) AS k1, "
                                + ip("exporter")
                                + " AS k2, toString(in_if) AS k3,"
                                + " count() FROM "
                                + DB
                                + ".flows FINAL WHERE "
                                + RANGE
                                + " GROUP BY k1, k2, k3",
                        3);
        Map<String, Long> links = new HashMap<>();
        long total = 0;
        for (long[] v : raw.values()) {
            total += v[0];
        }
        for (JsonNode l : mixed.path("links")) {
            links.put(
                    l.path("source").asText() + " -> " + l.path("target").asText(),
                    l.path("value").asLong());
        }
        assertThat(mixed.path("total").asLong()).isEqualTo(total);
        if (raw.size() <= config.limits().sankeyLinks()) {
            assertThat(mixed.path("other").asLong()).isZero();
            assertThat(links.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(total);
        }
    }

    @Test
    void exportersEqualTheirStatisticsAndTheDeadLetters() throws Exception {
        JsonNode e = get("/api/exporters?" + range());
        Map<String, long[]> stats =
                sql(
                        "SELECT "
                                + ip("exporter")
                                + " AS k1, sum(datagrams), sum(records),"
                                + " sum(lost_records), sum(records_before_template) FROM "
                                + DB
                                + ".exporter_stats FINAL WHERE minute >= toDateTime("
                                + FROM
                                + ") AND minute < toDateTime("
                                + TO
                                + ") GROUP BY k1",
                        1);
        Map<String, long[]> flows =
                sql(
                        "SELECT "
                                + ip("exporter")
                                + " AS k1, count() FROM "
                                + DB
                                + ".flows FINAL WHERE "
                                + RANGE
                                + " GROUP BY k1",
                        1);
        assertThat(stats).hasSize(PipelineFixture.EXPORTERS.size());
        int seen = 0;
        for (JsonNode row : e.path("rows")) {
            String exporter = row.path("exporter").asText();
            if (exporter.equals(PipelineFixture.REJECTED_EXPORTER)) {
                assertThat(row.path("deadLetters").asLong()).isEqualTo(PipelineFixture.REJECTED);
                continue;
            }
            long[] s = stats.get(exporter);
            assertThat(
                            new long[] {
                                row.path("datagrams").asLong(),
                                row.path("records").asLong(),
                                row.path("lostRecords").asLong(),
                                row.path("recordsBeforeTemplate").asLong()
                            })
                    .as(exporter)
                    .containsExactly(s);
            assertThat(row.path("records").asLong()).isPositive();
            assertThat(flows.get(exporter)[0]).isPositive();
            seen++;
        }
        assertThat(seen).isEqualTo(PipelineFixture.EXPORTERS.size());
        assertThat(e.path("deadLetters").path("records").asLong())
                .isEqualTo(PipelineFixture.REJECTED);
        assertThat(
                        e.path("deadLetters")
                                .path("perExporter")
                                .path(PipelineFixture.REJECTED_EXPORTER)
                                .path("UNSUPPORTED_VERSION")
                                .asLong())
                .isEqualTo(PipelineFixture.REJECTED);
    }

    @Test
    void badFiltersAreClear400sThatNeverReachClickHouse() throws Exception {
        String marker = "zq7mark";
        List<String> bad =
                List.of(
                        "Proto = 6; DROP TABLE " + marker,
                        "SrcAddr = '1.2.3.4'' OR 1=1 --" + marker,
                        "Exporter = 1.2.3.4) OR (1=1 " + marker,
                        "Proto = 6 UNION SELECT " + marker,
                        "Proto = `" + marker + "`",
                        "InIf = 1 /* " + marker + " */",
                        marker + " = 1",
                        "Proto = " + marker,
                        "InIf = 99999999999999999999" + marker,
                        "SrcAS IN (1, 2, " + marker + ")",
                        "Proto = 6 AND",
                        "((((((((((((((((((Proto = 6))))))))))))))))))",
                        "SrcAS IN (" + "1, ".repeat(300) + "1)",
                        "Proto = 6 OR ".repeat(200) + "Proto = 17",
                        "Proto = '6\u0000" + marker + "'");
        for (String filter : bad) {
            HttpResponse<String> r =
                    getRaw("/api/traffic?" + range() + "&resolution=raw&filter=" + q(filter));
            assertThat(r.statusCode()).as(filter).isEqualTo(400);
            assertThat(JSON.readTree(r.body()).path("error").asText())
                    .as(filter)
                    .startsWith("bad filter: ");
        }
        HttpResponse<String> param =
                getRaw("/api/traffic?" + range() + "&dimension=" + q("Exporter; DROP " + marker));
        assertThat(param.statusCode()).isEqualTo(400);
        HttpResponse<String> unknown = getRaw("/api/traffic?" + range() + "&" + marker + "=1");
        assertThat(unknown.statusCode()).isEqualTo(400);
        // A good request, so the log is known to hold the console's queries.
        get("/api/traffic?" + range() + "&resolution=raw&filter=" + q("Proto = tcp"));
        ch.execute("SYSTEM FLUSH LOGS");
        String user = config.clickhouse().user();
        assertThat(
                        ch.queryScalar(
                                "SELECT count() FROM system.query_log WHERE user = '"
                                        + user
                                        + "' AND query LIKE '%proto) = 6%'"))
                .isNotEqualTo("0");
        assertThat(
                        ch.queryScalar(
                                "SELECT count() FROM system.query_log WHERE query LIKE '%"
                                        + marker
                                        + "%' AND query NOT LIKE '%system.query_log%'"))
                .isEqualTo("0");
        assertThat(
                        ch.queryScalar(
                                "SELECT count() FROM system.query_log WHERE user = '"
                                        + user
                                        + "' AND query NOT LIKE 'SELECT%'"))
                .isEqualTo("0");
    }

    @Test
    void textValuesReachSqlOnlyAsEscapedLiterals() throws Exception {
        // A text field (as enrichment will add): the exporter's address as text.
        Fields fields =
                new Fields(
                        List.of(
                                Field.of("ExporterText", "exporter as text", FieldType.STRING)
                                        .raw("IPv6NumToString(exporter)")
                                        .build()),
                        List.of());
        ClickHouseReader reader =
                new ClickHouseReader(
                        config.clickhouse().url(),
                        DB,
                        config.clickhouse().user(),
                        () -> config.clickhouse().password(),
                        Duration.ofSeconds(30));
        Views views = new Views(reader, new Planner(config.limits()), AddressForm.FIXED_STRING);
        FilterParser parser = new FilterParser(fields, FilterParser.Limits.DEFAULT);
        List<String> payloads =
                List.of(
                        "x' OR 1=1 --",
                        "x\\' OR 1=1 --",
                        "'; DROP TABLE " + DB + ".flows; --",
                        "\\",
                        "x\u0000y",
                        "::ffff:192.0.2.1' OR '1'='1");
        for (String payload : payloads) {
            String filter =
                    "ExporterText = '" + payload.replace("\\", "\\\\").replace("'", "\\'") + "'";
            ViewRequest r =
                    ViewRequest.parse(
                            Map.of(
                                    "from",
                                    "" + FROM,
                                    "to",
                                    "" + TO,
                                    "resolution",
                                    "raw",
                                    "dimension",
                                    "ExporterText",
                                    "filter",
                                    filter),
                            fields,
                            parser,
                            config.limits(),
                            1,
                            1,
                            TO);
            JsonNode t = views.top(r, new QueryLog());
            assertThat(t.path("total").path("flows").asLong()).as(payload).isZero();
        }
        ViewRequest one =
                ViewRequest.parse(
                        Map.of(
                                "from",
                                "" + FROM,
                                "to",
                                "" + TO,
                                "resolution",
                                "raw",
                                "dimension",
                                "ExporterText",
                                "filter",
                                "ExporterText = '::ffff:192.0.2.1'"),
                        fields,
                        parser,
                        config.limits(),
                        1,
                        1,
                        TO);
        long flows =
                Long.parseLong(
                        ch.queryScalar(
                                "SELECT count() FROM "
                                        + DB
                                        + ".flows FINAL WHERE "
                                        + RANGE
                                        + " AND exporter = toFixedString(unhex("
                                        + "'00000000000000000000ffffc0000201'), 16)"));
        assertThat(views.top(one, new QueryLog()).path("total").path("flows").asLong())
                .isEqualTo(flows)
                .isPositive();
        assertThat(ch.queryScalar("EXISTS TABLE " + DB + ".flows")).isEqualTo("1");
    }

    @Test
    void theReadOnlyUserCannotWriteAndItsLimitsAreEnforced() throws Exception {
        // Another console user with a tiny result budget: a view over it is a 422, not a hang.
        // (18.16 does not apply max_rows_to_read to FINAL reads: there the time limit and the
        // console's range bounds hold instead; see the README.)
        String yaml =
                String.join(
                        "\n",
                        "listen.port: 0",
                        "clickhouse.url: " + ch.httpUrl(),
                        "clickhouse.database: " + DB,
                        "clickhouse.user: console_tiny",
                        "clickhouse.local-user: false",
                        "kafka.bootstrap-servers: ''",
                        "query.max-result-rows: 2",
                        "");
        ConsoleConfig tiny =
                ConsoleKeys.config(
                        ConfigResolver.of(ConsoleKeys.SCHEMA).yaml(yaml, "test").resolve());
        String password =
                ConsoleUser.install(
                        ch.directory(), work.resolve("tiny-password"), tiny.clickhouse());
        Path file = work.resolve("tiny.yaml");
        Files.writeString(file, yaml + "clickhouse.password: " + password + "\n");
        try (ConsoleServer s =
                Console.start(
                        ConsoleKeys.config(
                                ConfigResolver.of(ConsoleKeys.SCHEMA).file(file).resolve()))) {
            ClickHouseReader reader =
                    new ClickHouseReader(
                            ch.httpUrl(),
                            DB,
                            "console_tiny",
                            () -> password,
                            Duration.ofSeconds(30));
            assertThat(
                            org.assertj.core.api.Assertions.catchThrowable(
                                    () ->
                                            reader.query(
                                                    "DROP TABLE " + DB + ".flows", new QueryLog())))
                    .hasMessageContaining("readonly");
            HttpResponse<String> r =
                    HTTP.send(
                            HttpRequest.newBuilder(
                                            URI.create(
                                                    s.url()
                                                            + "api/traffic?"
                                                            + range()
                                                            + "&resolution=raw"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(422);
            assertThat(r.body()).contains("limits");
        }
        assertThat(ch.queryScalar("EXISTS TABLE " + DB + ".flows")).isEqualTo("1");
    }

    @Test
    void theBrowserShowsWhatSqlSays() throws Exception {
        BrowserCheck.run(server.url(), ch, work);
    }
}
