// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.jobs.rollup.RollupTables;
import io.flowhouse.sinks.clickhouse.ClickHouseConnection;
import io.flowhouse.sinks.clickhouse.ClickHouseMigrator;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkMetrics;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkWriter;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.clickhouse.LocalClickHouseCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The job's schema on one shard of two replicated servers (Debian's ClickHouse 18.16 and
 * ZooKeeper): the migrations and the rollup tables run {@code ON CLUSTER} through one replica give
 * every replica the single-server columns in replicated engines; the writer, given both replicas,
 * goes on writing when one is killed with {@code kill -9}, and the killed one catches up to exact
 * totals when it is back, a replayed range counted once.
 */
class ReplicatedClickHouseITCase {

    private static final Path GOLDEN = Path.of("src/test/resources/clickhouse/states/legacy");

    private static LocalClickHouseCluster cluster;

    /** One database migrated once for the class: each ON CLUSTER statement waits for both. */
    private static final String DB = ClickHouseTestSupport.freshDatabase("cluster");

    private static ClickHouseMigrator.Result migrated;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = LocalClickHouseCluster.launch(2);
        try (ClickHouseConnection conn = new ClickHouseConnection(options(DB).build())) {
            migrated = ClickHouseTestSupport.SCHEMA.migrator(conn, DB).migrate();
            RollupTables.ensure(conn, DB, migrated.capabilities(), Duration.ofMinutes(1), 30);
            RollupTables.ensure(conn, DB, migrated.capabilities(), Duration.ofHours(1), 30);
        }
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static ClickHouseSinkOptions.Builder options(String db) {
        return ClickHouseSinkOptions.builder()
                .url(cluster.httpUrls())
                .cluster(LocalClickHouseCluster.CLUSTER)
                .database(db)
                .batchMaxRows(2_000)
                .connectTimeout(Duration.ofSeconds(2))
                .initialBackoff(Duration.ofMillis(100))
                .maxBackoff(Duration.ofSeconds(1));
    }

    @Test
    void everyReplicaGetsTheSingleServerColumnsInReplicatedEngines() throws Exception {
        String db = DB;
        try (ClickHouseConnection conn = new ClickHouseConnection(options(db).build())) {
            ClickHouseMigrator.Result r = migrated;
            ServerCapabilities caps = r.capabilities();
            // A second run applies nothing (the ledger is replicated too).
            assertThat(ClickHouseTestSupport.SCHEMA.migrator(conn, db).migrate().applied())
                    .isEmpty();
            String flavor = caps.isModern() ? "modern" : "legacy";
            String golden =
                    columnsOf(
                            Files.readString(
                                    GOLDEN.resolveSibling(flavor)
                                            .resolve(String.format("V%03d.tsv", r.latestVersion())),
                                    StandardCharsets.UTF_8));
            for (LocalClickHouse replica : cluster.replicas()) {
                assertThat(columns(replica, db, "flows_1m", "flows_1h")).isEqualTo(golden);
                assertThat(
                                replica.query(
                                        "SELECT name, engine FROM system.tables WHERE database = '"
                                                + db
                                                + "' AND engine LIKE '%MergeTree' ORDER BY name"))
                        .containsExactly(
                                "as_names\tReplicatedReplacingMergeTree",
                                "exporter_stats\tReplicatedReplacingMergeTree",
                                "flows\tReplicatedReplacingMergeTree",
                                "flows_1h\tReplicatedReplacingMergeTree",
                                "flows_1m\tReplicatedReplacingMergeTree",
                                "interface_counters\tReplicatedReplacingMergeTree",
                                "schema_migrations\tReplicatedReplacingMergeTree");
                assertThat(replica.queryScalar("SELECT count() FROM " + db + ".flows_readable"))
                        .isEqualTo("0");
            }
        }
    }

    @Test
    void aKilledReplicaIsWrittenAroundAndCatchesUpExactly() throws Exception {
        String db = DB;
        ClickHouseSinkOptions o = options(db).build();
        LocalClickHouse first = cluster.replica(0);
        try (ClickHouseSinkWriter<FlowRecord> w = writer(o)) {
            write(w, 0, 20_000);
            w.flush(true);
            first.kill();
            write(w, 20_000, 40_000); // the writer moves to the second replica
            w.flush(true);
            first.start();
            write(w, 10_000, 30_000); // a replay: the same rows again
            w.flush(true);
        }
        String expected = "40000\t" + bytes(0, 40_000);
        String sql = "SELECT count(), sum(bytes) FROM " + db + ".flows FINAL";
        for (LocalClickHouse replica : cluster.replicas()) {
            awaitRows(replica, "SYSTEM SYNC REPLICA " + db + ".flows", sql, expected);
            assertThat(replica.query(sql)).containsExactly(expected);
        }
    }

    private static void awaitRows(LocalClickHouse replica, String sync, String sql, String want)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        List<String> last = List.of();
        while (System.nanoTime() < deadline) {
            try {
                replica.query(sync);
                last = replica.query(sql);
                if (last.equals(List.of(want))) {
                    return;
                }
            } catch (RuntimeException e) {
                last = List.of(String.valueOf(e.getMessage()));
            }
            Thread.sleep(500);
        }
        throw new AssertionError(replica.httpUrl() + " did not catch up: " + last);
    }

    private static ClickHouseSinkWriter<FlowRecord> writer(ClickHouseSinkOptions o)
            throws Exception {
        return ClickHouseSinkWriter.open(
                o,
                new FlowRowEncoder(),
                ClickHouseTestSupport.SCHEMA,
                null,
                new ClickHouseSinkMetrics(),
                0);
    }

    private static void write(ClickHouseSinkWriter<FlowRecord> w, int from, int to)
            throws Exception {
        for (int i = from; i < to; i++) {
            w.write(ClickHouseTestSupport.flow(i), null);
        }
    }

    private static long bytes(int from, int to) {
        long s = 0;
        for (int i = from; i < to; i++) {
            s += ClickHouseTestSupport.flow(i).bytes();
        }
        return s;
    }

    /** The golden's column section. */
    private static String columnsOf(String snapshot) {
        return snapshot.substring(snapshot.indexOf("# columns"));
    }

    /** A replica's columns as the golden lists them, without the tables the golden lacks. */
    private static String columns(LocalClickHouse replica, String db, String... without) {
        List<String> lines = new ArrayList<>();
        lines.add("# columns: table, name, type, default_kind, default_expression");
        lines.addAll(
                replica.query(
                        "SELECT table, name, type, default_kind, default_expression FROM"
                                + " system.columns WHERE database = '"
                                + db
                                + "' AND table NOT IN ('"
                                + String.join("', '", without)
                                + "') ORDER BY table, name"));
        return String.join("\n", lines).replace(db + ".", "${DB}.") + "\n";
    }
}
