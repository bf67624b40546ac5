// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import io.flowhouse.config.ValueType;
import io.flowhouse.services.clickhouse.ClickHouseServer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;

/**
 * Where the local services run, declared once: one state directory and one port per listener, each
 * with its flag ({@code --kafka-port}) and its environment variable as it was before the schema
 * ({@code FLOWHOUSE_KAFKA_PORT}). {@link ServicesConfig#resolve} turns them into the record; the
 * table in {@code local-services/README.md} is generated from these declarations.
 */
public final class ServicesKeys {

    /** {@code 9249-9259}, or {@code none}/{@code off} (kept as the empty text) for no reporter. */
    private static final ValueType<String> PORT_RANGE =
            ValueType.of(
                    "port range N-M, or none",
                    text -> {
                        String t = text.trim();
                        String l = t.toLowerCase(Locale.ROOT);
                        return l.equals("none") || l.equals("off") ? "" : t;
                    },
                    s -> s.isEmpty() ? "none" : s);

    public static final Key<Path> STATE_DIR =
            Key.of("state-dir", Types.PATH)
                    .defaultText("./.flowhouse")
                    .doc("Configs, data, pid files and logs of every service.")
                    .flag("--state-dir", "DIR")
                    .env("FLOWHOUSE_STATE_DIR");

    public static final Key<Integer> KAFKA_PORT =
            port("kafka-port", ServicesConfig.DEFAULT_KAFKA_PORT, "Kafka client listener.");

    public static final Key<Integer> KAFKA_CONTROLLER_PORT =
            port(
                    "kafka-controller-port",
                    ServicesConfig.DEFAULT_KAFKA_CONTROLLER_PORT,
                    "KRaft controller listener.");

    public static final Key<Integer> KAFKA_PARTITIONS =
            Key.of("kafka-partitions", Types.integer(1, 10_000))
                    .defaultValue(4)
                    .doc("Partitions of auto-created topics.")
                    .flag("--kafka-partitions", "N")
                    .env("FLOWHOUSE_KAFKA_PARTITIONS");

    public static final Key<Integer> KAFKA_BROKERS =
            Key.of("kafka-brokers", Types.integer(1, 9))
                    .defaultValue(1)
                    .doc(
                            "Kafka KRaft nodes, each broker and controller in its own JVM; node i"
                                    + " (from 0) listens on kafka-port + 2i and"
                                    + " kafka-controller-port + 2i. Topics get replication factor"
                                    + " min(3, N) and, from 3 nodes, min.insync.replicas 2.")
                    .flag("--kafka-brokers", "N")
                    .env("FLOWHOUSE_KAFKA_BROKERS");

    public static final Key<Integer> CLICKHOUSE_HTTP_PORT =
            port(
                    "clickhouse-http-port",
                    ServicesConfig.DEFAULT_CLICKHOUSE_HTTP_PORT,
                    "ClickHouse HTTP interface.");

    public static final Key<Integer> CLICKHOUSE_NATIVE_PORT =
            port(
                    "clickhouse-native-port",
                    ServicesConfig.DEFAULT_CLICKHOUSE_NATIVE_PORT,
                    "ClickHouse native protocol.");

    public static final Key<Path> CLICKHOUSE_BINARY =
            Key.of("clickhouse-binary", Types.PATH)
                    .defaultComputed(
                            ClickHouseServer::defaultBinary,
                            "/usr/bin/clickhouse-server, else the PATH's")
                    .doc("The clickhouse-server executable.")
                    .flag("--clickhouse-binary", "PATH")
                    .env("FLOWHOUSE_CLICKHOUSE_BINARY");

    public static final Key<Integer> FLINK_REST_PORT =
            port(
                    "flink-rest-port",
                    ServicesConfig.DEFAULT_FLINK_REST_PORT,
                    "Flink REST API and web UI.");

    public static final Key<Integer> FLINK_RPC_PORT =
            port(
                    "flink-rpc-port",
                    ServicesConfig.DEFAULT_FLINK_RPC_PORT,
                    "Flink JobManager RPC (TaskManagers register here).");

    public static final Key<Integer> CLICKHOUSE_REPLICAS =
            Key.of("clickhouse-replicas", Types.integer(1, 4))
                    .defaultValue(1)
                    .doc(
                            "ClickHouse servers of each shard, its replicas (cluster flowhouse,"
                                    + " ZooKeeper on zookeeper-port); server i (from 0, shard"
                                    + " after shard) on clickhouse-http-port + i,"
                                    + " clickhouse-native-port + i and interserver port 9009 +"
                                    + " i. 1 with 1 shard: one server, no ZooKeeper.")
                    .flag("--clickhouse-replicas", "N")
                    .env("FLOWHOUSE_CLICKHOUSE_REPLICAS");

    public static final Key<Integer> CLICKHOUSE_SHARDS =
            Key.of("clickhouse-shards", Types.integer(1, 4))
                    .defaultValue(1)
                    .doc(
                            "ClickHouse shards, each of clickhouse-replicas servers. From 2: a"
                                    + " *_local table per shard under a Distributed table of"
                                    + " today's name, rows placed by exporter.")
                    .flag("--clickhouse-shards", "N")
                    .env("FLOWHOUSE_CLICKHOUSE_SHARDS");

    public static final Key<Integer> ZOOKEEPER_PORT =
            port(
                    "zookeeper-port",
                    2181,
                    "ZooKeeper's client port, with 2 or more ClickHouse servers.");

    public static final Key<Integer> FLINK_SLOTS =
            Key.of("flink-slots", Types.integer(1, 256))
                    .defaultValue(2)
                    .doc("Task slots of each TaskManager.")
                    .flag("--flink-slots", "N")
                    .env("FLOWHOUSE_FLINK_SLOTS");

    public static final Key<Integer> FLINK_TASKMANAGERS =
            Key.of("flink-taskmanagers", Types.integer(1, 16))
                    .defaultValue(1)
                    .doc(
                            "TaskManager processes of the standalone cluster, each with"
                                    + " flink-slots slots.")
                    .flag("--taskmanagers", "N")
                    .env("FLOWHOUSE_FLINK_TASKMANAGERS");

    public static final Key<String> FLINK_PROMETHEUS_PORTS =
            Key.of("flink-prometheus-ports", PORT_RANGE)
                    .defaultValue("9249-9259")
                    .doc("Ports of Flink's Prometheus reporter; none switches it off.")
                    .flag("--flink-prometheus-ports", "R")
                    .env("FLOWHOUSE_FLINK_PROMETHEUS_PORTS");

    public static final Key<Duration> START_TIMEOUT =
            Key.of(
                            "start-timeout",
                            Types.duration(
                                    ChronoUnit.SECONDS, Duration.ofSeconds(1), Duration.ofHours(1)))
                    .defaultValue(Duration.ofSeconds(120))
                    .doc("How long up waits for each service to answer (a bare number: seconds).")
                    .flag("--start-timeout", "SECONDS")
                    .env("FLOWHOUSE_START_TIMEOUT");

    /** In declaration order. */
    public static final List<Key<?>> KEYS =
            List.of(
                    STATE_DIR,
                    KAFKA_PORT,
                    KAFKA_CONTROLLER_PORT,
                    KAFKA_PARTITIONS,
                    KAFKA_BROKERS,
                    CLICKHOUSE_HTTP_PORT,
                    CLICKHOUSE_NATIVE_PORT,
                    CLICKHOUSE_BINARY,
                    CLICKHOUSE_REPLICAS,
                    CLICKHOUSE_SHARDS,
                    ZOOKEEPER_PORT,
                    FLINK_REST_PORT,
                    FLINK_RPC_PORT,
                    FLINK_SLOTS,
                    FLINK_TASKMANAGERS,
                    FLINK_PROMETHEUS_PORTS,
                    START_TIMEOUT);

    public static final ConfigSchema SCHEMA =
            ConfigSchema.of("flowhouse.services", "local services", KEYS);

    private ServicesKeys() {}

    private static Key<Integer> port(String name, int defaultPort, String doc) {
        return Key.of(name, Types.integer(1, 65_535))
                .defaultValue(defaultPort)
                .doc(doc + " On 127.0.0.1.")
                .flag("--" + name, "N")
                .env("FLOWHOUSE_" + name.toUpperCase(Locale.ROOT).replace('-', '_'));
    }
}
