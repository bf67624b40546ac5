// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServicesConfigTest {

    @TempDir Path root;

    @Test
    void defaultsAreTheStandardPorts() {
        ServicesConfig config = resolve(Map.of(), List.of(), false);

        assertThat(config.kafkaBootstrap()).isEqualTo("127.0.0.1:9092");
        assertThat(config.clickhouseUrl()).isEqualTo("http://127.0.0.1:8123");
        assertThat(config.clickhouseNativePort()).isEqualTo(9000);
        assertThat(config.flinkRestUrl()).isEqualTo("http://localhost:8081");
        assertThat(config.stateDir()).isEqualTo(root.resolve(".flowhouse"));
        assertThat(config.kafkaLib()).isEqualTo(root.resolve("dist/kafka/target/lib"));
    }

    @Test
    void flagsBeatEnvironmentWhichBeatsDefaults() {
        ServicesConfig config =
                resolve(
                        Map.of(
                                "FLOWHOUSE_KAFKA_PORT",
                                "19092",
                                "FLOWHOUSE_FLINK_REST_PORT",
                                "18081"),
                        List.of("--kafka-port", "29092"),
                        false);

        assertThat(config.kafkaPort()).isEqualTo(29092);
        assertThat(config.flinkRestPort()).isEqualTo(18081);
        assertThat(config.clickhouseHttpPort()).isEqualTo(8123);
    }

    @Test
    void savedPortsOfARunningSetBeatTheEnvironmentButNotFlags() {
        resolve(
                        Map.of(),
                        List.of("--clickhouse-http-port", "18123", "--kafka-port", "19092"),
                        false)
                .save();

        ServicesConfig status =
                resolve(
                        Map.of("FLOWHOUSE_CLICKHOUSE_HTTP_PORT", "7777"),
                        List.of("--kafka-port", "5"),
                        true);

        assertThat(status.clickhouseHttpPort()).isEqualTo(18123);
        assertThat(status.kafkaPort()).isEqualTo(5);
    }

    @Test
    void taskManagersComeFromTheirVariableAndAreSavedForStatusAndDown() {
        assertThat(resolve(Map.of(), List.of(), false).flinkTaskManagers()).isEqualTo(1);
        resolve(Map.of("FLOWHOUSE_FLINK_TASKMANAGERS", "3"), List.of("--flink-slots", "4"), false)
                .save();

        ServicesConfig status = resolve(Map.of(), List.of(), true);
        assertThat(status.flinkTaskManagers()).isEqualTo(3);
        assertThat(status.flinkSlots()).isEqualTo(4);
        assertThat(status.withTaskManagers(2, 1))
                .extracting(ServicesConfig::flinkTaskManagers, ServicesConfig::flinkSlots)
                .containsExactly(2, 1);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                resolve(
                                        Map.of("FLOWHOUSE_FLINK_TASKMANAGERS", "17"),
                                        List.of(),
                                        false))
                .hasMessageContaining("FLOWHOUSE_FLINK_TASKMANAGERS");
    }

    @Test
    void prometheusCanBeSwitchedOff() {
        assertThat(
                        resolve(Map.of(), List.of("--flink-prometheus-ports", "none"), false)
                                .flinkPrometheusPorts())
                .isEmpty();
        assertThat(resolve(Map.of(), List.of(), false).flinkPrometheusPorts())
                .isEqualTo("9249-9259");
    }

    private ServicesConfig resolve(Map<String, String> env, List<String> args, boolean useSaved) {
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i += 2) {
            flags.put(args.get(i).substring(2), args.get(i + 1));
        }
        return ServicesConfig.resolve(root, root.resolve(".flowhouse"), env, flags, useSaved);
    }

    @Test
    void badValuesNameTheFlagOrVariableAndTheKey() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> resolve(Map.of(), List.of("--kafka-port", "0"), false))
                .hasMessage("--kafka-port 0 (expected: 1..65535), key kafka-port");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> resolve(Map.of("FLOWHOUSE_FLINK_SLOTS", "x"), List.of(), false))
                .hasMessageContaining("env FLOWHOUSE_FLINK_SLOTS");
        assertThat(
                        resolve(Map.of("FLOWHOUSE_START_TIMEOUT", "300"), List.of(), false)
                                .startTimeout())
                .isEqualTo(java.time.Duration.ofMinutes(5));
        assertThat(resolve(Map.of("FLOWHOUSE_KAFKA_PORT", ""), List.of(), false).kafkaPort())
                .isEqualTo(9092);
    }

    @Test
    void clickhouseReplicasAreOneShardWithZooKeeperLastOfTheirKind() throws Exception {
        ServicesConfig one = resolve(Map.of(), List.of(), false);
        assertThat(one.clickhouseUrls()).isEqualTo("http://127.0.0.1:8123");
        assertThat(one.clickhouseCluster()).isEmpty();
        assertThat(new ServicesManager(one).instances(ServiceKind.CLICKHOUSE)).isEqualTo(1);

        ServicesConfig two = resolve(Map.of(), List.of("--clickhouse-replicas", "2"), false);
        assertThat(two.clickhouseUrls()).isEqualTo("http://127.0.0.1:8123,http://127.0.0.1:8124");
        assertThat(two.clickhouseCluster()).isEqualTo("flowhouse");
        ServicesManager manager = new ServicesManager(two);
        assertThat(manager.instances(ServiceKind.CLICKHOUSE)).isEqualTo(3);
        assertThat(manager.status(ServiceKind.CLICKHOUSE, 0).name()).isEqualTo("clickhouse");
        assertThat(manager.status(ServiceKind.CLICKHOUSE, 1).name()).isEqualTo("clickhouse-2");
        assertThat(manager.status(ServiceKind.CLICKHOUSE, 2).name()).isEqualTo("zookeeper");
        assertThat(manager.topology())
                .endsWith(
                        "2 ClickHouse server(s) (replicas of cluster flowhouse, ZooKeeper 127.0.0.1:2181)");
        String cluster =
                io.flowhouse.services.clickhouse.ClickHouseServer.forServices(two, 1)
                        .cluster()
                        .orElseThrow()
                        .xml();
        assertThat(cluster)
                .contains("<replica>r2</replica>")
                .contains("<port>9000</port>")
                .contains("<port>9001</port>")
                .contains("<interserver_http_port>9010</interserver_http_port>")
                .contains("<node><host>127.0.0.1</host><port>2181</port></node>");
    }

    @Test
    void clickhouseShardsAreShardsTimesReplicasWithOneClusterAndZooKeeper() throws Exception {
        ServicesConfig config =
                resolve(
                        Map.of(),
                        List.of("--clickhouse-shards", "2", "--clickhouse-replicas", "2"),
                        false);
        assertThat(config.clickhouseServers()).isEqualTo(4);
        assertThat(config.clickhouseUrls())
                .isEqualTo(
                        "http://127.0.0.1:8123,http://127.0.0.1:8124;"
                                + "http://127.0.0.1:8125,http://127.0.0.1:8126");
        assertThat(config.clickhouseCluster()).isEqualTo("flowhouse");
        ServicesManager manager = new ServicesManager(config);
        assertThat(manager.instances(ServiceKind.CLICKHOUSE)).isEqualTo(5);
        assertThat(manager.status(ServiceKind.CLICKHOUSE, 3).name()).isEqualTo("clickhouse-4");
        assertThat(manager.status(ServiceKind.CLICKHOUSE, 4).name()).isEqualTo("zookeeper");
        assertThat(manager.topology())
                .endsWith(
                        "4 ClickHouse server(s) (2 shards x 2 replica(s) of cluster flowhouse,"
                                + " ZooKeeper 127.0.0.1:2181)");
        String third =
                io.flowhouse.services.clickhouse.ClickHouseServer.forServices(config, 2)
                        .cluster()
                        .orElseThrow()
                        .xml();
        assertThat(third)
                .contains("<shard>02</shard>")
                .contains("<replica>r1</replica>")
                .contains("<interserver_http_port>9011</interserver_http_port>");
        // Both shards in remote_servers, each with its two replicas.
        assertThat(third.split("<shard>\\n", -1)).hasSize(3);
        assertThat(third).contains("<port>9000</port>").contains("<port>9003</port>");

        // One shard of one server: no cluster.
        ServicesConfig single = resolve(Map.of(), List.of("--clickhouse-shards", "1"), false);
        assertThat(single.clickhouseCluster()).isEmpty();
        // Two shards of one server each: still a cluster (Distributed needs remote_servers).
        ServicesConfig twoShards = resolve(Map.of(), List.of("--clickhouse-shards", "2"), false);
        assertThat(twoShards.clickhouseUrls())
                .isEqualTo("http://127.0.0.1:8123;http://127.0.0.1:8124");
        assertThat(twoShards.clickhouseCluster()).isEqualTo("flowhouse");
    }
}
