// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.clickhouse.LocalClickHouseCluster;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static LocalClickHouseCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = LocalClickHouseCluster.launch(2);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void aReplicaKilledWhileTheJobWritesCatchesUpToExactTables() throws Exception {
        LocalClickHouse first = cluster.replica(0);
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(),
                        first,
                        "replicas",
                        "--kafka.stop",
                        "latest",
                        "--clickhouse.url",
                        cluster.httpUrls(),
                        "--clickhouse.cluster",
                        LocalClickHouseCluster.CLUSTER,
                        "--clickhouse.batch-size",
                        "500");
        List<RawDatagram> all = new ArrayList<>();
        for (int i = 0; i < CaptureProducer.CAPTURES.size(); i++) {
            all.addAll(
                    CaptureProducer.datagrams(
                            CaptureProducer.CAPTURES.get(i).file(),
                            IpAddress.parse("192.0.2." + (10 + i)),
                            40_000 + i));
        }
        KAFKA.createTopic(s.rawTopic(), 4);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), all);

        JobClient job = PipelineHarness.environment(s, first).executeAsync("replica kill");
        String db = "flowhouse_replicas";
        awaitRows(first, "SELECT count() > 0 FROM " + db + ".flows", "1");
        first.kill();
        Thread.sleep(5_000);
        first.start();
        job.getJobExecutionResult().get(6, TimeUnit.MINUTES);

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

    private static void awaitRows(LocalClickHouse replica, String sql, String want)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (replica.query(sql).equals(List.of(want))) {
                    return;
                }
            } catch (RuntimeException e) {
                // the table is not there yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no rows in time: " + sql);
    }
}
