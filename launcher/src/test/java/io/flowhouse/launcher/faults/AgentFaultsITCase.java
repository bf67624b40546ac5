// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.testkit.kafka.EmbeddedKafka;
import io.flowhouse.testkit.kafka.RawRecords;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults at the front of the pipeline, with a real agent JVM and a real broker: the agent killed
 * with SIGKILL and restarted, the broker stopped for 30 s, and the spool filled to its bound. Every
 * datagram is told apart by its v5 sequence number, so the raw topic is compared with what the
 * sender sent, one by one: flows, packets and bytes, losses and duplicates.
 */
class AgentFaultsITCase {

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(120);
    private static final String RAW_ACKED =
            "flowhouse_agent_kafka_datagrams_total{topic=\"flows.raw\"}";

    @TempDir Path dir;

    private Path agentYaml(EmbeddedKafka kafka, int udpPort, int metricsPort, String extra)
            throws Exception {
        Path yaml = dir.resolve("agent.yaml");
        Files.writeString(
                yaml,
                String.join(
                        "\n",
                        "agent:",
                        "  id: faults-it",
                        "udp:",
                        "  listen: ['127.0.0.1:" + udpPort + "']",
                        "  sockets-per-listener: 1",
                        "  receive-buffer-bytes: 8388608",
                        "kafka:",
                        "  bootstrap-servers: '" + kafka.bootstrapServers() + "'",
                        "spool:",
                        "  directory: '" + dir.resolve("spool") + "'",
                        "metrics:",
                        "  host: 127.0.0.1",
                        "  port: " + metricsPort,
                        extra,
                        ""),
                StandardCharsets.UTF_8);
        return yaml;
    }

    private static FaultSupport.Stored readRaw(EmbeddedKafka kafka, int expected) {
        List<ConsumerRecord<byte[], byte[]>> records =
                RawRecords.read(
                        Map.of("bootstrap.servers", kafka.bootstrapServers()),
                        "flows.raw",
                        READ_TIMEOUT,
                        expected);
        return FaultSupport.Stored.of(records);
    }

    private static void awaitMetric(AgentProcess agent, String sample, long value, Duration max)
            throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (System.nanoTime() < deadline && agent.metric(sample) != value) {
            Thread.sleep(200);
        }
        assertThat(agent.metric(sample)).as(sample).isEqualTo(value);
    }

    @Test
    void agentKilledWithSigkillAndRestartedLosesOnlyWhatWasSentWhileDown() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).build().start()) {
            kafka.createTopic("flows.raw", 2);
            kafka.createTopic("flows.rejected", 1);
            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            Path yaml = agentYaml(kafka, udpPort, metricsPort, "");
            try (AgentProcess agent =
                            new AgentProcess(yaml, dir.resolve("agent.log"), metricsPort).start();
                    SteadySender sender = new SteadySender(udpPort, 1)) {
                long firstPid = agent.pid();
                sender.send(1_500, 500);
                awaitMetric(agent, RAW_ACKED, 1_500, Duration.ofSeconds(60));

                sender.down(true);
                long killed = System.nanoTime();
                agent.kill9();
                sender.send(500, 500);
                agent.start();
                sender.down(false);
                Duration recovery = Duration.ofNanos(System.nanoTime() - killed);
                assertThat(agent.pid()).isNotEqualTo(firstPid);
                sender.send(1_500, 500);

                int expected = sender.sent() - sender.sentWhileDown();
                FaultSupport.Stored stored = readRaw(kafka, expected);
                long unexpected = 0;
                for (int seq = 0; seq < sender.sent(); seq++) {
                    boolean there = stored.seen().containsKey(seq);
                    assertThat(there)
                            .as(
                                    "datagram %d (sent while down: %s)",
                                    seq, sender.wasSentWhileDown(seq))
                            .isEqualTo(!sender.wasSentWhileDown(seq));
                    unexpected += there || sender.wasSentWhileDown(seq) ? 0 : 1;
                }
                long[] lost = sender.lostTotals();
                assertThat(stored.duplicates()).isZero();
                assertThat(stored.flows()).isEqualTo(sender.flows() - lost[0]);
                assertThat(stored.packets()).isEqualTo(sender.packets() - lost[1]);
                assertThat(stored.bytes()).isEqualTo(sender.bytes() - lost[2]);
                FaultSupport.row(
                        "agent kill -9 + restart",
                        sender.sent(),
                        stored.distinct(),
                        sender.sentWhileDown(),
                        unexpected,
                        stored.duplicates(),
                        recovery,
                        "flows.raw");
            }
        }
    }

    @Test
    void brokerStoppedForThirtySecondsLosesNothing() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).build().start()) {
            kafka.createTopic("flows.raw", 2);
            kafka.createTopic("flows.rejected", 1);
            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            Path yaml =
                    agentYaml(
                            kafka,
                            udpPort,
                            metricsPort,
                            "  enabled: true\n# broker outage: spool on disk");
            try (AgentProcess agent =
                            new AgentProcess(yaml, dir.resolve("agent.log"), metricsPort).start();
                    SteadySender sender = new SteadySender(udpPort, 1)) {
                Thread stream = new Thread(() -> sender.send(20_000, 500), "faults-sender");
                stream.start();
                Thread.sleep(5_000);
                kafka.stop();
                Thread.sleep(30_000);
                long spooledWhileDown = agent.metric("flowhouse_agent_spooled_records_total");
                kafka.start();
                long started = System.nanoTime();
                long deadline = started + Duration.ofSeconds(120).toNanos();
                while (System.nanoTime() < deadline
                        && agent.metric("flowhouse_agent_spool_depth_records") > 0) {
                    Thread.sleep(200);
                }
                Duration recovery = Duration.ofNanos(System.nanoTime() - started);
                stream.join(120_000);
                assertThat(stream.isAlive()).isFalse();

                FaultSupport.Stored stored = readRaw(kafka, sender.sent());
                assertThat(spooledWhileDown).as("records spooled during the outage").isPositive();
                assertThat(agent.metricSum("flowhouse_agent_dropped_datagrams_total")).isZero();
                assertThat(stored.duplicates()).isZero();
                assertThat(stored.distinct()).isEqualTo(sender.sent());
                assertThat(stored.flows()).isEqualTo(sender.flows());
                assertThat(stored.packets()).isEqualTo(sender.packets());
                assertThat(stored.bytes()).isEqualTo(sender.bytes());
                FaultSupport.row(
                        "Kafka broker stopped 30 s",
                        sender.sent(),
                        stored.distinct(),
                        0,
                        sender.sent() - stored.distinct(),
                        stored.duplicates(),
                        recovery,
                        "flows.raw");
            }
        }
    }

    @Test
    void spoolFilledToItsBoundDropsAndCountsTheOverflowExactly() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).build().start()) {
            kafka.createTopic("flows.raw", 2);
            kafka.createTopic("flows.rejected", 1);
            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            String bound =
                    String.join(
                            "\n",
                            "  enabled: true",
                            "# a 1 MiB spool (the smallest allowed) and a 1 MiB producer buffer");
            Path yaml = agentYaml(kafka, udpPort, metricsPort, bound);
            String text = Files.readString(yaml, StandardCharsets.UTF_8);
            text =
                    text.replace(
                                    "spool:\n",
                                    "spool:\n  max-bytes: 1048576\n  segment-bytes: 65536\n")
                            .replace(
                                    "kafka:\n",
                                    "kafka:\n  buffer-memory-bytes: 1048576\n"
                                            + "  batch-bytes: 65536\n");
            Files.writeString(yaml, text, StandardCharsets.UTF_8);
            try (AgentProcess agent =
                            new AgentProcess(yaml, dir.resolve("agent.log"), metricsPort).start();
                    SteadySender sender = new SteadySender(udpPort, 30)) {
                sender.send(200, 500);
                awaitMetric(agent, RAW_ACKED, 200, Duration.ofSeconds(60));
                kafka.stop();
                // 3,000 datagrams of 1,464 bytes: about 4.4 MB against 2 MiB of buffer + spool.
                sender.send(3_000, 1_000);
                // Read the overflow once the agent has taken every datagram off its socket.
                long deadline0 = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (System.nanoTime() < deadline0
                        && agent.metricSum("flowhouse_agent_datagrams_total{") < sender.sent()) {
                    Thread.sleep(200);
                }
                assertThat(agent.metricSum("flowhouse_agent_datagrams_total{"))
                        .isEqualTo(sender.sent());
                long full =
                        agent.metric(
                                "flowhouse_agent_dropped_datagrams_total{reason=\"SPOOL_FULL\"}");
                String health = agent.health();
                kafka.start();
                long started = System.nanoTime();
                long deadline = started + Duration.ofSeconds(120).toNanos();
                while (System.nanoTime() < deadline
                        && agent.metric("flowhouse_agent_spool_depth_records") > 0) {
                    Thread.sleep(200);
                }
                Duration recovery = Duration.ofNanos(System.nanoTime() - started);
                long dropped =
                        agent.metric(
                                "flowhouse_agent_dropped_datagrams_total{reason=\"SPOOL_FULL\"}");
                FaultSupport.Stored stored = readRaw(kafka, (int) (sender.sent() - dropped));
                assertThat(health).as("health while full").contains("SPOOL_FULL");
                assertThat(full).as("overflow while the broker was down").isPositive();
                assertThat(dropped)
                        .as("no SPOOL_FULL drop after the broker came back")
                        .isEqualTo(full);
                assertThat(agent.metricSum("flowhouse_agent_dropped_datagrams_total"))
                        .as("drops of any reason")
                        .isEqualTo(dropped);
                assertThat(agent.metricSum("flowhouse_agent_socket_drops_total")).isZero();
                assertThat(stored.duplicates()).isZero();
                assertThat(stored.distinct()).isEqualTo(sender.sent() - dropped);
                FaultSupport.row(
                        "spool filled to its 1 MiB bound",
                        sender.sent(),
                        stored.distinct(),
                        dropped,
                        sender.sent() - dropped - stored.distinct(),
                        stored.duplicates(),
                        recovery,
                        "flows.raw");
            }
        }
    }
}
