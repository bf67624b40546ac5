// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.kafka;

import io.flowhouse.services.kafka.InProcessKafka;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Kafka broker in this JVM ({@link InProcessKafka} of local-services) as a JUnit 5
 * extension, or with try-with-resources:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();
 * }</pre>
 *
 * A static field starts the broker once for the class; an instance field starts one per test. A
 * class-scoped broker that a test {@link #stop() stopped} comes back for the next test.
 */
public final class EmbeddedKafka
        implements AutoCloseable,
                BeforeAllCallback,
                AfterAllCallback,
                BeforeEachCallback,
                AfterEachCallback {

    private final InProcessKafka.Builder settings;
    private InProcessKafka broker;
    private boolean classScoped;

    private EmbeddedKafka(InProcessKafka.Builder settings) {
        this.settings = settings;
        this.broker = settings.build();
    }

    /** A broker with the defaults: one partition per auto-created topic, free port, temp dir. */
    public static EmbeddedKafka create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The broker underneath (a new one after a re-run of the class). */
    public synchronized InProcessKafka broker() {
        return broker;
    }

    /** Starts the broker (formatting its storage the first time); returns once it answers. */
    public EmbeddedKafka start() {
        broker.start();
        return this;
    }

    /** Stops the broker; its port and data stay for the next {@link #start()}. */
    public void stop() {
        broker.stop();
    }

    public boolean isRunning() {
        return broker.isRunning();
    }

    /** {@code 127.0.0.1:port}; the same across stop and start. */
    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    public int port() {
        return broker.port();
    }

    public Path dataDir() {
        return broker.dataDir();
    }

    public int defaultPartitions() {
        return broker.defaultPartitions();
    }

    public void createTopic(String name) {
        broker.createTopic(name);
    }

    public void createTopic(String name, int partitions) {
        broker.createTopic(name, partitions);
    }

    public void createTopic(String name, int partitions, Map<String, String> configs) {
        broker.createTopic(name, partitions, configs);
    }

    public Set<String> topics() {
        return broker.topics();
    }

    /** A new admin client for this broker; the caller closes it. */
    public Admin createAdmin() {
        return broker.createAdmin();
    }

    @Override
    public void close() {
        broker.close();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        classScoped = true;
        if (broker.isClosed()) {
            // failsafe re-runs a failed class in the same JVM: a fresh broker for the re-run
            broker = settings.build();
        }
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        start();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!classScoped) {
            close();
        }
    }

    /** The settings of {@link InProcessKafka.Builder}. */
    public static final class Builder {
        private final InProcessKafka.Builder broker = InProcessKafka.builder();

        private Builder() {}

        /** Partitions of auto-created topics (broker {@code num.partitions}); default 1. */
        public Builder partitions(int value) {
            broker.partitions(value);
            return this;
        }

        /** A fixed client port instead of a free one. */
        public Builder port(int value) {
            broker.port(value);
            return this;
        }

        /** A data directory the caller owns and that {@link #close()} leaves in place. */
        public Builder dataDir(Path value) {
            broker.dataDir(value);
            return this;
        }

        /** Any broker property, applied last. */
        public Builder brokerProperty(String key, String value) {
            broker.brokerProperty(key, value);
            return this;
        }

        public EmbeddedKafka build() {
            return new EmbeddedKafka(broker);
        }
    }
}
