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

/**
 * S shards of R replicated {@code clickhouse-server}s each (Debian's 18.16 here) and the Debian
 * {@code zookeeper} they coordinate through, for one test class: each server a {@link
 * LocalClickHouse} on free ports with {@link ClickHouseClusterConfig} (cluster {@value #CLUSTER},
 * shards {@code 01..S}, replicas {@code r1..rR} in each), ZooKeeper on a free port. {@link
 * #replica(int)} stops, kills and restarts one (servers numbered shard after shard).
 */
public final class LocalClickHouseCluster implements AutoCloseable {

    /** The {@code remote_servers} name the replicas know each other by. */
    public static final String CLUSTER = "flowhouse";

    private final Path dir;
    private final ServiceProcess zookeeper;
    private final List<LocalClickHouse> replicas;
    private final int replicasPerShard;

    private LocalClickHouseCluster(
            Path dir,
            ServiceProcess zookeeper,
            List<LocalClickHouse> replicas,
            int replicasPerShard) {
        this.dir = dir;
        this.zookeeper = zookeeper;
        this.replicas = replicas;
        this.replicasPerShard = replicasPerShard;
    }

    /** Whether both the ClickHouse server and Debian's ZooKeeper are installed. */
    public static boolean isAvailable() {
        return LocalClickHouse.isAvailable() && Files.isReadable(ZooKeeperServer.DEBIAN_JAR);
    }

    /** Starts ZooKeeper and {@code n} replicas of one shard, and waits until each answers. */
    public static LocalClickHouseCluster launch(int n) {
        return launch(1, n);
    }

    /**
     * Starts ZooKeeper and {@code shards} x {@code replicasPerShard} servers, and waits until each
     * answers.
     */
    public static LocalClickHouseCluster launch(int shards, int replicasPerShard) {
        int n = shards * replicasPerShard;
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
        List<List<Integer>> nativePorts = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            List<Integer> shard = new ArrayList<>();
            for (int r = 0; r < replicasPerShard; r++) {
                shard.add(ports[2 + 3 * (s * replicasPerShard + r)]);
            }
            nativePorts.add(shard);
        }
        List<LocalClickHouse> replicas = new ArrayList<>();
        LocalClickHouseCluster cluster =
                new LocalClickHouseCluster(dir, zkProcess, replicas, replicasPerShard);
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
                                        nativePorts,
                                        zk.connectString(),
                                        i / replicasPerShard + 1,
                                        "r" + (i % replicasPerShard + 1),
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

    /**
     * Every server's HTTP endpoint, the sink's {@code clickhouse.url}: a shard's replicas
     * comma-separated, shards separated by {@code ;}.
     */
    public String httpUrls() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < replicas.size(); i++) {
            b.append(i == 0 ? "" : i % replicasPerShard == 0 ? ";" : ",")
                    .append(replicas.get(i).httpUrl());
        }
        return b.toString();
    }

    /** How many shards. */
    public int shards() {
        return replicas.size() / replicasPerShard;
    }

    /** Server {@code replica} (from 0) of shard {@code shard} (from 0). */
    public LocalClickHouse server(int shard, int replica) {
        return replicas.get(shard * replicasPerShard + replica);
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
