// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowhouse.config.ConfigResolver;
import io.flowhouse.console.Console;
import io.flowhouse.console.access.ConsoleUser;
import io.flowhouse.console.config.ConsoleConfig;
import io.flowhouse.console.config.ConsoleKeys;
import io.flowhouse.console.server.ConsoleServer;
import io.flowhouse.jobs.rollup.RollupTables;
import io.flowhouse.jobs.tables.JobSchema;
import io.flowhouse.sinks.clickhouse.ClickHouseConnection;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The console's performance with 7 days of rollups: a temporary clickhouse-server (18.16 here), the
 * job's own tables (its migrations and rollup DDL), {@code flows_1m} and {@code flows_1h} filled
 * server-side with the row shape the job writes for 100 K flows/s (below), then each view asked
 * {@code runs} times through the console's HTTP API as its read-only user: p50/p95 wall time, the
 * queries and the rows ClickHouse read.
 *
 * <p>Shape per exporter and window (8 exporters): 16 interfaces in + 16 out, 64 protocol/port
 * buckets, 128 AS pairs, the top 20 talkers and 20 conversations: 264 rows, 2,112 a window; 7 days
 * are 21.3 M rows of {@code flows_1m} and 355 K of {@code flows_1h}. Counters: 100 K flows/s
 * (12,500 per exporter), about 800 bytes and 10 packets a flow, spread unevenly over the buckets.
 *
 * <pre>
 * mvn -pl console -am test-compile -DskipTests
 * flock /tmp/flowhouse-services.lock java -cp TEST_CLASSPATH io.flowhouse.console.bench.ConsoleBench 7 20
 * (the class path and the command: console/README.md, Performance)
 * </pre>
 */
public final class ConsoleBench {

    static final int EXPORTERS = 8;
    static final int ROWS = 264;

    public static void main(String[] args) throws Exception {
        int days = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Path work = Files.createTempDirectory("console-bench-");
        try (LocalClickHouse ch = LocalClickHouse.launch()) {
            String db = "flowhouse";
            ClickHouseSinkOptions o =
                    ClickHouseSinkOptions.builder()
                            .url(ch.httpUrl())
                            .database(db)
                            .user(ch.user())
                            .build();
            try (ClickHouseConnection conn = new ClickHouseConnection(o)) {
                JobSchema.migrations(30, JobSchema.STATS_TTL_DAYS).apply(conn, db);
                new RollupTables.Schema(Duration.ofMinutes(1), 0).apply(conn, db);
                new RollupTables.Schema(Duration.ofHours(1), 0).apply(conn, db);
            }
            long now = System.currentTimeMillis() / 1000;
            long t0 = System.nanoTime();
            fill(ch, db, "flows_1m", 60, now - days * 86_400L, days * 1_440);
            fill(ch, db, "flows_1h", 3600, now - days * 86_400L - 3600, days * 24 + 1);
            System.out.printf(
                    Locale.ROOT,
                    "filled in %.1f s: flows_1m %s rows, flows_1h %s rows; load %s%n",
                    (System.nanoTime() - t0) / 1e9,
                    ch.queryScalar("SELECT count() FROM " + db + ".flows_1m"),
                    ch.queryScalar("SELECT count() FROM " + db + ".flows_1h"),
                    load());
            ch.execute("OPTIMIZE TABLE " + db + ".flows_1h FINAL");
            String yaml =
                    String.join(
                            "\n",
                            "listen.port: 0",
                            "clickhouse.url: " + ch.httpUrl(),
                            "clickhouse.local-user: false",
                            "kafka.bootstrap-servers: ''",
                            "");
            ConsoleConfig base =
                    ConsoleKeys.config(
                            ConfigResolver.of(ConsoleKeys.SCHEMA).yaml(yaml, "bench").resolve());
            String password =
                    ConsoleUser.install(ch.directory(), work.resolve("pw"), base.clickhouse());
            Path file = work.resolve("console.yaml");
            Files.writeString(file, yaml + "clickhouse.password: " + password + "\n");
            try (ConsoleServer server =
                    Console.start(
                            ConsoleKeys.config(
                                    ConfigResolver.of(ConsoleKeys.SCHEMA).file(file).resolve()))) {
                List<String> views =
                        List.of(
                                "traffic?range=24h",
                                "traffic?range=7d",
                                "traffic?range=24h&dimension=Service",
                                "traffic?range=7d&dimension=InIf",
                                "traffic?range=24h&dimension=SrcAddr",
                                "traffic?range=7d&dimension=SrcAS&filter=DstAS%20%3D%2065001",
                                "sankey?range=24h&dimensions=SrcAS,DstAS",
                                "traffic?range=30d",
                                "exporters?range=24h");
                System.out.println("| view | queries | rows read | p50 ms | p95 ms | max ms |");
                System.out.println("|---|---|---|---|---|---|");
                for (String v : views) {
                    measure(server.url() + "api/" + v, runs, v);
                }
                System.out.println("load after: " + load());
            }
        }
    }

    static void fill(
            LocalClickHouse ch, String db, String table, int step, long start, long windows) {
        long rows = windows * EXPORTERS * ROWS;
        int perExporter = 100_000 / EXPORTERS * step;
        String kinds =
                "Enum8('interface' = 1, 'proto_port' = 2, 'as_pair' = 3, 'top_talker' = 4,"
                        + " 'top_conversation' = 5)";
        String sql =
                "INSERT INTO "
                        + db
                        + "."
                        + table
                        + " SELECT toDateTime("
                        + start
                        + " + w * "
                        + step
                        + ") AS window_start,"
                        + " CAST(multiIf(j < 32, 'interface', j < 96, 'proto_port', j < 224, 'as_pair',"
                        + " j < 244, 'top_talker', 'top_conversation') AS "
                        + kinds
                        + ") AS kind,"
                        + " toFixedString(unhex(concat('00000000000000000000ffff0a0000', hex(toUInt8(e + 1)))), 16),"
                        + " toUInt32(if(j < 32, j % 16 + 1, 0)), toInt8(if(j >= 16 AND j < 32, 1, 0)),"
                        + " toUInt8(if(j >= 32 AND j < 96, if(j % 3 = 0, 17, 6), 0)),"
                        + " toUInt16(if(j >= 32 AND j < 96, 20 + (j - 32) * 7, 0)),"
                        + " toUInt32(if(j >= 96 AND j < 224, 64500 + (j - 96) % 16, 0)),"
                        + " toUInt32(if(j >= 96 AND j < 224, 65000 + intDiv(j - 96, 16), 0)),"
                        + " toUInt16(if(j >= 224, (j - 224) % 20 + 1, 0)),"
                        + " toFixedString(unhex(concat('00000000000000000000ffff0a01', hex(toUInt8(e)),"
                        + " hex(toUInt8(if(j >= 224, ((j - 224) % 20 + w) % 250, 0))))), 16),"
                        + " toFixedString(unhex(concat('00000000000000000000ffff0a02', hex(toUInt8(e)),"
                        + " hex(toUInt8(if(j >= 244, (j + w) % 250, 0))))), 16),"
                        + " toUInt64(b), toUInt64(intDiv(b, 80)), toUInt64(intDiv(b, 800)), toUInt64(0),"
                        + " toUInt64(1)"
                        + " FROM (SELECT intDiv(number, "
                        + (EXPORTERS * ROWS)
                        + ") AS w,"
                        + " intDiv(number % "
                        + (EXPORTERS * ROWS)
                        + ", "
                        + ROWS
                        + ") AS e,"
                        + " number % "
                        + ROWS
                        + " AS j,"
                        + " intDiv(toUInt64("
                        + perExporter
                        + ") * 800 * (1 + cityHash64(number) % 100),"
                        + " multiIf(j < 32, 16 * 50, j < 96, 64 * 50, j < 224, 128 * 50, 40 * 50)) AS b"
                        + " FROM system.numbers LIMIT "
                        + rows
                        + ")";
        ch.execute(sql);
    }

    static void measure(String url, int runs, String label) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        ObjectMapper json = new ObjectMapper();
        List<Double> ms = new ArrayList<>();
        JsonNode last = null;
        for (int i = 0; i < runs + 2; i++) {
            long t = System.nanoTime();
            HttpResponse<String> r =
                    http.send(
                            HttpRequest.newBuilder(URI.create(url)).build(),
                            HttpResponse.BodyHandlers.ofString());
            double d = (System.nanoTime() - t) / 1e6;
            if (r.statusCode() != 200) {
                throw new IllegalStateException(label + ": " + r.statusCode() + " " + r.body());
            }
            if (i >= 2) {
                ms.add(d);
            }
            last = json.readTree(r.body());
        }
        ms.sort(Double::compare);
        System.out.printf(
                Locale.ROOT,
                "| `%s` (%s, %s) | %d | %,d | %.0f | %.0f | %.0f |%n",
                label,
                last.path("table").asText("exporter_stats"),
                last.path("source").asText("-"),
                last.path("queries").size(),
                last.path("rowsRead").asLong(),
                ms.get(ms.size() / 2),
                ms.get((int) Math.ceil(ms.size() * 0.95) - 1),
                ms.get(ms.size() - 1));
    }

    static String load() throws Exception {
        return Files.readString(Path.of("/proc/loadavg")).trim();
    }
}
