// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import static io.flowhouse.testkit.clickhouse.ClickHouseClusterExtension.awaitAnswer;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.sinks.clickhouse.ClickHouseConnection;
import io.flowhouse.sinks.clickhouse.ClickHouseMigrator;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.sinks.clickhouse.ClusterDdl;
import io.flowhouse.sinks.clickhouse.Migration;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.sinks.clickhouse.ShardKeys;
import io.flowhouse.testkit.clickhouse.ClickHouseClusterExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.clickhouse.LocalClickHouseCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The job's schema on two shards of two replicated servers each (Debian's ClickHouse 18.16 and
 * ZooKeeper): the migrations run {@code ON CLUSTER} give every server a {@code *_local} table per
 * single-server table (replicated, the single-server columns and sorting key) and a {@code
 * Distributed} table of today's name over them, from an empty database and from every earlier
 * version; the writer places rows by exporter, goes on writing when a replica of one shard is
 * killed with {@code kill -9}, and every server ends with exactly its shard's rows, the {@code
 * Distributed} table with all of them, a replayed range counted once.
 */
class ShardedClickHouseITCase {

    @RegisterExtension
    static final ClickHouseClusterExtension CLUSTER = ClickHouseClusterExtension.of(2, 2);

    private static LocalClickHouseCluster cluster;

    /** One database migrated once for the class: each ON CLUSTER statement waits for all four. */
    private static final String DB = ClickHouseTestSupport.freshDatabase("shards");

    private static ClickHouseMigrator.Result migrated;

    /** An exporter of each shard of two: {@code ShardKeysTest} pins them. */
    private static final List<String> STATS_EXPORTERS = List.of("192.0.2.4", "192.0.2.1");

    @BeforeAll
    static void migrate() throws Exception {
        cluster = CLUSTER.cluster();
        long start = System.nanoTime();
        migrated = ClusterTables.migrate(cluster, DB);
        System.out.printf(
                Locale.ROOT,
                "sharded: all migrations and two rollup tables on 2 x 2 servers in %d ms%n",
                (System.nanoTime() - start) / 1_000_000);
    }

    private static ClickHouseSinkOptions.Builder options(String db) {
        return ClusterTables.options(cluster, db);
    }

    @Test
    void everyServerGetsLocalTablesUnderDistributedOnesWithTheSingleServerSchema()
            throws Exception {
        try (ClickHouseConnection conn = new ClickHouseConnection(options(DB).build())) {
            // A second run applies nothing (one ledger, on every server).
            assertThat(ClickHouseTestSupport.SCHEMA.migrator(conn, DB).migrate().applied())
                    .isEmpty();
        }
        ServerCapabilities caps = migrated.capabilities();
        String golden = ClusterTables.golden(caps, migrated.latestVersion());
        List<String> expectedTables = clusterTables(golden);
        for (LocalClickHouse server : cluster.replicas()) {
            assertThat(tables(server, DB, "flows_1m", "flows_1h"))
                    .as(server.httpUrl())
                    .containsExactlyElementsOf(expectedTables);
            // Readers see today's names with today's columns; the local tables have them too.
            assertThat(columns(server, DB, false)).isEqualTo(ClusterTables.columnsOf(golden));
            assertThat(columns(server, DB, true)).isEqualTo(localColumnsOf(golden));
            // The view reads the Distributed flows (whatever the writer test left there).
            assertThat(
                            server.query(
                                    "SELECT (SELECT count() FROM "
                                            + DB
                                            + ".flows_readable) = (SELECT count() FROM "
                                            + DB
                                            + ".flows)"))
                    .containsExactly("1");
            assertThat(server.query("SELECT count() FROM " + DB + ".flows_1m FINAL"))
                    .containsExactly("0");
        }
    }

    @Test
    void everyEarlierVersionMigratesToTheClusterLayout() throws Exception {
        List<Migration> all = ClickHouseTestSupport.SCHEMA.load();
        // The class's database, migrated from empty in one go, is the reference.
        String expected = snapshot(cluster.replica(3), DB);
        for (int k = 1; k < all.size(); k++) {
            String db = ClickHouseTestSupport.freshDatabase("shards_from_" + k);
            long start = System.nanoTime();
            try (ClickHouseConnection conn = new ClickHouseConnection(options(db).build())) {
                migrator(conn, db, all.subList(0, k)).migrate();
                if (k == 4) {
                    // Rows before V005's rebuild of exporter_stats, inserted through the
                    // Distributed table: its sharding key places them where the writer would.
                    for (int shard = 0; shard < 2; shard++) {
                        cluster.replica(0)
                                .query(
                                        "INSERT INTO "
                                                + db
                                                + ".exporter_stats (minute, exporter,"
                                                + " exporter_port, version, datagrams, updated_at)"
                                                + " SELECT toDateTime(1705320000 + 60 * number),"
                                                + " IPv6StringToNum('::ffff:"
                                                + STATS_EXPORTERS.get(shard)
                                                + "'), 2055, 9, 10, 1 FROM system.numbers LIMIT "
                                                + (3 + 2 * shard));
                    }
                    for (int shard = 0; shard < 2; shard++) {
                        // Distributed inserts are sent in the background on 18.16.
                        awaitAnswer(
                                cluster.server(shard, 0),
                                Duration.ofSeconds(120),
                                "SELECT count(), sum(datagrams) FROM "
                                        + db
                                        + ".exporter_stats_local",
                                (3 + 2 * shard) + "\t" + 10 * (3 + 2 * shard));
                    }
                }
                ClickHouseMigrator.Result r = migrator(conn, db, all).migrate();
                assertThat(r.applied()).hasSize(all.size() - k);
            }
            assertThat(snapshot(cluster.replica(3), db))
                    .as("cluster schema after migrating from V%03d", k)
                    .isEqualTo(expected);
            if (k == 4) {
                // V005's copy ran on each shard: the rows stayed where they were.
                for (int shard = 0; shard < 2; shard++) {
                    LocalClickHouse other = cluster.server(shard, 1);
                    other.query("SYSTEM SYNC REPLICA " + db + ".exporter_stats_local");
                    assertThat(
                                    other.query(
                                            "SELECT count(), sum(datagrams) FROM "
                                                    + db
                                                    + ".exporter_stats_local FINAL"))
                            .containsExactly((3 + 2 * shard) + "\t" + 10 * (3 + 2 * shard));
                }
                assertThat(
                                cluster.replica(0)
                                        .query(
                                                "SELECT count(), sum(datagrams) FROM "
                                                        + db
                                                        + ".exporter_stats FINAL"))
                        .containsExactly("8\t80");
            }
            System.out.printf(
                    Locale.ROOT,
                    "sharded: from V%03d to V%03d in %d ms%n",
                    k,
                    all.get(all.size() - 1).version(),
                    (System.nanoTime() - start) / 1_000_000);
        }
    }

    @Test
    void rowsArePlacedByExporterAndAKilledReplicaCatchesUpExactly() throws Exception {
        String db = DB;
        ClickHouseSinkOptions o = options(db).build();
        LocalClickHouse killed = cluster.server(1, 0);
        // Shard 2's rows go to its second replica; the replay to the same shards.
        ClusterTables.writeAcrossAKill(o, killed, ShardedClickHouseITCase::flow);
        for (int shard = 0; shard < 2; shard++) {
            String want = rowsOn(shard, 0, 40_000) + "\t" + bytesOn(shard, 0, 40_000);
            assertThat(rowsOn(shard, 0, 40_000)).as("both shards hold rows").isPositive();
            String sql = "SELECT count(), sum(bytes) FROM " + db + ".flows_local FINAL";
            for (int replica = 0; replica < 2; replica++) {
                LocalClickHouse server = cluster.server(shard, replica);
                awaitAnswer(server, Duration.ofSeconds(120), sql, want, db + ".flows_local");
            }
        }
        for (int shard = 0; shard < 2; shard++) {
            // The writer's placement is the Distributed tables' sharding key, row for row.
            assertThat(
                            cluster.server(shard, 1)
                                    .query(
                                            "SELECT count() FROM "
                                                    + db
                                                    + ".flows_local WHERE "
                                                    + ShardKeys.EXPORTER_SQL
                                                    + " % 2 != "
                                                    + shard))
                    .containsExactly("0");
        }
        String all = "40000\t" + (bytesOn(0, 0, 40_000) + bytesOn(1, 0, 40_000));
        for (LocalClickHouse server : cluster.replicas()) {
            // FINAL through the Distributed table: each shard merges its own rows, exact.
            assertThat(server.query("SELECT count(), sum(bytes) FROM " + db + ".flows FINAL"))
                    .as(server.httpUrl())
                    .containsExactly(all);
        }
    }

    private static long rowsOn(int shard, int from, int to) {
        long n = 0;
        for (int i = from; i < to; i++) {
            if (shardOf(i) == shard) {
                n++;
            }
        }
        return n;
    }

    private static long bytesOn(int shard, int from, int to) {
        long s = 0;
        for (int i = from; i < to; i++) {
            if (shardOf(i) == shard) {
                s += flow(i).bytes();
            }
        }
        return s;
    }

    private static int shardOf(long i) {
        return ShardKeys.shard(ShardKeys.exporter(flow(i).exporterAddress()), 2);
    }

    /** The support's flow {@code i} from one of 4 exporters, 192.0.2.1-4 (shards 2, 2, 2, 1). */
    private static FlowRecord flow(long i) {
        return ClickHouseTestSupport.flow(i).toBuilder()
                .exporterAddress(IpAddress.parse("192.0.2." + (1 + i % 4)))
                .build();
    }

    private static ClickHouseMigrator migrator(
            ClickHouseConnection conn, String db, List<Migration> ms) {
        return new ClickHouseMigrator(conn, db, JobSchema.ttls(30, 400), ms);
    }

    /**
     * The tables the cluster should have for the golden's: a replicated {@code T_local} with the
     * same keys and a {@code Distributed} {@code T} for each table, the global ones replicated
     * under their own name, views as they are.
     */
    private static List<String> clusterTables(String golden) {
        List<String> out = new ArrayList<>();
        String section = golden.substring(golden.indexOf('\n') + 1, golden.indexOf("# columns"));
        for (String line : section.split("\n")) {
            String[] f = line.split("\t", -1);
            String rest = line.substring(f[0].length() + f[1].length() + 1);
            if (f[1].equals("View")) {
                out.add(line);
            } else if (ClusterDdl.GLOBAL_TABLES.contains(f[0])) {
                out.add(f[0] + "\tReplicated" + f[1] + rest);
            } else {
                out.add(f[0] + "\tDistributed\t\t\t");
                out.add(f[0] + ClusterDdl.LOCAL_SUFFIX + "\tReplicated" + f[1] + rest);
            }
        }
        out.sort(null);
        return out;
    }

    private static List<String> tables(LocalClickHouse server, String db, String... without) {
        return server.query(
                "SELECT name, engine, partition_key, sorting_key, primary_key FROM system.tables"
                        + " WHERE database = '"
                        + db
                        + "' AND name NOT IN ('"
                        + String.join("', '", without)
                        + "', '"
                        + String.join(ClusterDdl.LOCAL_SUFFIX + "', '", without)
                        + ClusterDdl.LOCAL_SUFFIX
                        + "') ORDER BY name");
    }

    /** The golden's columns of the tables that get a local part, under their own names. */
    private static String localColumnsOf(String golden) {
        List<String> lines = new ArrayList<>();
        for (String line : ClusterTables.columnsOf(golden).split("\n")) {
            String table = line.split("\t", -1)[0];
            if (line.startsWith("#")
                    || !(ClusterDdl.GLOBAL_TABLES.contains(table)
                            || table.equals("flows_readable"))) {
                lines.add(line);
            }
        }
        return String.join("\n", lines) + "\n";
    }

    /**
     * A server's columns as the golden lists them: of the tables readers use ({@code local} false),
     * or of the local tables under the name without the suffix.
     */
    private static String columns(LocalClickHouse server, String db, boolean local) {
        List<String> lines = new ArrayList<>();
        lines.add("# columns: table, name, type, default_kind, default_expression");
        lines.addAll(
                server.query(
                        "SELECT replaceRegexpOne(table, '_local$', ''), name, type, default_kind,"
                                + " default_expression FROM system.columns WHERE database = '"
                                + db
                                + "' AND table NOT LIKE 'flows_1_'"
                                + " AND table NOT LIKE 'flows_1__local'"
                                + " AND "
                                + (local ? "" : "NOT ")
                                + "endsWith(table, '_local') ORDER BY table, name"));
        return String.join("\n", lines).replace(db + ".", "${DB}.") + "\n";
    }

    /** Tables and columns of a database, its name replaced by {@code ${DB}}. */
    private static String snapshot(LocalClickHouse server, String db) {
        List<String> lines = new ArrayList<>();
        lines.addAll(
                server.query(
                        "SELECT name, engine, partition_key, sorting_key, primary_key FROM"
                                + " system.tables WHERE database = '"
                                + db
                                + "' AND name NOT LIKE 'flows_1_%' ORDER BY name"));
        lines.addAll(
                server.query(
                        "SELECT table, name, type, default_kind, default_expression FROM"
                                + " system.columns WHERE database = '"
                                + db
                                + "' AND table NOT LIKE 'flows_1_%' ORDER BY table, name"));
        return String.join("\n", lines).replace(db + ".", "${DB}.").replace(db, "${DB}") + "\n";
    }
}
