// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.sinks.clickhouse.ShardKeys;
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
 * The production topology writes into two ClickHouse shards of two replicas each (ZooKeeper), given
 * every URL ({@code ;} between shards) and {@code clickhouse.cluster}; the first replica of the
 * busier shard is killed with {@code kill -9} while the job writes and started again. Afterwards
 * every capture's flows are there exactly once through the {@code Distributed} tables and on the
 * shard of their exporter, both replicas of each shard hold the same {@code flows}, {@code
 * flows_1m} and {@code exporter_stats} rows, and the {@code Distributed} totals are the sums of the
 * shards'.
 */
class ShardKillPipelineITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @RegisterExtension static final MiniClusterExtension FLINK = PipelineHarness.miniCluster();

    @RegisterExtension
    static final ClickHouseClusterExtension CLUSTER = ClickHouseClusterExtension.of(2, 2);

    @Test
    @Timeout(value = 14, unit = TimeUnit.MINUTES)
    void aReplicaOfOneShardKilledWhileTheJobWritesCatchesUpToExactTables() throws Exception {
        LocalClickHouseCluster cluster = CLUSTER.cluster();
        PipelineSettings s = ClusterPipeline.settings(KAFKA, cluster, "shards");
        long[] recordsOnShard = new long[2];
        long records = 0;
        long packets = 0;
        long bytes = 0;
        for (int i = 0; i < CaptureProducer.CAPTURES.size(); i++) {
            CaptureProducer.Capture c = CaptureProducer.CAPTURES.get(i);
            IpAddress exporter = ClusterPipeline.exporter(i);
            recordsOnShard[ShardKeys.shard(ShardKeys.exporter(exporter), 2)] += c.records();
            records += c.records();
            packets += c.packets();
            bytes += c.bytes();
        }
        assertThat(recordsOnShard).as("both shards get exporters").doesNotContain(0L);
        // The first replica of the shard with more exporters.
        LocalClickHouse killed = cluster.server(recordsOnShard[0] >= recordsOnShard[1] ? 0 : 1, 0);
        List<RawDatagram> all = ClusterPipeline.produceCaptures(KAFKA, s);
        String db = "flowhouse_shards";
        ClusterPipeline.runKilling(s, cluster, killed, db + ".flows_local", Duration.ofMinutes(8));

        List<String> tables = List.of("flows_local", "flows_1m_local", "exporter_stats_local");
        List<List<String>> perShard = new ArrayList<>();
        for (int shard = 0; shard < 2; shard++) {
            List<List<String>> replicas = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                LocalClickHouse server = cluster.server(shard, r);
                for (String table : tables) {
                    server.query("SYSTEM SYNC REPLICA " + db + "." + table);
                }
                assertThat(
                                server.query(
                                        "SELECT count(), uniqExact(row_id) FROM "
                                                + db
                                                + ".flows_local FINAL"))
                        .as(server.httpUrl())
                        .containsExactly(recordsOnShard[shard] + "\t" + recordsOnShard[shard]);
                replicas.add(totals(server, db, "_local"));
            }
            assertThat(replicas.get(1))
                    .as("shard %d's replicas", shard + 1)
                    .isEqualTo(replicas.get(0));
            perShard.add(replicas.get(0));
        }
        // Through the Distributed tables, on any server: every flow once, the sums of the shards.
        List<String> sums = new ArrayList<>();
        for (int i = 0; i < perShard.get(0).size(); i++) {
            String[] a = perShard.get(0).get(i).split("\t");
            String[] b = perShard.get(1).get(i).split("\t");
            List<String> cells = new ArrayList<>();
            for (int c = 0; c < a.length; c++) {
                cells.add(Long.toString(Long.parseLong(a[c]) + Long.parseLong(b[c])));
            }
            sums.add(String.join("\t", cells));
        }
        for (LocalClickHouse server : cluster.replicas()) {
            List<String> distributed = totals(server, db, "");
            System.out.println("sharded totals on " + server.httpUrl() + ": " + distributed);
            assertThat(distributed).as(server.httpUrl()).isEqualTo(sums);
            // The ground truth: the captures' records, packets and bytes, every datagram once.
            assertThat(distributed.get(0))
                    .as("flows FINAL")
                    .isEqualTo(records + "\t" + packets + "\t" + bytes);
            assertThat(distributed.get(1))
                    .as("flows_1m FINAL, by input interface")
                    .startsWith(packets + "\t" + bytes + "\t");
            assertThat(distributed.get(2)).as("exporter_stats FINAL").startsWith(all.size() + "\t");
        }
    }

    /** flows, flows_1m and exporter_stats totals after FINAL, of the tables with this suffix. */
    private static List<String> totals(LocalClickHouse server, String db, String suffix) {
        List<String> out = new ArrayList<>();
        out.addAll(
                server.query(
                        "SELECT count(), sum(packets + reverse_packets), sum(bytes + reverse_bytes)"
                                + " FROM "
                                + db
                                + ".flows"
                                + suffix
                                + " FINAL"));
        out.addAll(
                server.query(
                        "SELECT sum(packets), sum(bytes), sum(flows), count() FROM "
                                + db
                                + ".flows_1m"
                                + suffix
                                + " FINAL WHERE kind = 'interface' AND direction = 0"));
        out.addAll(
                server.query(
                        "SELECT sum(datagrams), sum(records), count() FROM "
                                + db
                                + ".exporter_stats"
                                + suffix
                                + " FINAL"));
        return out;
    }
}
