// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.clickhouse;

import io.flowhouse.services.zookeeper.ZooKeeperServer;
import io.flowhouse.testkit.ServiceRequirement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that gives a test class one {@link LocalClickHouseCluster} (S shards of R
 * replicated servers and their ZooKeeper, on free ports) for all its tests, and the wait every
 * cluster test needs: a server's answer after replication caught up.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ClickHouseClusterExtension CLUSTER = ClickHouseClusterExtension.of(2, 2);
 * }</pre>
 *
 * <p>The cluster starts before the class's own {@code @BeforeAll} methods. Without {@code
 * clickhouse-server} or Debian's ZooKeeper the class is skipped, or fails when {@code
 * flowhouse.it.required=true}.
 */
public final class ClickHouseClusterExtension implements BeforeAllCallback, AfterAllCallback {

    private final int shards;
    private final int replicasPerShard;
    private LocalClickHouseCluster cluster;

    private ClickHouseClusterExtension(int shards, int replicasPerShard) {
        this.shards = shards;
        this.replicasPerShard = replicasPerShard;
    }

    /** {@code shards} shards of {@code replicasPerShard} replicas each. */
    public static ClickHouseClusterExtension of(int shards, int replicasPerShard) {
        return new ClickHouseClusterExtension(shards, replicasPerShard);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (cluster != null) {
            return;
        }
        ServiceRequirement.require(
                LocalClickHouseCluster.isAvailable(),
                "clickhouse-server and ZooKeeper at "
                        + ZooKeeperServer.DEBIAN_JAR
                        + " (apt-get install clickhouse-server zookeeper)");
        cluster = LocalClickHouseCluster.launch(shards, replicasPerShard);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            try {
                cluster.close();
            } finally {
                cluster = null;
            }
        }
    }

    /** The running cluster. */
    public LocalClickHouseCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException("the cluster is not started (register the extension)");
        }
        return cluster;
    }

    /**
     * Waits until {@code server} answers {@code sql} with the one line {@code want}, each try after
     * {@code SYSTEM SYNC REPLICA} of {@code syncTables} (qualified names); errors count as not yet
     * (the table may not be there, the server may be starting).
     *
     * @throws AssertionError with the last answer when {@code timeout} passes first
     */
    public static void awaitAnswer(
            LocalClickHouse server, Duration timeout, String sql, String want, String... syncTables)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> last = List.of();
        while (System.nanoTime() < deadline) {
            try {
                for (String table : syncTables) {
                    server.query("SYSTEM SYNC REPLICA " + table);
                }
                last = server.query(sql);
                if (last.equals(List.of(want))) {
                    return;
                }
            } catch (RuntimeException e) {
                last = List.of(String.valueOf(e.getMessage()));
            }
            Thread.sleep(200);
        }
        throw new AssertionError(
                server.httpUrl() + " did not answer " + want + " to " + sql + " in time: " + last);
    }
}
