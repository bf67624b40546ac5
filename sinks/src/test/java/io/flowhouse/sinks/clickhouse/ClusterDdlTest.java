// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterDdlTest {

    private static final ClusterDdl CLUSTER = new ClusterDdl("flowhouse");

    @Test
    void withoutAClusterNothingChanges() {
        String create =
                "CREATE TABLE IF NOT EXISTS db.t (a UInt8) ENGINE = ReplacingMergeTree ORDER BY a";
        assertThat(ClusterDdl.NONE.apply(create)).isEqualTo(create);
        assertThat(ClusterDdl.NONE.enabled()).isFalse();
    }

    @Test
    void tablesGetOnClusterAndTheReplicatedEngineWithTheirArguments() {
        assertThat(
                        CLUSTER.apply(
                                "CREATE TABLE IF NOT EXISTS db.stats\n(\n    v UInt64\n)\n"
                                        + "ENGINE = ReplacingMergeTree(updated_at)\nORDER BY v"))
                .isEqualTo(
                        "CREATE TABLE IF NOT EXISTS db.stats ON CLUSTER flowhouse\n(\n"
                                + "    v UInt64\n)\nENGINE = ReplicatedReplacingMergeTree("
                                + "'/clickhouse/tables/{shard}/db.stats', '{replica}',"
                                + " updated_at)\nORDER BY v");
        assertThat(CLUSTER.apply("CREATE TABLE db.t (a UInt8) ENGINE = MergeTree ORDER BY a"))
                .isEqualTo(
                        "CREATE TABLE db.t ON CLUSTER flowhouse (a UInt8) ENGINE ="
                                + " ReplicatedMergeTree('/clickhouse/tables/{shard}/db.t',"
                                + " '{replica}') ORDER BY a");
    }

    @Test
    void otherDdlGetsOnClusterAndDataPassesUnchanged() {
        assertThat(CLUSTER.apply("CREATE DATABASE IF NOT EXISTS db"))
                .isEqualTo("CREATE DATABASE IF NOT EXISTS db ON CLUSTER flowhouse");
        assertThat(CLUSTER.apply("ALTER TABLE db.flows ADD COLUMN x UInt8 AFTER y"))
                .isEqualTo("ALTER TABLE db.flows ON CLUSTER flowhouse ADD COLUMN x UInt8 AFTER y");
        assertThat(CLUSTER.apply("DROP TABLE IF EXISTS db.v2"))
                .isEqualTo("DROP TABLE IF EXISTS db.v2 ON CLUSTER flowhouse");
        assertThat(CLUSTER.apply("CREATE VIEW IF NOT EXISTS db.r AS\nSELECT 1"))
                .isEqualTo("CREATE VIEW IF NOT EXISTS db.r ON CLUSTER flowhouse AS\nSELECT 1");
        assertThat(CLUSTER.apply("RENAME TABLE db.a TO db.b,\n    db.c TO db.a"))
                .isEqualTo("RENAME TABLE db.a TO db.b,\n    db.c TO db.a ON CLUSTER flowhouse");
        String insert = "INSERT INTO db.b SELECT * FROM db.a";
        assertThat(CLUSTER.apply(insert)).isEqualTo(insert);
        // 18.16's DDL queue refuses MODIFY ORDER BY; replication carries it instead.
        String order = "ALTER TABLE db.f ADD COLUMN h UInt64, MODIFY ORDER BY (a, h)";
        assertThat(CLUSTER.apply(order)).isEqualTo(order);
    }

    private static final ClusterDdl SHARDED = new ClusterDdl("flowhouse", true);

    private static List<String> once(List<ClusterDdl.Step> steps) {
        assertThat(steps).allMatch(step -> step.scope() == ClusterDdl.Scope.ONCE);
        return steps.stream().map(ClusterDdl.Step::sql).toList();
    }

    @Test
    void withShardsATableIsALocalReplicatedTableUnderADistributedOne() {
        assertThat(
                        once(
                                SHARDED.plan(
                                        "CREATE TABLE IF NOT EXISTS db.stats (v UInt64,"
                                                + " exporter FixedString(16))"
                                                + " ENGINE = ReplacingMergeTree(updated_at)"
                                                + " ORDER BY v")))
                .containsExactly(
                        "CREATE TABLE IF NOT EXISTS db.stats_local ON CLUSTER flowhouse (v UInt64,"
                                + " exporter FixedString(16))"
                                + " ENGINE = ReplicatedReplacingMergeTree("
                                + "'/clickhouse/tables/{shard}/db.stats_local', '{replica}',"
                                + " updated_at) ORDER BY v",
                        "CREATE TABLE IF NOT EXISTS db.stats ON CLUSTER flowhouse AS"
                                + " db.stats_local ENGINE = Distributed(flowhouse, db,"
                                + " stats_local, halfMD5(hex(IPv6StringToNum(IPv6NumToString("
                                + "exporter)))))");
        // Without an exporter column: no sharding key (an insert through it is refused).
        assertThat(
                        once(
                                SHARDED.plan(
                                        "CREATE TABLE db.t (a UInt8, exporter_port UInt16)"
                                                + " ENGINE = MergeTree ORDER BY a")))
                .last()
                .isEqualTo(
                        "CREATE TABLE db.t ON CLUSTER flowhouse AS db.t_local ENGINE ="
                                + " Distributed(flowhouse, db, t_local)");
        assertThat(SHARDED.writeTable("stats")).isEqualTo("stats_local");
        assertThat(ClusterDdl.NONE.writeTable("stats")).isEqualTo("stats");
        assertThat(CLUSTER.writeTable("stats")).isEqualTo("stats");
    }

    @Test
    void withShardsTheLedgerAndAsNamesAreWholeOnEveryServer() {
        assertThat(
                        once(
                                SHARDED.plan(
                                        "CREATE TABLE IF NOT EXISTS db.schema_migrations"
                                                + " (version UInt32) ENGINE = ReplacingMergeTree"
                                                + " ORDER BY version")))
                .containsExactly(
                        "CREATE TABLE IF NOT EXISTS db.schema_migrations ON CLUSTER flowhouse"
                                + " (version UInt32) ENGINE = ReplicatedReplacingMergeTree("
                                + "'/clickhouse/tables/all/db.schema_migrations',"
                                + " '{shard}_{replica}') ORDER BY version");
        assertThat(SHARDED.writeTable("as_names")).isEqualTo("as_names");
    }

    @Test
    void withShardsAltersChangeBothAndOrderByRunsOncePerShard() {
        // 18.16 refuses ALTER ON CLUSTER of the Distributed table: it runs on each server.
        assertThat(SHARDED.plan("ALTER TABLE db.flows ADD COLUMN x UInt8 AFTER y"))
                .containsExactly(
                        new ClusterDdl.Step(
                                "ALTER TABLE db.flows_local ADD COLUMN x UInt8 AFTER y",
                                ClusterDdl.Scope.EACH_SHARD),
                        new ClusterDdl.Step(
                                "ALTER TABLE db.flows ADD COLUMN x UInt8 AFTER y",
                                ClusterDdl.Scope.EACH_SERVER));
        assertThat(
                        SHARDED.plan(
                                "ALTER TABLE db.f ADD COLUMN h UInt64 AFTER g,"
                                        + " MODIFY ORDER BY (a, h)"))
                .containsExactly(
                        new ClusterDdl.Step(
                                "ALTER TABLE db.f_local ADD COLUMN h UInt64 AFTER g,"
                                        + " MODIFY ORDER BY (a, h)",
                                ClusterDdl.Scope.EACH_SHARD),
                        new ClusterDdl.Step(
                                "ALTER TABLE db.f ADD COLUMN h UInt64 AFTER g",
                                ClusterDdl.Scope.EACH_SERVER));
    }

    @Test
    void withShardsCopiesStayOnTheirShardAndRenamesMoveTheLocalTables() {
        assertThat(SHARDED.plan("INSERT INTO db.stats_v005\nSELECT a, b FROM db.stats"))
                .containsExactly(
                        new ClusterDdl.Step(
                                "INSERT INTO db.stats_v005_local\nSELECT a, b FROM db.stats_local",
                                ClusterDdl.Scope.EACH_SHARD));
        assertThat(
                        once(
                                SHARDED.plan(
                                        "RENAME TABLE db.stats TO db.stats_v002,\n"
                                                + "    db.stats_v005 TO db.stats")))
                .containsExactly(
                        "RENAME TABLE db.stats_local TO db.stats_v002_local,\n"
                                + "    db.stats_v005_local TO db.stats_local ON CLUSTER"
                                + " flowhouse");
        assertThat(once(SHARDED.plan("DROP TABLE IF EXISTS db.stats_v002")))
                .containsExactly(
                        "DROP TABLE IF EXISTS db.stats_v002 ON CLUSTER flowhouse",
                        "DROP TABLE IF EXISTS db.stats_v002_local ON CLUSTER flowhouse");
        assertThat(once(SHARDED.plan("CREATE VIEW IF NOT EXISTS db.r AS\nSELECT 1 FROM db.flows")))
                .containsExactly(
                        "CREATE VIEW IF NOT EXISTS db.r ON CLUSTER flowhouse AS\n"
                                + "SELECT 1 FROM db.flows");
        assertThat(once(SHARDED.plan("CREATE DATABASE IF NOT EXISTS db")))
                .containsExactly("CREATE DATABASE IF NOT EXISTS db ON CLUSTER flowhouse");
    }

    @Test
    void oneShardPlansWhatApplyGives() {
        String order = "ALTER TABLE db.f ADD COLUMN h UInt64, MODIFY ORDER BY (a, h)";
        assertThat(CLUSTER.plan(order))
                .containsExactly(new ClusterDdl.Step(order, ClusterDdl.Scope.EACH_SHARD));
        String create = "CREATE TABLE db.t (a UInt8) ENGINE = MergeTree ORDER BY a";
        assertThat(CLUSTER.plan(create))
                .containsExactly(new ClusterDdl.Step(CLUSTER.apply(create), ClusterDdl.Scope.ONCE));
        assertThat(ClusterDdl.NONE.plan(order))
                .containsExactly(new ClusterDdl.Step(order, ClusterDdl.Scope.ONCE));
    }

    @Test
    void aClusterNameIsAnIdentifier() {
        assertThatThrownBy(() -> new ClusterDdl("a b"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
