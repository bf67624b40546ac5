// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import static io.flowhouse.testkit.clickhouse.ClickHouseClusterExtension.awaitAnswer;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.sinks.clickhouse.ClickHouseConnection;
import io.flowhouse.sinks.clickhouse.ClickHouseMigrator;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.testkit.clickhouse.ClickHouseClusterExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.clickhouse.LocalClickHouseCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The job's schema on one shard of two replicated servers (Debian's ClickHouse 18.16 and
 * ZooKeeper): the migrations and the rollup tables run {@code ON CLUSTER} through one replica give
 * every replica the single-server columns in replicated engines; the writer, given both replicas,
 * goes on writing when one is killed with {@code kill -9}, and the killed one catches up to exact
 * totals when it is back, a replayed range counted once.
 */
class ReplicatedClickHouseITCase {

    @RegisterExtension
    static final ClickHouseClusterExtension CLUSTER = ClickHouseClusterExtension.of(1, 2);

    /** One database migrated once for the class: each ON CLUSTER statement waits for both. */
    private static final String DB = ClickHouseTestSupport.freshDatabase("cluster");

    private static LocalClickHouseCluster cluster;

    private static ClickHouseMigrator.Result migrated;

    @BeforeAll
    static void migrate() throws Exception {
        cluster = CLUSTER.cluster();
        migrated = ClusterTables.migrate(cluster, DB);
    }

    @Test
    void everyReplicaGetsTheSingleServerColumnsInReplicatedEngines() throws Exception {
        String db = DB;
        try (ClickHouseConnection conn =
                new ClickHouseConnection(ClusterTables.options(cluster, db).build())) {
            ClickHouseMigrator.Result r = migrated;
            // A second run applies nothing (the ledger is replicated too).
            assertThat(ClickHouseTestSupport.SCHEMA.migrator(conn, db).migrate().applied())
                    .isEmpty();
            String golden =
                    ClusterTables.columnsOf(
                            ClusterTables.golden(r.capabilities(), r.latestVersion()));
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
        ClickHouseSinkOptions o = ClusterTables.options(cluster, db).build();
        LocalClickHouse first = cluster.replica(0);
        // The writer moves to the second replica, the replay sends the same rows again.
        ClusterTables.writeAcrossAKill(o, first, ClickHouseTestSupport::flow);
        String expected = "40000\t" + bytes(0, 40_000);
        String sql = "SELECT count(), sum(bytes) FROM " + db + ".flows FINAL";
        for (LocalClickHouse replica : cluster.replicas()) {
            awaitAnswer(replica, Duration.ofSeconds(120), sql, expected, db + ".flows");
            assertThat(replica.query(sql)).containsExactly(expected);
        }
    }

    private static long bytes(int from, int to) {
        long s = 0;
        for (int i = from; i < to; i++) {
            s += ClickHouseTestSupport.flow(i).bytes();
        }
        return s;
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
