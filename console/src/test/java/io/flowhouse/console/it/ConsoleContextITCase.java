// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.it;

import static io.flowhouse.console.it.ConsoleITCase.BYTES;
import static io.flowhouse.console.it.ConsoleITCase.FLOW_RANGE;
import static io.flowhouse.console.it.ConsoleITCase.PACKETS;
import static io.flowhouse.console.it.PipelineFixture.DB;
import static io.flowhouse.console.it.PipelineFixture.FROM;
import static io.flowhouse.console.it.PipelineFixture.TO;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.v5.V5Encoder;
import io.flowhouse.console.Console;
import io.flowhouse.console.config.ConsoleConfig;
import io.flowhouse.console.server.ConsoleServer;
import io.flowhouse.enrich.geo.AsnDatabase;
import io.flowhouse.jobs.tables.AsNamesTable;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

/**
 * The console's context dimensions with enrichment on: the captures through the production job with
 * a static rules file (interface names and boundaries by exporter) and the real country and ASN
 * databases ({@code enrichment/scripts/fetch-geo-data.sh}, as {@code .ci/run} fetches them), so the
 * job writes the raw table's context columns and the context rollups ({@code flows_context_1m}).
 * Every number the API returns for interface names, boundaries, countries and the looked-up AS
 * numbers equals SQL written here over the raw table's context columns. With one more exporter
 * whose flows run between real networks of the ASN database (the captures' addresses have no AS),
 * and {@code as_names} loaded from that database by {@code AsNamesTable}, the AS labels carry the
 * names {@code as_names} holds.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ConsoleContextITCase {

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
    static final HttpClient HTTP = HttpClient.newHttpClient();

    /**
     * Known answers by rule: the v9 exporter's interfaces are external, the IPFIX one's internal,
     * the others undefined; interfaces 0..8 of every exporter have names.
     */
    static final String RULES =
            String.join(
                    "\n",
                    "exporters:",
                    "  - prefix: 192.0.2.0/24",
                    "    interfaces:",
                    "      - if-index: 0",
                    "        name: none0",
                    "      - if-index: 1",
                    "        name: ge-0/0/1",
                    "      - if-index: 2",
                    "        name: ge-0/0/2",
                    "      - if-index: 3",
                    "        name: xe-0/0/3",
                    "      - if-index: 4",
                    "        name: xe-0/0/4",
                    "      - if-index: 5",
                    "        name: et-5",
                    "      - if-index: 6",
                    "        name: et-6",
                    "      - if-index: 7",
                    "        name: et-7",
                    "      - if-index: 8",
                    "        name: et-8",
                    "  - prefix: 192.0.2.1/32",
                    "    interfaces:",
                    "      - boundary: external",
                    "  - prefix: 192.0.2.2/32",
                    "    interfaces:",
                    "      - boundary: internal",
                    "");

    @TempDir static Path work;

    static LocalClickHouse ch;
    static ConsoleServer server;

    @BeforeAll
    static void fill() throws Exception {
        ch = CLICKHOUSE.local();
        Path geo = geoData();
        Path rules = work.resolve("rules.yaml");
        Files.writeString(rules, RULES);
        PipelineFixture.fill(
                KAFKA.bootstrapServers(),
                ch,
                realNetworkDatagrams(geo.resolve("asn.mmdb")),
                "--enrich.rules-file",
                rules.toString(),
                "--enrich.geoip.country-database",
                geo.resolve("country.mmdb").toString(),
                "--enrich.geoip.asn-database",
                geo.resolve("asn.mmdb").toString(),
                "--enrich.asn-order",
                "database");
        System.out.println(
                "context rollup rows by kind: "
                        + ch.query(
                                "SELECT kind, count() FROM "
                                        + DB
                                        + ".flows_context_1m GROUP BY kind")
                        + ", countries: "
                        + ch.query(
                                "SELECT src_country, dst_country, count() FROM "
                                        + DB
                                        + ".flows GROUP BY src_country, dst_country"));
        // AS names for the labels, loaded from the same ASN database as ./flowhouse up loads them.
        AsNamesTable.Result names =
                AsNamesTable.load(
                        ClickHouseSinkOptions.builder()
                                .url(ch.httpUrl())
                                .user(ch.user())
                                .password(ch.password())
                                .database(DB)
                                .build(),
                        geo.resolve("asn.mmdb"),
                        Duration.ZERO);
        System.out.println("as_names: " + names);
        ConsoleConfig config = PipelineFixture.console(ch, KAFKA.bootstrapServers(), work);
        server = Console.start(config);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** The exporter of flows between real networks (the captures' addresses have no AS). */
    static final String REAL_EXPORTER = "192.0.2.5";

    /**
     * NetFlow v5 from {@link #REAL_EXPORTER}: 60 TCP flows between hosts of 30 networks drawn from
     * the ASN database (fixed seed), in three datagrams received 30 s after the captures begin.
     */
    static List<RawDatagram> realNetworkDatagrams(Path asn) throws IOException {
        List<AsnDatabase.AsnNetwork> nets =
                AsnDatabase.sampleNetworks(asn, 200, 11).stream()
                        .filter(AsnDatabase.AsnNetwork::ipv4)
                        .limit(30)
                        .toList();
        assertThat(nets).hasSize(30);
        List<RawDatagram> out = new ArrayList<>();
        long flowSequence = 0;
        for (int d = 0; d < 3; d++) {
            long received = PipelineFixture.FIRST_RECEIVED_MILLIS + 30_000 + d * 1_000L;
            List<FlowRecord> flows = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                int k = d * 20 + i;
                flows.add(
                        FlowRecord.builder()
                                .ipVersion(4)
                                .srcAddr(host(nets.get(k % 30)))
                                .dstAddr(host(nets.get((k * 7 + 3) % 30)))
                                .protocol(6)
                                .srcPort(40_000 + k)
                                .dstPort(443)
                                .packets(10 + k)
                                .bytes(1_000L * (k + 1))
                                .inputInterface(1 + k % 2)
                                .outputInterface(3)
                                .flowStartMillis(received - 6_000)
                                .flowEndMillis(received - 1_000)
                                .build());
            }
            ByteBuffer b = ByteBuffer.allocate(V5Encoder.size(flows.size()));
            V5Encoder.encode(
                    new V5Encoder.Header(received, 3_600_000, flowSequence, 0, 0, 0, 0), flows, b);
            flowSequence += flows.size();
            out.add(
                    RawDatagram.of(
                            IpAddress.parse(REAL_EXPORTER),
                            2055,
                            received,
                            "console-it",
                            Arrays.copyOf(b.array(), b.position())));
        }
        return out;
    }

    private static IpAddress host(AsnDatabase.AsnNetwork n) {
        IpAddress base = IpAddress.parse(n.cidr().substring(0, n.cidr().indexOf('/')));
        return IpAddress.ofIpv4(base.ipv4() + 1);
    }

    /** The databases {@code .ci/run} caches; fetched the same way when absent. */
    static Path geoData() throws IOException, InterruptedException {
        Path root = Path.of(System.getProperty("flowhouse.root.dir", ".."));
        Path script = root.resolve("enrichment/scripts/fetch-geo-data.sh");
        Process p =
                new ProcessBuilder("bash", script.toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
        String dir = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor()).as("fetch-geo-data.sh").isZero();
        Path out = Path.of(dir);
        assertThat(out.resolve("country.mmdb")).isRegularFile();
        assertThat(out.resolve("asn.mmdb")).isRegularFile();
        return out;
    }

    static JsonNode get(String path) throws Exception {
        HttpResponse<String> r =
                HTTP.send(
                        HttpRequest.newBuilder(URI.create(server.url() + path.substring(1)))
                                .timeout(Duration.ofSeconds(60))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    static String q(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    static String range() {
        return "from=" + FROM + "&to=" + TO;
    }

    /**
     * The API's top rows of a dimension (and filter) from the minute rollups equal {@code sql}: its
     * leading {@code keys} columns are the key, then bytes, packets, flows.
     */
    static void topEqualsSql(
            String dimension, String filter, String source, String table, String sql, int keys)
            throws Exception {
        JsonNode t =
                get(
                        "/api/top?"
                                + range()
                                + "&resolution=1m&limit=50&dimension="
                                + dimension
                                + (filter == null ? "" : "&filter=" + q(filter)));
        assertThat(t.path("source").asText()).as(dimension).isEqualTo(source);
        assertThat(t.path("table").asText()).as(dimension).isEqualTo(table);
        Map<String, long[]> expected = new LinkedHashMap<>();
        for (List<String> row : ch.queryRows(sql)) {
            long[] v = new long[3];
            for (int i = 0; i < 3; i++) {
                v[i] = Long.parseLong(row.get(keys + i));
            }
            expected.put(String.join("\t", row.subList(0, keys)), v);
        }
        assertThat(expected).as(sql).isNotEmpty();
        Map<String, long[]> shown = new HashMap<>();
        for (JsonNode row : t.path("rows")) {
            List<String> key = new java.util.ArrayList<>();
            row.path("key").forEach(k -> key.add(k.asText()));
            shown.put(
                    String.join("\t", key),
                    new long[] {
                        row.path("bytes").asLong(),
                        row.path("packets").asLong(),
                        row.path("flows").asLong()
                    });
            assertThat(row.path("exact").asBoolean(true)).isTrue();
        }
        // Every key when there are at most 50 (the API's largest top N), else the top 50.
        assertThat(shown).hasSize(Math.min(50, expected.size()));
        assertThat(expected.keySet()).as(dimension).containsAll(shown.keySet());
        for (Map.Entry<String, long[]> e : shown.entrySet()) {
            assertThat(e.getValue()).as(e.getKey()).containsExactly(expected.get(e.getKey()));
        }
    }

    static String sums() {
        return BYTES + ", " + PACKETS + ", count()";
    }

    @Test
    void interfaceNamesEqualRawSql() throws Exception {
        topEqualsSql(
                "InIfName",
                null,
                "context_interface_in",
                "flows_context_1m",
                "SELECT "
                        + ConsoleITCase.ip("exporter")
                        + " AS k1, in_if_name AS k2, "
                        + sums()
                        + " FROM "
                        + DB
                        + ".flows FINAL WHERE "
                        + FLOW_RANGE
                        + " GROUP BY k1, k2",
                2);
        topEqualsSql(
                "OutIfName",
                "Exporter = 192.0.2.2",
                "context_interface_out",
                "flows_context_1m",
                "SELECT "
                        + ConsoleITCase.ip("exporter")
                        + " AS k1, out_if_name AS k2, "
                        + sums()
                        + " FROM "
                        + DB
                        + ".flows FINAL WHERE "
                        + FLOW_RANGE
                        + " AND exporter = toFixedString(unhex("
                        + "'00000000000000000000ffffc0000202'), 16) GROUP BY k1, k2",
                2);
    }

    @Test
    void countryPairsEqualRawSql() throws Exception {
        assertThat(
                        ch.queryScalar(
                                "SELECT count() FROM "
                                        + DB
                                        + ".flows WHERE src_country != '' OR dst_country != ''"))
                .as("flows with a country from the database")
                .isNotEqualTo("0");
        topEqualsSql(
                "CountryPair",
                null,
                "country_pair",
                "flows_context_1m",
                "SELECT src_country AS k1, dst_country AS k2, "
                        + sums()
                        + " FROM "
                        + DB
                        + ".flows FINAL WHERE "
                        + FLOW_RANGE
                        + " GROUP BY k1, k2",
                2);
    }

    @Test
    void boundaryAsAndProtocolFilterEqualsRawSql() throws Exception {
        // The example filter, with the AS numbers the database gave these captures.
        List<String> ases =
                ch
                        .queryRows(
                                "SELECT toString(src_as) FROM "
                                        + DB
                                        + ".flows WHERE in_if_boundary = 'external' AND proto = 6"
                                        + " GROUP BY src_as ORDER BY count() DESC LIMIT 2")
                        .stream()
                        .map(r -> r.get(0))
                        .toList();
        assertThat(ases).isNotEmpty();
        String in = String.join(", ", ases);
        topEqualsSql(
                "SrcAS",
                "InIfBoundary = external AND SrcAS IN (" + in + ") AND Proto = 6",
                "boundary_as",
                "flows_context_1m",
                "SELECT toString(src_as) AS k1, "
                        + sums()
                        + " FROM "
                        + DB
                        + ".flows FINAL WHERE "
                        + FLOW_RANGE
                        + " AND in_if_boundary = 'external' AND src_as IN ("
                        + in
                        + ") AND proto = 6 GROUP BY k1",
                1);
        topEqualsSql(
                "InIfBoundary",
                null,
                "context_interface_in",
                "flows_context_1m",
                "SELECT toString(multiIf(in_if_boundary = 'external', 1, in_if_boundary ="
                        + " 'internal', 2, 0)) AS k1, "
                        + sums()
                        + " FROM "
                        + DB
                        + ".flows FINAL WHERE "
                        + FLOW_RANGE
                        + " GROUP BY k1",
                1);
        // The plain AS pairs count the looked-up AS numbers too, as the raw table stores them,
        // and their labels carry the names of as_names (the captures' addresses have no AS in
        // the open data; the flows between real networks have).
        Map<String, String> asNames = new HashMap<>();
        for (List<String> row :
                ch.queryRows(
                        "SELECT toString(asn), name FROM "
                                + DB
                                + ".as_names FINAL WHERE asn IN (SELECT src_as FROM "
                                + DB
                                + ".flows) OR asn IN (SELECT dst_as FROM "
                                + DB
                                + ".flows)")) {
            asNames.put(row.get(0), row.get(1));
        }
        JsonNode pairs = get("/api/top?" + range() + "&resolution=1m&limit=50&dimension=ASPair");
        int named = 0;
        for (JsonNode row : pairs.path("rows")) {
            String src = row.path("key").get(0).asText();
            String dst = row.path("key").get(1).asText();
            String label = row.path("label").asText();
            if (!src.equals("0")) {
                assertThat(asNames).as("AS" + src + " in as_names").containsKey(src);
                assertThat(label).startsWith("AS" + src + " " + asNames.get(src) + " · ");
                named++;
            }
            if (!dst.equals("0")) {
                assertThat(asNames).as("AS" + dst + " in as_names").containsKey(dst);
                assertThat(label).endsWith(" · AS" + dst + " " + asNames.get(dst));
                named++;
            }
        }
        System.out.println("AS pairs with a named AS: " + named);
        assertThat(named).as("labels with an AS name").isGreaterThanOrEqualTo(20);
        topEqualsSql(
                "ASPair",
                null,
                "as_pair",
                "flows_1m",
                "SELECT toString(src_as) AS k1, toString(dst_as) AS k2, "
                        + sums()
                        + " FROM "
                        + DB
                        + ".flows FINAL WHERE "
                        + FLOW_RANGE
                        + " GROUP BY k1, k2",
                2);
    }

    @Test
    void theBrowserSplitsByInterfaceNameWithABoundaryFilter() throws Exception {
        BrowserCheck.run(
                server.url(),
                ch,
                work,
                (driver, url, c, shots) -> {
                    driver.get(url + "?view=traffic&from=" + FROM + "&to=" + TO + "&resolution=1m");
                    BrowserCheck.await(driver);
                    BrowserCheck.mark(driver);
                    new Select(driver.findElement(By.id("dimension"))).selectByValue("InIfName");
                    BrowserCheck.await(driver);
                    BrowserCheck.mark(driver);
                    WebElement filter = driver.findElement(By.id("filter"));
                    filter.clear();
                    filter.sendKeys("InIfBoundary = external");
                    driver.findElement(By.id("apply")).click();
                    BrowserCheck.await(driver);
                    assertThat(driver.getCurrentUrl())
                            .contains("dimension=InIfName")
                            .contains("filter=InIfBoundary");
                    String where = FLOW_RANGE + " AND in_if_boundary = 'external'";
                    Map<String, Long> expected = new HashMap<>();
                    for (List<String> row :
                            c.queryRows(
                                    "SELECT in_if_name, "
                                            + BYTES
                                            + " FROM "
                                            + DB
                                            + ".flows FINAL WHERE "
                                            + where
                                            + " GROUP BY in_if_name")) {
                        expected.put(row.get(0), Long.parseLong(row.get(1)));
                    }
                    List<WebElement> rows = driver.findElements(By.cssSelector("#table tbody tr"));
                    assertThat(rows).hasSize(expected.size());
                    for (WebElement row : rows) {
                        String label = row.findElement(By.cssSelector("td a")).getText();
                        long bytes =
                                BrowserCheck.number(
                                        row.findElement(By.cssSelector("td.bytes")).getText());
                        String name = label.substring(label.lastIndexOf(' ') + 1);
                        assertThat(bytes).as(label).isEqualTo(expected.get(name));
                    }
                    assertThat(BrowserCheck.text(driver, "total-bytes"))
                            .isEqualTo(
                                    BrowserCheck.sql(
                                            c,
                                            "SELECT "
                                                    + BYTES
                                                    + " FROM "
                                                    + DB
                                                    + ".flows FINAL WHERE "
                                                    + where));
                    BrowserCheck.screenshot(driver, shots.resolve("console-context.png"));
                });
    }
}
