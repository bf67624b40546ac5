// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.clickhouse;

import io.flowhouse.services.LocalPorts;
import io.flowhouse.services.ServiceProcess;
import io.flowhouse.services.clickhouse.ClickHouseClusterConfig;
import io.flowhouse.services.zookeeper.ZooKeeperServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One shard of N replicated {@code clickhouse-server}s (Debian's 18.16 here) and the Debian {@code
 * zookeeper} they coordinate through, for one test class: each replica a {@link LocalClickHouse} on
 * free ports with {@link ClickHouseClusterConfig} (cluster {@value #CLUSTER}, shard 01, replicas
 * {@code r1..rN}), ZooKeeper on a free port. {@link #replica(int)} stops, kills and restarts one.
 */
public final class LocalClickHouseCluster implements AutoCloseable {

    /** The {@code remote_servers} name the replicas know each other by. */
    public static final String CLUSTER = "flowhouse";

    private final Path dir;
    private final ServiceProcess zookeeper;
    private final List<LocalClickHouse> replicas;

    private LocalClickHouseCluster(
            Path dir, ServiceProcess zookeeper, List<LocalClickHouse> replicas) {
        this.dir = dir;
        this.zookeeper = zookeeper;
        this.replicas = replicas;
    }

    /** Whether both the ClickHouse server and Debian's ZooKeeper are installed. */
    public static boolean isAvailable() {
        return LocalClickHouse.isAvailable() && Files.isReadable(ZooKeeperServer.DEBIAN_JAR);
    }

    /** Starts ZooKeeper and {@code n} replicas, and waits until each answers. */
    public static LocalClickHouseCluster launch(int n) {
        if (!Files.isReadable(ZooKeeperServer.DEBIAN_JAR)) {
            throw new IllegalStateException(
                    "zookeeper not found at "
                            + ZooKeeperServer.DEBIAN_JAR
                            + ": apt-get install -y zookeeper");
        }
        Path dir;
        try {
            dir = Files.createTempDirectory("flowhouse-clickhouse-cluster-").toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int[] ports = LocalPorts.free(1 + 3 * n);
        ZooKeeperServer zk =
                ZooKeeperServer.debian("zookeeper", dir.resolve("zookeeper"), ports[0]);
        ServiceProcess zkProcess =
                new ServiceProcess(
                        zk,
                        dir,
                        dir.resolve("log"),
                        Duration.ofSeconds(60),
                        Duration.ofSeconds(30));
        List<Integer> nativePorts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            nativePorts.add(ports[2 + 3 * i]);
        }
        List<LocalClickHouse> replicas = new ArrayList<>();
        LocalClickHouseCluster cluster = new LocalClickHouseCluster(dir, zkProcess, replicas);
        try {
            zkProcess.start();
            LocalClickHouse.Options options = LocalClickHouse.Options.defaults();
            for (int i = 0; i < n; i++) {
                LocalClickHouse replica =
                        new LocalClickHouse(
                                options,
                                dir.resolve("r" + (i + 1)),
                                ports[1 + 3 * i],
                                ports[2 + 3 * i],
                                new ClickHouseClusterConfig(
                                        CLUSTER,
                                        List.of(nativePorts),
                                        zk.connectString(),
                                        1,
                                        "r" + (i + 1),
                                        ports[3 + 3 * i]));
                replicas.add(replica);
                replica.registerShutdownHook();
                replica.start();
            }
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Replica {@code i}, from 0. */
    public LocalClickHouse replica(int i) {
        return replicas.get(i);
    }

    public List<LocalClickHouse> replicas() {
        return List.copyOf(replicas);
    }

    /** Every replica's HTTP endpoint, comma-separated: the sink's {@code clickhouse.url}. */
    public String httpUrls() {
        return replicas.stream().map(LocalClickHouse::httpUrl).collect(Collectors.joining(","));
    }

    /** The directory holding ZooKeeper's and every replica's files. */
    public Path directory() {
        return dir;
    }

    @Override
    public void close() {
        for (LocalClickHouse replica : replicas) {
            try {
                replica.close();
            } catch (RuntimeException ignored) {
                // stop the others and ZooKeeper anyway
            }
        }
        zookeeper.stop();
        try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException ignored) {
            // best effort on a temporary directory
        }
    }
}
