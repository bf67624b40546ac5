// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    @Test
    void aClusterNameIsAnIdentifier() {
        assertThatThrownBy(() -> new ClusterDdl("a b"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
