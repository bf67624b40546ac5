// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.ClickHouseClusterExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.clickhouse.LocalClickHouseCluster;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The production topology writes into two replicated ClickHouse servers (one shard, ZooKeeper),
 * given both URLs and {@code clickhouse.cluster}; the first replica is killed with {@code kill -9}
 * while the job writes and started again. After it catches up, both replicas hold the captures'
 * ground truth in {@code flows FINAL}, and the same {@code flows_1m} and {@code exporter_stats}
 * rows, nothing twice.
 */
class ReplicaKillPipelineITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @RegisterExtension static final MiniClusterExtension FLINK = PipelineHarness.miniCluster();

    @RegisterExtension
    static final ClickHouseClusterExtension CLUSTER = ClickHouseClusterExtension.of(1, 2);

    @Test
    @Timeout(value = 12, unit = TimeUnit.MINUTES)
    void aReplicaKilledWhileTheJobWritesCatchesUpToExactTables() throws Exception {
        LocalClickHouseCluster cluster = CLUSTER.cluster();
        LocalClickHouse first = cluster.replica(0);
        PipelineSettings s = ClusterPipeline.settings(KAFKA, cluster, "replicas");
        ClusterPipeline.produceCaptures(KAFKA, s);
        String db = "flowhouse_replicas";
        ClusterPipeline.runKilling(s, cluster, first, db + ".flows", Duration.ofMinutes(6));

        long records = 0;
        for (CaptureProducer.Capture c : CaptureProducer.CAPTURES) {
            records += c.records();
        }
        String flows = "SELECT count(), uniqExact(row_id) FROM " + db + ".flows FINAL";
        List<List<String>> perTable = new ArrayList<>();
        for (LocalClickHouse replica : cluster.replicas()) {
            for (String table : List.of("flows", "flows_1m", "exporter_stats")) {
                replica.query("SYSTEM SYNC REPLICA " + db + "." + table);
            }
            assertThat(replica.query(flows))
                    .as(replica.httpUrl())
                    .containsExactly(records + "\t" + records);
            List<String> tables = new ArrayList<>();
            tables.addAll(
                    replica.query(
                            "SELECT exporter_port, count(), sum(bytes + reverse_bytes) FROM "
                                    + db
                                    + ".flows FINAL GROUP BY exporter_port ORDER BY"
                                    + " exporter_port"));
            tables.addAll(
                    replica.query(
                            "SELECT count(), sum(flows), sum(bytes) FROM "
                                    + db
                                    + ".flows_1m FINAL"));
            tables.addAll(
                    replica.query(
                            "SELECT count(), sum(datagrams), sum(records) FROM "
                                    + db
                                    + ".exporter_stats FINAL"));
            perTable.add(tables);
        }
        assertThat(perTable.get(1)).isEqualTo(perTable.get(0));
        assertThat(perTable.get(0)).hasSize(CaptureProducer.CAPTURES.size() + 2);
    }
}
