// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigResolver;
import io.flowhouse.config.Key;
import io.flowhouse.services.clickhouse.ClickHousePassword;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * Where the local services run: one state directory and one port per listener ({@link
 * ServicesKeys}). Built from defaults, then the environment ({@code FLOWHOUSE_KAFKA_PORT}, ...),
 * then the ports saved by the last {@code services up} ({@code services.properties} in the state
 * directory), then flags.
 *
 * @param rootDir the checkout; {@code dist/kafka/target/lib} and {@code dist/flink/target/lib} are
 *     the broker's and the cluster's class paths
 * @param stateDir configs, data, pid files and logs of every service
 * @param javaBin the {@code java} executable for the service JVMs
 * @param kafkaPort client listener on 127.0.0.1
 * @param kafkaControllerPort KRaft controller listener on 127.0.0.1
 * @param kafkaPartitions partitions of auto-created topics
 * @param kafkaBrokers KRaft nodes (broker and controller each); node {@code i} (from 0) listens on
 *     {@code kafkaPort + 2i} and {@code kafkaControllerPort + 2i}
 * @param clickhouseHttpPort HTTP interface on 127.0.0.1
 * @param clickhouseNativePort native protocol on 127.0.0.1
 * @param clickhouseBinary the {@code clickhouse-server} executable
 * @param clickhouseReplicas ClickHouse servers of each shard; server {@code i} (from 0, shard after
 *     shard) listens on {@code clickhouseHttpPort + i}, {@code clickhouseNativePort + i} and
 *     interserver port {@code 9009 + i}
 * @param clickhouseShards ClickHouse shards, each of {@code clickhouseReplicas} servers; from 2
 *     servers in all they form cluster {@value #CLICKHOUSE_CLUSTER}, with ZooKeeper
 * @param zookeeperPort ZooKeeper's client port on 127.0.0.1 (with 2 or more servers)
 * @param flinkRestPort the JobManager's REST API and web UI on localhost
 * @param flinkRpcPort the JobManager's RPC port (TaskManagers register here)
 * @param flinkSlots task slots of each TaskManager
 * @param flinkTaskManagers TaskManager processes of the standalone cluster
 * @param flinkPrometheusPorts port range of Flink's Prometheus reporter, empty for none
 * @param startTimeout how long {@code up} waits for each service to answer
 * @param stopTimeout how long {@code down} waits after SIGTERM before SIGKILL
 */
public record ServicesConfig(
        Path rootDir,
        Path stateDir,
        String javaBin,
        int kafkaPort,
        int kafkaControllerPort,
        int kafkaPartitions,
        int kafkaBrokers,
        int clickhouseHttpPort,
        int clickhouseNativePort,
        Path clickhouseBinary,
        int clickhouseReplicas,
        int clickhouseShards,
        int zookeeperPort,
        int flinkRestPort,
        int flinkRpcPort,
        int flinkSlots,
        int flinkTaskManagers,
        String flinkPrometheusPorts,
        Duration startTimeout,
        Duration stopTimeout) {

    public static final int DEFAULT_KAFKA_PORT = 9092;
    public static final int DEFAULT_KAFKA_CONTROLLER_PORT = 9093;
    public static final int DEFAULT_CLICKHOUSE_HTTP_PORT = 8123;
    public static final int DEFAULT_CLICKHOUSE_NATIVE_PORT = 9000;
    public static final int DEFAULT_FLINK_REST_PORT = 8081;
    public static final int DEFAULT_FLINK_RPC_PORT = 6123;

    /** The file in the state directory that records the ports of the running services. */
    public static final String SAVED_FILE = "services.properties";

    public ServicesConfig {
        Objects.requireNonNull(rootDir, "rootDir");
        Objects.requireNonNull(stateDir, "stateDir");
        Objects.requireNonNull(javaBin, "javaBin");
        Objects.requireNonNull(clickhouseBinary, "clickhouseBinary");
        Objects.requireNonNull(flinkPrometheusPorts, "flinkPrometheusPorts");
        Objects.requireNonNull(startTimeout, "startTimeout");
        Objects.requireNonNull(stopTimeout, "stopTimeout");
        rootDir = rootDir.toAbsolutePath().normalize();
        stateDir = stateDir.toAbsolutePath().normalize();
    }

    /** Defaults: the standard ports, {@code ROOT/.flowhouse}, the running JVM's java. */
    public static ServicesConfig defaults(Path rootDir) {
        return from(
                rootDir,
                rootDir.resolve(".flowhouse"),
                ConfigResolver.of(ServicesKeys.SCHEMA).resolve());
    }

    /**
     * Defaults, then {@code env}, then the saved ports of a running set of services (when {@code
     * useSaved}), then {@code flags} (key names of {@link ServicesKeys}, without {@code --}).
     *
     * @throws io.flowhouse.config.ConfigException naming the setting and where it came from, when a
     *     value is not valid
     */
    public static ServicesConfig resolve(
            Path rootDir,
            Path defaultStateDir,
            Map<String, String> env,
            Map<String, String> flags,
            boolean useSaved) {
        ConfigResolver r = ConfigResolver.of(ServicesKeys.SCHEMA).env(env);
        flags.forEach((name, value) -> r.flag(name, value, "--" + name));
        return resolve(rootDir, defaultStateDir, r, useSaved);
    }

    /**
     * The keys of {@code resolver} (defaults, environment, flags: a command's {@code ConfigFlags}),
     * with the saved ports of a running set of services over the environment when {@code useSaved}.
     */
    public static ServicesConfig resolve(
            Path rootDir, Path defaultStateDir, ConfigResolver resolver, boolean useSaved) {
        Config c = resolver.resolve();
        if (useSaved) {
            Path stateDir = stateDir(c, defaultStateDir);
            Path saved = stateDir.resolve(SAVED_FILE);
            if (Files.isRegularFile(saved)) {
                Properties props = new Properties();
                try (InputStream in = Files.newInputStream(saved)) {
                    props.load(in);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read " + saved, e);
                }
                for (String name : props.stringPropertyNames()) {
                    Key<?> key = ServicesKeys.SCHEMA.find(name);
                    if (key != null && key != ServicesKeys.STATE_DIR) {
                        resolver.recorded(key, props.getProperty(name), "saved " + saved);
                    }
                }
                c = resolver.resolve();
            }
        }
        return from(rootDir, defaultStateDir, c);
    }

    private static Path stateDir(Config c, Path defaultStateDir) {
        Path configured = c.get(ServicesKeys.STATE_DIR);
        return configured != null ? configured : defaultStateDir;
    }

    private static ServicesConfig from(Path rootDir, Path defaultStateDir, Config c) {
        return new ServicesConfig(
                rootDir,
                stateDir(c, defaultStateDir),
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                c.get(ServicesKeys.KAFKA_PORT),
                c.get(ServicesKeys.KAFKA_CONTROLLER_PORT),
                c.get(ServicesKeys.KAFKA_PARTITIONS),
                c.get(ServicesKeys.KAFKA_BROKERS),
                c.get(ServicesKeys.CLICKHOUSE_HTTP_PORT),
                c.get(ServicesKeys.CLICKHOUSE_NATIVE_PORT),
                c.get(ServicesKeys.CLICKHOUSE_BINARY),
                c.get(ServicesKeys.CLICKHOUSE_REPLICAS),
                c.get(ServicesKeys.CLICKHOUSE_SHARDS),
                c.get(ServicesKeys.ZOOKEEPER_PORT),
                c.get(ServicesKeys.FLINK_REST_PORT),
                c.get(ServicesKeys.FLINK_RPC_PORT),
                c.get(ServicesKeys.FLINK_SLOTS),
                c.get(ServicesKeys.FLINK_TASKMANAGERS),
                c.get(ServicesKeys.FLINK_PROMETHEUS_PORTS),
                c.get(ServicesKeys.START_TIMEOUT),
                Duration.ofSeconds(30));
    }

    /** Records the ports in {@code stateDir/services.properties} for status, query and down. */
    public void save() {
        Properties props = new Properties();
        writeTo(props);
        Path file = stateDir.resolve(SAVED_FILE);
        try {
            Files.createDirectories(stateDir);
            try (OutputStream out = Files.newOutputStream(file)) {
                props.store(out, "written by ./flowhouse services up");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private void writeTo(Properties props) {
        props.setProperty("state-dir", stateDir.toString());
        props.setProperty("kafka-port", Integer.toString(kafkaPort));
        props.setProperty("kafka-controller-port", Integer.toString(kafkaControllerPort));
        props.setProperty("kafka-partitions", Integer.toString(kafkaPartitions));
        props.setProperty("kafka-brokers", Integer.toString(kafkaBrokers));
        props.setProperty("clickhouse-http-port", Integer.toString(clickhouseHttpPort));
        props.setProperty("clickhouse-native-port", Integer.toString(clickhouseNativePort));
        props.setProperty("clickhouse-binary", clickhouseBinary.toString());
        props.setProperty("clickhouse-replicas", Integer.toString(clickhouseReplicas));
        props.setProperty("clickhouse-shards", Integer.toString(clickhouseShards));
        props.setProperty("zookeeper-port", Integer.toString(zookeeperPort));
        props.setProperty("flink-rest-port", Integer.toString(flinkRestPort));
        props.setProperty("flink-rpc-port", Integer.toString(flinkRpcPort));
        props.setProperty("flink-slots", Integer.toString(flinkSlots));
        props.setProperty("flink-taskmanagers", Integer.toString(flinkTaskManagers));
        props.setProperty(
                "flink-prometheus-ports",
                flinkPrometheusPorts.isEmpty() ? "none" : flinkPrometheusPorts);
        props.setProperty("start-timeout", Long.toString(startTimeout.toSeconds()));
    }

    public ServicesConfig withStateDir(Path value) {
        return with(d -> d.stateDir = value);
    }

    /**
     * The same settings on other ports, for tests that must not clash with a developer's running
     * services.
     */
    public ServicesConfig withPorts(
            int kafka,
            int kafkaController,
            int clickhouseHttp,
            int clickhouseNative,
            int flinkRest,
            int flinkRpc) {
        return with(
                d -> {
                    d.kafkaPort = kafka;
                    d.kafkaControllerPort = kafkaController;
                    d.clickhouseHttpPort = clickhouseHttp;
                    d.clickhouseNativePort = clickhouseNative;
                    d.flinkRestPort = flinkRest;
                    d.flinkRpcPort = flinkRpc;
                });
    }

    /** The same settings with {@code count} TaskManager processes of {@code slots} slots each. */
    public ServicesConfig withTaskManagers(int count, int slots) {
        return with(
                d -> {
                    d.flinkSlots = slots;
                    d.flinkTaskManagers = count;
                });
    }

    public ServicesConfig withFlinkPrometheusPorts(String value) {
        return with(d -> d.flinkPrometheusPorts = value);
    }

    public Path logDir() {
        return stateDir.resolve("logs");
    }

    public Path pidDir() {
        return stateDir.resolve("pids");
    }

    public Path kafkaLib() {
        return rootDir.resolve("dist/kafka/target/lib");
    }

    public Path flinkLib() {
        return rootDir.resolve("dist/flink/target/lib");
    }

    /**
     * Every broker's client address, comma-separated: a client reaches the others when one is down.
     */
    public String kafkaBootstrap() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < kafkaBrokers; i++) {
            b.append(i == 0 ? "" : ",").append("127.0.0.1:").append(kafkaPort(i));
        }
        return b.toString();
    }

    /** The client port of KRaft node {@code index} (from 0). */
    public int kafkaPort(int index) {
        return kafkaPort + 2 * index;
    }

    /** The controller port of KRaft node {@code index} (from 0). */
    public int kafkaControllerPort(int index) {
        return kafkaControllerPort + 2 * index;
    }

    /** The same settings with {@code count} KRaft nodes. */
    public ServicesConfig withKafkaBrokers(int count) {
        return with(d -> d.kafkaBrokers = count);
    }

    /**
     * The generated password of the local ClickHouse's user {@code default} (0600, made by the
     * first {@code services up}); the launcher passes the path, never the password, to the job.
     */
    public Path clickhousePasswordFile() {
        return stateDir.resolve(ClickHousePassword.FILE_NAME);
    }

    public String clickhouseUrl() {
        return "http://127.0.0.1:" + clickhouseHttpPort;
    }

    /** The first interserver HTTP port of the replicas (ClickHouse's default). */
    public static final int CLICKHOUSE_INTERSERVER_PORT = 9009;

    /** The {@code remote_servers} cluster of the replicas. */
    public static final String CLICKHOUSE_CLUSTER = "flowhouse";

    /** ClickHouse servers in all: shards x replicas. */
    public int clickhouseServers() {
        return clickhouseShards * clickhouseReplicas;
    }

    /**
     * Every server's HTTP endpoint, the job's {@code clickhouse.url}: a shard's replicas
     * comma-separated, shards separated by {@code ;}.
     */
    public String clickhouseUrls() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < clickhouseServers(); i++) {
            b.append(i == 0 ? "" : i % clickhouseReplicas == 0 ? ";" : ",")
                    .append("http://127.0.0.1:")
                    .append(clickhouseHttpPort + i);
        }
        return b.toString();
    }

    /** The job's {@code clickhouse.cluster}: the cluster with 2 or more servers, else empty. */
    public String clickhouseCluster() {
        return clickhouseServers() > 1 ? CLICKHOUSE_CLUSTER : "";
    }

    public String flinkRestUrl() {
        return "http://localhost:" + flinkRestPort;
    }

    /** A copy with the values {@code change} sets, through the canonical constructor's checks. */
    private ServicesConfig with(Consumer<Draft> change) {
        Draft d = new Draft(this);
        change.accept(d);
        return d.build();
    }

    /** The values of a ServicesConfig while some change. */
    private static final class Draft {
        Path rootDir;
        Path stateDir;
        String javaBin;
        int kafkaPort;
        int kafkaControllerPort;
        int kafkaPartitions;
        int kafkaBrokers;
        int clickhouseHttpPort;
        int clickhouseNativePort;
        Path clickhouseBinary;
        int clickhouseReplicas;
        int clickhouseShards;
        int zookeeperPort;
        int flinkRestPort;
        int flinkRpcPort;
        int flinkSlots;
        int flinkTaskManagers;
        String flinkPrometheusPorts;
        Duration startTimeout;
        Duration stopTimeout;

        Draft(ServicesConfig v) {
            rootDir = v.rootDir;
            stateDir = v.stateDir;
            javaBin = v.javaBin;
            kafkaPort = v.kafkaPort;
            kafkaControllerPort = v.kafkaControllerPort;
            kafkaPartitions = v.kafkaPartitions;
            kafkaBrokers = v.kafkaBrokers;
            clickhouseHttpPort = v.clickhouseHttpPort;
            clickhouseNativePort = v.clickhouseNativePort;
            clickhouseBinary = v.clickhouseBinary;
            clickhouseReplicas = v.clickhouseReplicas;
            clickhouseShards = v.clickhouseShards;
            zookeeperPort = v.zookeeperPort;
            flinkRestPort = v.flinkRestPort;
            flinkRpcPort = v.flinkRpcPort;
            flinkSlots = v.flinkSlots;
            flinkTaskManagers = v.flinkTaskManagers;
            flinkPrometheusPorts = v.flinkPrometheusPorts;
            startTimeout = v.startTimeout;
            stopTimeout = v.stopTimeout;
        }

        ServicesConfig build() {
            return new ServicesConfig(
                    rootDir,
                    stateDir,
                    javaBin,
                    kafkaPort,
                    kafkaControllerPort,
                    kafkaPartitions,
                    kafkaBrokers,
                    clickhouseHttpPort,
                    clickhouseNativePort,
                    clickhouseBinary,
                    clickhouseReplicas,
                    clickhouseShards,
                    zookeeperPort,
                    flinkRestPort,
                    flinkRpcPort,
                    flinkSlots,
                    flinkTaskManagers,
                    flinkPrometheusPorts,
                    startTimeout,
                    stopTimeout);
        }
    }
}
