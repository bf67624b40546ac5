// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import io.flowhouse.services.clickhouse.ClickHousePassword;
import io.flowhouse.services.clickhouse.ClickHouseServer;
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
import java.util.Set;

/**
 * Where the local services run: one state directory and one port per listener. Built from defaults,
 * then the environment ({@code FLOWHOUSE_KAFKA_PORT}, ...), then the ports saved by the last {@code
 * services up} ({@code services.properties} in the state directory), then flags.
 *
 * @param rootDir the checkout; {@code dist/kafka/target/lib} and {@code dist/flink/target/lib} are
 *     the broker's and the cluster's class paths
 * @param stateDir configs, data, pid files and logs of every service
 * @param javaBin the {@code java} executable for the service JVMs
 * @param kafkaPort client listener on 127.0.0.1
 * @param kafkaControllerPort KRaft controller listener on 127.0.0.1
 * @param kafkaPartitions partitions of auto-created topics
 * @param clickhouseHttpPort HTTP interface on 127.0.0.1
 * @param clickhouseNativePort native protocol on 127.0.0.1
 * @param clickhouseBinary the {@code clickhouse-server} executable
 * @param flinkRestPort the JobManager's REST API and web UI on localhost
 * @param flinkRpcPort the JobManager's RPC port (TaskManagers register here)
 * @param flinkSlots task slots of the one TaskManager
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
        int clickhouseHttpPort,
        int clickhouseNativePort,
        Path clickhouseBinary,
        int flinkRestPort,
        int flinkRpcPort,
        int flinkSlots,
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

    /** Flags that {@link #resolve} understands, without {@code --}. */
    public static final Set<String> OPTIONS =
            Set.of(
                    "state-dir",
                    "kafka-port",
                    "kafka-controller-port",
                    "kafka-partitions",
                    "clickhouse-http-port",
                    "clickhouse-native-port",
                    "clickhouse-binary",
                    "flink-rest-port",
                    "flink-rpc-port",
                    "flink-slots",
                    "flink-prometheus-ports",
                    "start-timeout");

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
        return new ServicesConfig(
                rootDir,
                rootDir.resolve(".flowhouse"),
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                DEFAULT_KAFKA_PORT,
                DEFAULT_KAFKA_CONTROLLER_PORT,
                4,
                DEFAULT_CLICKHOUSE_HTTP_PORT,
                DEFAULT_CLICKHOUSE_NATIVE_PORT,
                ClickHouseServer.defaultBinary(),
                DEFAULT_FLINK_REST_PORT,
                DEFAULT_FLINK_RPC_PORT,
                2,
                "9249-9259",
                Duration.ofSeconds(120),
                Duration.ofSeconds(30));
    }

    /**
     * Defaults, then {@code env}, then the saved ports of a running set of services (when {@code
     * useSaved}), then {@code flags} (keys from {@link #OPTIONS}, without {@code --}).
     *
     * @throws IllegalArgumentException naming the setting and where it came from, when a value is
     *     not valid
     */
    public static ServicesConfig resolve(
            Path rootDir,
            Path defaultStateDir,
            Map<String, String> env,
            Map<String, String> flags,
            boolean useSaved) {
        Properties layered = new Properties();
        ServicesConfig base = defaults(rootDir).withStateDir(defaultStateDir);
        base.writeTo(layered);
        for (String option : OPTIONS) {
            String envName =
                    "FLOWHOUSE_" + option.toUpperCase(java.util.Locale.ROOT).replace('-', '_');
            String value = env.get(envName);
            if (value != null && !value.isBlank()) {
                layered.setProperty(option, value.trim());
            }
        }
        if (flags.get("state-dir") != null) {
            layered.setProperty("state-dir", flags.get("state-dir"));
        }
        if (useSaved) {
            Path saved = Path.of(layered.getProperty("state-dir")).resolve(SAVED_FILE);
            if (Files.isRegularFile(saved)) {
                Properties props = new Properties();
                try (InputStream in = Files.newInputStream(saved)) {
                    props.load(in);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read " + saved, e);
                }
                props.stringPropertyNames().stream()
                        .filter(OPTIONS::contains)
                        .filter(k -> !k.equals("state-dir"))
                        .forEach(k -> layered.setProperty(k, props.getProperty(k)));
            }
        }
        for (String option : OPTIONS) {
            if (flags.get(option) != null) {
                layered.setProperty(option, flags.get(option));
            }
        }
        return fromProperties(base, layered);
    }

    private static ServicesConfig fromProperties(ServicesConfig base, Properties p) {
        String prometheus = p.getProperty("flink-prometheus-ports", "").trim();
        if (prometheus.equalsIgnoreCase("none") || prometheus.equalsIgnoreCase("off")) {
            prometheus = "";
        }
        return new ServicesConfig(
                base.rootDir(),
                Path.of(p.getProperty("state-dir")),
                base.javaBin(),
                port(p, "kafka-port"),
                port(p, "kafka-controller-port"),
                parseInt("kafka-partitions", p.getProperty("kafka-partitions"), 1, 10_000),
                port(p, "clickhouse-http-port"),
                port(p, "clickhouse-native-port"),
                Path.of(p.getProperty("clickhouse-binary")),
                port(p, "flink-rest-port"),
                port(p, "flink-rpc-port"),
                parseInt("flink-slots", p.getProperty("flink-slots"), 1, 256),
                prometheus,
                Duration.ofSeconds(
                        parseInt("start-timeout", p.getProperty("start-timeout"), 1, 3600)),
                base.stopTimeout());
    }

    private static int port(Properties p, String key) {
        return parseInt(key, p.getProperty(key), 1, 65_535);
    }

    private static int parseInt(String key, String raw, int min, int max) {
        int value;
        try {
            value = Integer.parseInt(raw.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + ": '" + raw + "' is not a number");
        }
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    key + ": " + value + " (expected: " + min + ".." + max + ")");
        }
        return value;
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
        props.setProperty("clickhouse-http-port", Integer.toString(clickhouseHttpPort));
        props.setProperty("clickhouse-native-port", Integer.toString(clickhouseNativePort));
        props.setProperty("clickhouse-binary", clickhouseBinary.toString());
        props.setProperty("flink-rest-port", Integer.toString(flinkRestPort));
        props.setProperty("flink-rpc-port", Integer.toString(flinkRpcPort));
        props.setProperty("flink-slots", Integer.toString(flinkSlots));
        props.setProperty(
                "flink-prometheus-ports",
                flinkPrometheusPorts.isEmpty() ? "none" : flinkPrometheusPorts);
        props.setProperty("start-timeout", Long.toString(startTimeout.toSeconds()));
    }

    public ServicesConfig withStateDir(Path value) {
        return new ServicesConfig(
                rootDir,
                value,
                javaBin,
                kafkaPort,
                kafkaControllerPort,
                kafkaPartitions,
                clickhouseHttpPort,
                clickhouseNativePort,
                clickhouseBinary,
                flinkRestPort,
                flinkRpcPort,
                flinkSlots,
                flinkPrometheusPorts,
                startTimeout,
                stopTimeout);
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
        return new ServicesConfig(
                rootDir,
                stateDir,
                javaBin,
                kafka,
                kafkaController,
                kafkaPartitions,
                clickhouseHttp,
                clickhouseNative,
                clickhouseBinary,
                flinkRest,
                flinkRpc,
                flinkSlots,
                flinkPrometheusPorts,
                startTimeout,
                stopTimeout);
    }

    public ServicesConfig withFlinkPrometheusPorts(String value) {
        return new ServicesConfig(
                rootDir,
                stateDir,
                javaBin,
                kafkaPort,
                kafkaControllerPort,
                kafkaPartitions,
                clickhouseHttpPort,
                clickhouseNativePort,
                clickhouseBinary,
                flinkRestPort,
                flinkRpcPort,
                flinkSlots,
                value,
                startTimeout,
                stopTimeout);
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

    public String kafkaBootstrap() {
        return "127.0.0.1:" + kafkaPort;
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

    public String flinkRestUrl() {
        return "http://localhost:" + flinkRestPort;
    }
}
