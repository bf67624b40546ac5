// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.services;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.utils.Time;

/**
 * A real Kafka KRaft broker inside the launcher's JVM, for {@code ./flowhouse demo}: the same
 * configuration as the {@code services} broker, on free loopback ports, with its data in a fresh
 * directory. (Tests use the test kit's {@code EmbeddedKafka}, which can also restart.)
 */
public final class InProcessKafka implements AutoCloseable {

    private final int port;
    private final KafkaRaftServer server;

    private InProcessKafka(int port, KafkaRaftServer server) {
        this.port = port;
        this.server = server;
    }

    /** Formats {@code dataDir} (which must be empty or absent), starts, waits until it answers. */
    public static InProcessKafka start(Path dataDir, int partitions, Duration timeout) {
        int[] ports = freePorts(2);
        Properties props = KafkaBroker.brokerProperties(ports[0], ports[1], dataDir, partitions);
        try {
            Files.createDirectories(dataDir);
            Path file = dataDir.resolveSibling(dataDir.getFileName() + ".properties");
            try (OutputStream out = Files.newOutputStream(file)) {
                props.store(out, "in-process broker of ./flowhouse demo");
            }
            KafkaBroker.format(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + dataDir, e);
        }
        KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(props), Time.SYSTEM);
        server.startup();
        InProcessKafka kafka = new InProcessKafka(ports[0], server);
        try {
            kafka.awaitReady(timeout);
        } catch (RuntimeException e) {
            kafka.close();
            throw e;
        }
        return kafka;
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** A new admin client; the caller closes it. */
    public Admin createAdmin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return Admin.create(props);
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin admin = createAdmin()) {
            while (System.nanoTime() < deadline) {
                try {
                    if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    // not yet
                }
                Thread.sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        throw new IllegalStateException("in-process kafka did not answer within " + timeout);
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }

    static int[] freePorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // nothing held
                }
            }
        }
    }
}
