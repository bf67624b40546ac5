// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services.kafka;

import io.flowhouse.kafka.TopicAdmin;
import io.flowhouse.services.LocalPorts;
import io.flowhouse.services.LocalService.Health;
import io.flowhouse.services.Retry;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka broker in this JVM: one {@link KafkaRaftServer} in combined broker + controller
 * (KRaft) mode with the configuration of {@link KafkaBrokerConfig}, on free loopback ports, its log
 * in a temporary directory unless given one. For the tests and {@code ./flowhouse demo}.
 *
 * <p>The broker can be {@link #stop() stopped} and {@link #start() started} again on the same port
 * and the same data directory, so a test can take it away mid-stream and check that producers and
 * consumers recover without losing or duplicating data.
 */
public final class InProcessKafka implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(InProcessKafka.class);

    private final int port;
    private final int controllerPort;
    private final Path dataDir;
    private final boolean ownsDataDir;
    private final int partitions;
    private final Map<String, String> overrides;
    private final Duration startTimeout;

    private KafkaRaftServer server;
    private boolean formatted;
    private boolean closed;

    private InProcessKafka(Builder builder) {
        this.partitions = builder.partitions;
        this.overrides = Map.copyOf(builder.overrides);
        this.startTimeout = builder.startTimeout;
        try {
            int[] ports =
                    builder.port > 0
                            ? new int[] {builder.port, LocalPorts.free(1, builder.port)[0]}
                            : LocalPorts.free(2);
            this.port = ports[0];
            this.controllerPort = ports[1];
            if (builder.dataDir != null) {
                this.dataDir = Files.createDirectories(builder.dataDir);
                this.ownsDataDir = false;
            } else {
                this.dataDir = Files.createTempDirectory("flowhouse-kafka-");
                this.ownsDataDir = true;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the in-process Kafka broker", e);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the broker, formatting its storage on the first start, and returns once it answers a
     * describeCluster request. Does nothing when it already runs.
     */
    public synchronized InProcessKafka start() {
        if (closed) {
            throw new IllegalStateException("the in-process Kafka broker is closed");
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
        LOG.info("in-process kafka broker answers on {} (log dir {})", bootstrapServers(), dataDir);
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
        LOG.info("in-process kafka broker on {} stopped", bootstrapServers());
    }

    public synchronized boolean isRunning() {
        return server != null;
    }

    /** True after {@link #close()}: this broker cannot start again. */
    public synchronized boolean isClosed() {
        return closed;
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
     * cleanup.policy=compact}), if it does not exist yet, and waits until every partition has a
     * leader that serves it: an idempotent producer that writes the moment a topic exists can get
     * its first batch refused (not the leader yet) and then never get past its sequence numbers
     * ({@link io.flowhouse.kafka.TopicAdmin#isReady}).
     */
    public void createTopic(String name, int topicPartitions, Map<String, String> configs) {
        Objects.requireNonNull(name, "name");
        if (topicPartitions < 1) {
            throw new IllegalArgumentException(
                    "partitions: " + topicPartitions + " (expected: >= 1)");
        }
        try (TopicAdmin topics = topicAdmin()) {
            topics.createMissing(List.of(TopicAdmin.topic(name, topicPartitions, configs)));
            // Also when it existed: a producer's auto-creation may have made it a moment ago.
            topics.awaitReady(name);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted creating topic " + name, e);
        }
    }

    /** The names of the topics that exist, internal topics excluded. */
    public Set<String> topics() {
        try (TopicAdmin topics = topicAdmin()) {
            return topics.names();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted listing topics", e);
        }
    }

    /** The topic creator for this broker; the caller closes it. */
    public TopicAdmin topicAdmin() {
        return TopicAdmin.connect(bootstrapServers(), new Properties());
    }

    /** A new admin client for this broker; the caller closes it. */
    public Admin createAdmin() {
        return KafkaBrokerConfig.admin(bootstrapServers(), 10_000, 20_000);
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

    private Map<String, String> brokerConfig() {
        Map<String, String> config =
                KafkaBrokerConfig.properties(port, controllerPort, dataDir, partitions);
        config.putAll(overrides);
        return config;
    }

    private void format(Map<String, String> config) {
        Path propertiesFile = dataDir.resolveSibling(dataDir.getFileName() + ".properties");
        try {
            KafkaBrokerConfig.store(
                    config, propertiesFile, "in-process kafka, for the storage tool");
            KafkaBrokerConfig.format(propertiesFile);
        } finally {
            try {
                Files.deleteIfExists(propertiesFile);
            } catch (IOException ignored) {
                // A stale properties file next to the data directory is harmless.
            }
        }
    }

    private void awaitReady() {
        Health[] last = {Health.down("not probed")};
        boolean ready;
        try (Admin admin = createAdmin()) {
            ready =
                    Retry.within(startTimeout)
                            .every(Duration.ofMillis(100))
                            .until(
                                    () -> {
                                        last[0] = KafkaBrokerConfig.probe(admin);
                                        return last[0].answers();
                                    });
        }
        if (!ready) {
            throw new IllegalStateException(
                    "in-process kafka broker on "
                            + bootstrapServers()
                            + " did not answer within "
                            + startTimeout
                            + " ("
                            + last[0].detail()
                            + ")");
        }
    }

    private static void shutdownQuietly(KafkaRaftServer raftServer) {
        try {
            raftServer.shutdown();
            raftServer.awaitShutdown();
        } catch (RuntimeException e) {
            LOG.warn("failed to shut down a broker that did not start", e);
        }
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

    /** Settings for an {@link InProcessKafka}; everything has a default. */
    public static final class Builder {
        private int partitions = 1;
        private int port;
        private Path dataDir;
        private Duration startTimeout = Duration.ofSeconds(60);
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

        /** How long {@link #start()} waits for the broker to answer; default 60 s. */
        public Builder startTimeout(Duration value) {
            this.startTimeout = Objects.requireNonNull(value, "startTimeout");
            return this;
        }

        /** Any broker property, applied last. */
        public Builder brokerProperty(String key, String value) {
            overrides.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, key));
            return this;
        }

        public InProcessKafka build() {
            return new InProcessKafka(this);
        }
    }
}
