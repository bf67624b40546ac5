// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.services.ServicesConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The flags of the local services, shared by every command that talks to them. A flag beats its
 * environment variable, which beats the default; {@code status}, {@code down}, {@code query} and
 * the job commands take the ports recorded by the last {@code up} over the environment.
 */
final class ServicesOptions {

    @Option(
            names = "--state-dir",
            paramLabel = "DIR",
            description = "configs, data, pids, logs (FLOWHOUSE_STATE_DIR, default ./.flowhouse)")
    String stateDir;

    @Option(
            names = "--kafka-port",
            paramLabel = "N",
            description = "Kafka client port (FLOWHOUSE_KAFKA_PORT, 9092)")
    String kafkaPort;

    @Option(
            names = "--kafka-controller-port",
            paramLabel = "N",
            description = "KRaft controller port (FLOWHOUSE_KAFKA_CONTROLLER_PORT, 9093)")
    String kafkaControllerPort;

    @Option(
            names = "--kafka-partitions",
            paramLabel = "N",
            description = "partitions of auto-created topics (FLOWHOUSE_KAFKA_PARTITIONS, 4)")
    String kafkaPartitions;

    @Option(
            names = "--clickhouse-http-port",
            paramLabel = "N",
            description = "ClickHouse HTTP (FLOWHOUSE_CLICKHOUSE_HTTP_PORT, 8123)")
    String clickhouseHttpPort;

    @Option(
            names = "--clickhouse-native-port",
            paramLabel = "N",
            description = "ClickHouse native protocol (FLOWHOUSE_CLICKHOUSE_NATIVE_PORT, 9000)")
    String clickhouseNativePort;

    @Option(
            names = "--clickhouse-binary",
            paramLabel = "PATH",
            description = "clickhouse-server executable (FLOWHOUSE_CLICKHOUSE_BINARY)")
    String clickhouseBinary;

    @Option(
            names = "--flink-rest-port",
            paramLabel = "N",
            description = "Flink REST + web UI (FLOWHOUSE_FLINK_REST_PORT, 8081)")
    String flinkRestPort;

    @Option(
            names = "--flink-rpc-port",
            paramLabel = "N",
            description = "Flink JobManager RPC (FLOWHOUSE_FLINK_RPC_PORT, 6123)")
    String flinkRpcPort;

    @Option(
            names = "--flink-slots",
            paramLabel = "N",
            description = "TaskManager slots (FLOWHOUSE_FLINK_SLOTS, 2)")
    String flinkSlots;

    @Option(
            names = "--flink-prometheus-ports",
            paramLabel = "R",
            description =
                    "Prometheus reporter ports, e.g. 9249-9259, 'none' to disable"
                            + " (FLOWHOUSE_FLINK_PROMETHEUS_PORTS, 9249-9259)")
    String flinkPrometheusPorts;

    @Option(
            names = "--start-timeout",
            paramLabel = "SECONDS",
            description = "wait for each service to answer (FLOWHOUSE_START_TIMEOUT, 120)")
    String startTimeout;

    /** The flags given, keyed as {@link ServicesConfig#OPTIONS}. */
    Map<String, String> flags() {
        Map<String, String> flags = new LinkedHashMap<>();
        put(flags, "state-dir", stateDir);
        put(flags, "kafka-port", kafkaPort);
        put(flags, "kafka-controller-port", kafkaControllerPort);
        put(flags, "kafka-partitions", kafkaPartitions);
        put(flags, "clickhouse-http-port", clickhouseHttpPort);
        put(flags, "clickhouse-native-port", clickhouseNativePort);
        put(flags, "clickhouse-binary", clickhouseBinary);
        put(flags, "flink-rest-port", flinkRestPort);
        put(flags, "flink-rpc-port", flinkRpcPort);
        put(flags, "flink-slots", flinkSlots);
        put(flags, "flink-prometheus-ports", flinkPrometheusPorts);
        put(flags, "start-timeout", startTimeout);
        return flags;
    }

    private static void put(Map<String, String> flags, String key, String value) {
        if (value != null) {
            flags.put(key, value);
        }
    }

    /**
     * Defaults, then the environment, then the ports saved by the last {@code services up} (when
     * {@code useSaved}), then these flags.
     */
    ServicesConfig config(LaunchContext ctx, boolean useSaved) {
        try {
            return ServicesConfig.resolve(
                    ctx.home().root(), ctx.home().stateDir(), ctx.env(), flags(), useSaved);
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
    }
}
