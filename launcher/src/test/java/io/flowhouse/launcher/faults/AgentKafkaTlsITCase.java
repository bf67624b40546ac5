// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.services.kafka.TlsKafka;
import io.flowhouse.testkit.kafka.RawRecords;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The capture agent publishes over TLS + SASL/PLAIN to a broker whose only client listener for it
 * is SASL_SSL, with the password in a secret file (Kafka's {@code FileConfigProvider}): never on
 * the command line, never in the config file, never in the agent's log.
 */
class AgentKafkaTlsITCase {

    private static final int DATAGRAMS = 500;

    @TempDir Path dir;

    @Test
    void agentPublishesOverSaslSslWithThePasswordFromASecretFile() throws Exception {
        String password = "pw-" + UUID.randomUUID();
        try (TlsKafka kafka = TlsKafka.start(dir.resolve("tls"), "flowhouse-agent", password)) {
            kafka.broker().createTopic("flows.raw", 2);
            kafka.broker().createTopic("flows.rejected", 1);

            Path secret = dir.resolve("kafka-secret.properties");
            Files.writeString(
                    secret,
                    "password="
                            + password
                            + "\ntruststore.password="
                            + kafka.truststorePassword()
                            + "\n",
                    StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            String ref = "${file:" + secret + ":";
            Path yaml = dir.resolve("agent.yaml");
            Files.writeString(
                    yaml,
                    String.join(
                            "\n",
                            "agent:",
                            "  id: tls-it",
                            "udp:",
                            "  listen: ['127.0.0.1:" + udpPort + "']",
                            "  sockets-per-listener: 1",
                            "kafka:",
                            "  bootstrap-servers: '" + kafka.saslSslBootstrapServers() + "'",
                            "  properties:",
                            "    config.providers: file",
                            "    config.providers.file.class:"
                                    + " org.apache.kafka.common.config.provider.FileConfigProvider",
                            "    security.protocol: SASL_SSL",
                            "    sasl.mechanism: PLAIN",
                            "    sasl.jaas.config: 'org.apache.kafka.common.security.plain"
                                    + ".PlainLoginModule required username=\"flowhouse-agent\""
                                    + " password=\""
                                    + ref
                                    + "password}\";'",
                            "    ssl.truststore.location: '" + kafka.truststore() + "'",
                            "    ssl.truststore.type: PKCS12",
                            "    ssl.truststore.password: '" + ref + "truststore.password}'",
                            "spool:",
                            "  directory: '" + dir.resolve("spool") + "'",
                            "metrics:",
                            "  host: 127.0.0.1",
                            "  port: " + metricsPort,
                            ""),
                    StandardCharsets.UTF_8);
            assertThat(Files.readString(yaml)).doesNotContain(password);

            Path log = dir.resolve("agent.log");
            try (AgentProcess agent = new AgentProcess(yaml, log, metricsPort).start()) {
                ProcessHandle.Info info = ProcessHandle.of(agent.pid()).orElseThrow().info();
                assertThat(info.arguments().map(List::of).orElse(List.of()))
                        .as("agent argv")
                        .noneMatch(a -> a.contains(password));
                try (DatagramChannel ch = DatagramChannel.open()) {
                    ch.bind(new InetSocketAddress("127.0.0.1", 0));
                    InetSocketAddress target = new InetSocketAddress("127.0.0.1", udpPort);
                    for (int i = 0; i < DATAGRAMS; i++) {
                        ch.send(ByteBuffer.wrap(FaultSupport.v5(i)), target);
                        if (i % 50 == 49) {
                            Thread.sleep(10);
                        }
                    }
                }
                List<ConsumerRecord<byte[], byte[]>> records =
                        RawRecords.read(
                                kafka.clientProperties(password),
                                "flows.raw",
                                Duration.ofSeconds(90),
                                DATAGRAMS);
                FaultSupport.Stored stored = FaultSupport.Stored.of(records);
                assertThat(stored.distinct()).isEqualTo(DATAGRAMS);
                assertThat(stored.duplicates()).isZero();
                assertThat(
                                agent.metric(
                                        "flowhouse_agent_kafka_datagrams_total{topic=\"flows.raw\"}"))
                        .isEqualTo(DATAGRAMS);
                assertThat(agent.metricSum("flowhouse_agent_kafka_send_errors_total")).isZero();
                String text = agent.logText();
                assertThat(text).contains("SASL_SSL");
                assertThat(text).as("agent log").doesNotContain(password);
            }
            assertThat(Files.readString(log)).doesNotContain(password);

            // The same listener refuses a wrong password and a client that does not speak TLS.
            Map<String, String> wrong = new HashMap<>(kafka.clientProperties("not-" + password));
            assertThatThrownBy(() -> listTopics(wrong))
                    .hasStackTraceContaining("Authentication failed");
            Map<String, String> plain = new HashMap<>();
            plain.put("bootstrap.servers", kafka.saslSslBootstrapServers());
            assertThatThrownBy(() -> listTopics(plain)).isNotNull();
        }
    }

    private static void listTopics(Map<String, String> client) throws Exception {
        Properties p = new Properties();
        p.putAll(client);
        p.put("request.timeout.ms", "5000");
        p.put("default.api.timeout.ms", "8000");
        try (Admin admin = Admin.create(p)) {
            admin.listTopics().names().get(15, TimeUnit.SECONDS);
        }
    }
}
