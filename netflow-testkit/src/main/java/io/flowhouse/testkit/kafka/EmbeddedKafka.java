// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.kafka;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka broker in this JVM: one {@link KafkaRaftServer} in combined broker + controller
 * (KRaft) mode, listening on 127.0.0.1 on a free port, with its log in a temporary directory.
 *
 * <p>The broker can be {@link #stop() stopped} and {@link #start() started} again on the same port
 * and the same data directory, so a test can take it away mid-stream and check that producers and
 * consumers recover without losing or duplicating data. Retention is unlimited ({@code
 * log.retention.ms=-1}) so that records replayed with old event timestamps are never deleted.
 *
 * <p>Use it with try-with-resources, or as a JUnit 5 extension:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();
 * }</pre>
 *
 * A static field starts the broker once for the class; an instance field starts one per test.
 */
public final class EmbeddedKafka
        implements AutoCloseable,
                BeforeAllCallback,
                AfterAllCallback,
                BeforeEachCallback,
                AfterEachCallback {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);

    /** How long {@link #start()} waits for the broker to answer a describeCluster request. */
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

    private static final int NODE_ID = 1;

    private final int port;
    private final int controllerPort;
    private final Path dataDir;
    private final boolean ownsDataDir;
    private final int partitions;
    private final Map<String, String> overrides;
    private final String clusterId;

    private KafkaRaftServer server;
    private boolean formatted;
    private boolean classScoped;
    private boolean closed;

    private EmbeddedKafka(Builder builder) {
        this.partitions = builder.partitions;
        this.overrides = Map.copyOf(builder.overrides);
        this.clusterId = Uuid.randomUuid().toString();
        try {
            this.port = builder.port > 0 ? builder.port : freePort();
            this.controllerPort = freePort(port);
            if (builder.dataDir != null) {
                this.dataDir = Files.createDirectories(builder.dataDir);
                this.ownsDataDir = false;
            } else {
                this.dataDir = Files.createTempDirectory("flowhouse-kafka-");
                this.ownsDataDir = true;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the embedded Kafka broker", e);
        }
    }

    /** A broker with the defaults: one partition per auto-created topic, free port, temp dir. */
    public static EmbeddedKafka create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the broker, formatting its storage on the first start, and returns once it answers a
     * describeCluster request. Does nothing when it already runs.
     */
    public synchronized EmbeddedKafka start() {
        if (closed) {
            throw new IllegalStateException("the embedded Kafka broker is closed");
        }
        if (server != null) {
            return this;
        }
        Map<String, String> config = brokerConfig();
        if (!formatted) {
            format(config);
            formatted = true;
        }
        KafkaRaftServer raftServer = new KafkaRaftServer(new KafkaConfig(config), Time.SYSTEM);
        try {
            raftServer.startup();
            server = raftServer;
            awaitReady();
        } catch (RuntimeException e) {
            server = null;
            shutdownQuietly(raftServer);
            throw e;
        }
        LOG.info("embedded kafka broker answers on {} (log dir {})", bootstrapServers(), dataDir);
        return this;
    }

    /**
     * Stops the broker cleanly and waits until it is down. Its port and data directory stay
     * reserved for the next {@link #start()}. Does nothing when it does not run.
     */
    public synchronized void stop() {
        if (server == null) {
            return;
        }
        KafkaRaftServer running = server;
        server = null;
        running.shutdown();
        running.awaitShutdown();
        LOG.info("embedded kafka broker on {} stopped", bootstrapServers());
    }

    public synchronized boolean isRunning() {
        return server != null;
    }

    /** {@code 127.0.0.1:port}; the same across stop and start. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Partitions of topics that are created automatically or without a partition count. */
    public int defaultPartitions() {
        return partitions;
    }

    /** Creates a topic with {@link #defaultPartitions()} partitions, if it does not exist yet. */
    public void createTopic(String name) {
        createTopic(name, partitions, Map.of());
    }

    public void createTopic(String name, int topicPartitions) {
        createTopic(name, topicPartitions, Map.of());
    }

    /**
     * Creates a topic with the given partition count and topic configs (for example {@code
     * cleanup.policy=compact}), if it does not exist yet, and waits until it is created.
     */
    public void createTopic(String name, int topicPartitions, Map<String, String> configs) {
        Objects.requireNonNull(name, "name");
        if (topicPartitions < 1) {
            throw new IllegalArgumentException(
                    "partitions: " + topicPartitions + " (expected: >= 1)");
        }
        NewTopic topic = new NewTopic(name, topicPartitions, (short) 1).configs(configs);
        try (Admin admin = createAdmin()) {
            admin.createTopics(List.of(topic))
                    .all()
                    .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create topic " + name, e.getCause());
            }
        } catch (TimeoutException e) {
            throw new IllegalStateException("timed out creating topic " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted creating topic " + name, e);
        }
    }

    /** The names of the topics that exist, internal topics excluded. */
    public Set<String> topics() {
        try (Admin admin = createAdmin()) {
            return admin.listTopics().names().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot list topics", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted listing topics", e);
        }
    }

    /** A new admin client for this broker; the caller closes it. */
    public Admin createAdmin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        return Admin.create(props);
    }

    /** Stops the broker and deletes its data directory if this object created it. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            stop();
        } finally {
            closed = true;
            if (ownsDataDir) {
                deleteRecursively(dataDir);
            }
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        classScoped = true;
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        // A class-scoped broker that a test stopped on purpose comes back for the next test.
        start();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!classScoped) {
            close();
        }
    }

    private Map<String, String> brokerConfig() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("process.roles", "broker,controller");
        config.put("node.id", Integer.toString(NODE_ID));
        config.put("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort);
        config.put(
                "listeners",
                "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        config.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        config.put("controller.listener.names", "CONTROLLER");
        config.put("inter.broker.listener.name", "PLAINTEXT");
        config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        config.put("log.dirs", dataDir.toAbsolutePath().toString());
        config.put("num.partitions", Integer.toString(partitions));
        config.put("auto.create.topics.enable", "true");
        // Replayed captures carry event times from years ago: keep everything.
        config.put("log.retention.ms", "-1");
        config.put("log.retention.bytes", "-1");
        // A single node: every internal topic has one replica.
        config.put("offsets.topic.replication.factor", "1");
        config.put("offsets.topic.num.partitions", "4");
        config.put("transaction.state.log.replication.factor", "1");
        config.put("transaction.state.log.min.isr", "1");
        config.put("transaction.state.log.num.partitions", "4");
        config.put("share.coordinator.state.topic.replication.factor", "1");
        config.put("share.coordinator.state.topic.min.isr", "1");
        config.put("group.initial.rebalance.delay.ms", "0");
        // The cleaner's default 128 MiB dedupe buffer is sized for production brokers.
        config.put("log.cleaner.dedupe.buffer.size", Integer.toString(8 * 1024 * 1024));
        config.putAll(overrides);
        return config;
    }

    private void format(Map<String, String> config) {
        Path propertiesFile = dataDir.resolveSibling(dataDir.getFileName() + ".properties");
        Properties props = new Properties();
        props.putAll(config);
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int exitCode;
        try {
            try (OutputStream out = Files.newOutputStream(propertiesFile)) {
                props.store(out, "embedded kafka, written by EmbeddedKafka for the storage tool");
            }
            try (PrintStream printStream =
                    new PrintStream(output, true, StandardCharsets.UTF_8.name())) {
                exitCode =
                        StorageTool.execute(
                                new String[] {
                                    "format",
                                    "--cluster-id",
                                    clusterId,
                                    "--config",
                                    propertiesFile.toString(),
                                    "--ignore-formatted"
                                },
                                printStream);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot format " + dataDir, e);
        } finally {
            try {
                Files.deleteIfExists(propertiesFile);
            } catch (IOException ignored) {
                // A stale properties file in the temp dir is harmless.
            }
        }
        if (exitCode != 0) {
            throw new IllegalStateException(
                    "kafka storage format failed with exit code "
                            + exitCode
                            + ": "
                            + output.toString(StandardCharsets.UTF_8));
        }
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        RuntimeException last = null;
        try (Admin admin = createAdmin()) {
            while (System.nanoTime() < deadline) {
                try {
                    int nodes =
                            admin.describeCluster()
                                    .nodes()
                                    .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                                    .size();
                    if (nodes > 0) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    last = new IllegalStateException(e);
                }
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the embedded broker", e);
        }
        throw new IllegalStateException(
                "embedded kafka broker on "
                        + bootstrapServers()
                        + " did not answer within "
                        + STARTUP_TIMEOUT,
                last);
    }

    private static void shutdownQuietly(KafkaRaftServer raftServer) {
        try {
            raftServer.shutdown();
            raftServer.awaitShutdown();
        } catch (RuntimeException e) {
            LOG.warn("failed to shut down a broker that did not start", e);
        }
    }

    private static int freePort(int... avoid) throws IOException {
        for (int attempt = 0; attempt < 20; attempt++) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int candidate = socket.getLocalPort();
                boolean clash = false;
                for (int taken : avoid) {
                    clash |= taken == candidate;
                }
                if (!clash) {
                    return candidate;
                }
            }
        }
        throw new IOException("no free loopback port found");
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(
                            path -> {
                                try {
                                    Files.deleteIfExists(path);
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            });
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("cannot delete {}", root, e);
        }
    }

    /** Settings for an {@link EmbeddedKafka}; everything has a default. */
    public static final class Builder {
        private int partitions = 1;
        private int port;
        private Path dataDir;
        private final Map<String, String> overrides = new LinkedHashMap<>();

        private Builder() {}

        /** Partitions of auto-created topics (broker {@code num.partitions}); default 1. */
        public Builder partitions(int value) {
            if (value < 1) {
                throw new IllegalArgumentException("partitions: " + value + " (expected: >= 1)");
            }
            this.partitions = value;
            return this;
        }

        /** A fixed client port instead of a free one. */
        public Builder port(int value) {
            if (value < 1 || value > 65_535) {
                throw new IllegalArgumentException("port: " + value + " (expected: 1..65535)");
            }
            this.port = value;
            return this;
        }

        /** A data directory the caller owns and that {@link #close()} leaves in place. */
        public Builder dataDir(Path value) {
            this.dataDir = Objects.requireNonNull(value, "dataDir");
            return this;
        }

        /** Any broker property, applied last. */
        public Builder brokerProperty(String key, String value) {
            overrides.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, key));
            return this;
        }

        public EmbeddedKafka build() {
            return new EmbeddedKafka(this);
        }
    }
}
