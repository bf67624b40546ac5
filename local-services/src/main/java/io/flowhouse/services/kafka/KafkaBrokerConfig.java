// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services.kafka;

import io.flowhouse.services.LocalService.Health;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.common.Uuid;

/**
 * What every local Kafka broker shares, in this JVM ({@link InProcessKafka}) or its own ({@link
 * KafkaProcess}): the configuration of a one-node KRaft broker+controller on 127.0.0.1, the
 * formatting of its storage, the probe that asks whether it serves, and the wait for a new topic's
 * partition leaders.
 */
public final class KafkaBrokerConfig {

    private KafkaBrokerConfig() {}

    /**
     * The configuration of a one-node KRaft broker+controller on 127.0.0.1. Retention is unlimited
     * ({@code log.retention.ms=-1}): raw datagrams are the archive that reprocessing reads back,
     * and replayed captures carry event times from years ago.
     *
     * @param partitions partitions of auto-created topics
     */
    public static Map<String, String> properties(
            int port, int controllerPort, Path dataDir, int partitions) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put(
                "listeners",
                "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", dataDir.toAbsolutePath().toString());
        p.put("num.partitions", Integer.toString(partitions));
        p.put("auto.create.topics.enable", "true");
        p.put("log.retention.ms", "-1");
        p.put("log.retention.bytes", "-1");
        // A single node: every internal topic has one replica.
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "8");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "8");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        // Flink's exactly-once Kafka sink keeps transactions open across checkpoints.
        p.put("transaction.max.timeout.ms", "900000");
        // The cleaner's default 128 MiB dedupe buffer is sized for production brokers.
        p.put("log.cleaner.dedupe.buffer.size", Integer.toString(16 * 1024 * 1024));
        return p;
    }

    /**
     * The configuration of node {@code nodeId} (from 1) of a KRaft quorum of {@code nodes}
     * broker+controller nodes on 127.0.0.1: the one-node configuration with every node a voter,
     * every topic (internal ones too) replicated to min(3, nodes) brokers and, from 3 nodes, a
     * write acknowledged by all only once 2 replicas have it ({@code min.insync.replicas}), so one
     * broker may die without a loss or a refused write.
     *
     * @param voters {@code id@127.0.0.1:controllerPort} of every node, comma-separated
     */
    public static Map<String, String> quorumProperties(
            int nodeId,
            int nodes,
            String voters,
            int port,
            int controllerPort,
            Path dataDir,
            int partitions) {
        Map<String, String> p = properties(port, controllerPort, dataDir, partitions);
        p.put("node.id", Integer.toString(nodeId));
        p.put("controller.quorum.voters", voters);
        String replicas = Integer.toString(Math.min(3, nodes));
        String minIsr = nodes >= 3 ? "2" : "1";
        p.put("default.replication.factor", replicas);
        p.put("min.insync.replicas", minIsr);
        p.put("offsets.topic.replication.factor", replicas);
        p.put("transaction.state.log.replication.factor", replicas);
        p.put("transaction.state.log.min.isr", minIsr);
        p.put("share.coordinator.state.topic.replication.factor", replicas);
        p.put("share.coordinator.state.topic.min.isr", minIsr);
        return p;
    }

    /** Writes {@code config} as a properties file. */
    public static void store(Map<String, String> config, Path file, String comment) {
        Properties props = new Properties();
        props.putAll(config);
        try (OutputStream out = Files.newOutputStream(file)) {
            props.store(out, comment);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /**
     * Formats the storage named in a server.properties file with a fresh cluster id; storage that
     * is formatted already is left as it is.
     */
    public static void format(Path serverProperties) {
        format(serverProperties, Uuid.randomUuid().toString());
    }

    /**
     * Formats the storage named in a server.properties file with {@code clusterId}, which every
     * node of a quorum shares; storage that is formatted already is left as it is.
     */
    public static void format(Path serverProperties, String clusterId) {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int exitCode;
        try (PrintStream print = new PrintStream(output, true, StandardCharsets.UTF_8)) {
            exitCode =
                    StorageTool.execute(
                            new String[] {
                                "format",
                                "--cluster-id",
                                clusterId,
                                "--config",
                                serverProperties.toString(),
                                "--ignore-formatted"
                            },
                            print);
        }
        if (exitCode != 0) {
            throw new IllegalStateException(
                    "kafka storage format failed ("
                            + exitCode
                            + "): "
                            + output.toString(StandardCharsets.UTF_8));
        }
    }

    /** An admin client for a local broker; the caller closes it. */
    public static Admin admin(String bootstrapServers, int requestTimeoutMs, int apiTimeoutMs) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(requestTimeoutMs));
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Integer.toString(apiTimeoutMs));
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
        return Admin.create(props);
    }

    /** Asks the broker to describe its cluster: it serves once a broker has registered. */
    public static Health probe(Admin admin) {
        try {
            DescribeClusterResult cluster = admin.describeCluster();
            int nodes = cluster.nodes().get(5, TimeUnit.SECONDS).size();
            String clusterId = cluster.clusterId().get(5, TimeUnit.SECONDS);
            if (nodes == 0) {
                return Health.down("no broker registered yet");
            }
            return Health.up(nodes + " broker(s), cluster id " + clusterId);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return Health.down("describeCluster failed: " + e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Health.down("interrupted");
        }
    }
}
