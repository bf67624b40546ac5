// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.jobs.FlowPipelineJob;
import io.flowhouse.jobs.KafkaTopics;
import io.flowhouse.jobs.PipelineConnectors;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker stops while flows stream through the agent JVM and the job into the decoded-flows
 * topic (exactly once): the agent spools, the job's open transactions fail and it restarts until
 * the broker is back. A {@code read_committed} consumer must then see every flow sent, each {@code
 * row_id} once: zero lost, zero duplicated.
 */
class FlowsTopicBrokerStopITCase {

    private static final int RATE = 250;
    private static final int FLOWS_PER_DATAGRAM = 5;
    private static final String TOPIC = "flows.decoded";

    @TempDir Path dir;

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void brokerStoppedMidStreamLeavesEachFlowOnceOnTheTopic() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).build().start()) {
            kafka.createTopic("flows.raw", 2);
            kafka.createTopic("flows.rejected", 1);
            kafka.createTopic(TOPIC, 2);
            PipelineSettings s = settings(kafka.bootstrapServers());
            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            JobClient job = environment(s).executeAsync("flows topic broker stop");
            long restarted;
            try (AgentProcess agent =
                            new AgentProcess(
                                            agentYaml(
                                                    kafka.bootstrapServers(), udpPort, metricsPort),
                                            dir.resolve("agent.log"),
                                            metricsPort)
                                    .start();
                    SteadySender sender = new SteadySender(udpPort, FLOWS_PER_DATAGRAM)) {
                sender.send(RATE * 8, RATE);
                // Some flows committed on the topic before the broker goes.
                assertThat(
                                FlowsTopicReader.await(
                                                kafka.bootstrapServers(),
                                                TOPIC,
                                                1,
                                                Duration.ofSeconds(120))
                                        .distinct())
                        .isPositive();

                kafka.stop();
                long stopped = System.nanoTime();
                sender.send(RATE * 10, RATE); // spooled by the agent; the job's commits fail
                kafka.start();
                sender.send(RATE * 8, RATE);
                restarted = System.nanoTime();

                FlowsTopicReader.Count c =
                        FlowsTopicReader.await(
                                kafka.bootstrapServers(),
                                TOPIC,
                                sender.flows(),
                                Duration.ofSeconds(240));
                // Later checkpoints commit nothing new: a replayed copy would show up here.
                Thread.sleep(5_000);
                c = FlowsTopicReader.read(kafka.bootstrapServers(), TOPIC);
                Duration exact = Duration.ofNanos(System.nanoTime() - stopped);
                assertThat(agent.metricSum("flowhouse_agent_dropped_datagrams_total")).isZero();
                assertThat(agent.metric("flowhouse_agent_spooled_records_total"))
                        .as("datagrams the agent spooled while the broker was down")
                        .isPositive();
                assertThat(c.distinct())
                        .as("distinct row ids (lost if fewer)")
                        .isEqualTo(sender.flows());
                assertThat(c.duplicates()).as("records beyond one per row id").isZero();
                assertThat(c.packets()).as("packets").isEqualTo(sender.packets());
                assertThat(c.bytes()).as("bytes").isEqualTo(sender.bytes());
                System.out.printf(
                        java.util.Locale.ROOT,
                        "flows topic, broker stop: sent %d datagrams, %d flows; topic"
                                + " (read_committed) %d records, %d row ids; exact %.1f s after"
                                + " the stop%n",
                        sender.sent(),
                        sender.flows(),
                        c.records(),
                        c.distinct(),
                        exact.toMillis() / 1000.0);
                FaultSupport.row(
                        "flows topic: broker stop mid-stream",
                        sender.sent(),
                        c.distinct() / FLOWS_PER_DATAGRAM,
                        0,
                        (sender.flows() - c.distinct()) / FLOWS_PER_DATAGRAM,
                        c.duplicates(),
                        Duration.ofNanos(System.nanoTime() - restarted),
                        "flows.decoded read_committed, by row_id");
            } finally {
                job.cancel().get(60, TimeUnit.SECONDS);
            }
        }
    }

    private Path agentYaml(String bootstrap, int udpPort, int metricsPort) throws Exception {
        Path yaml = dir.resolve("agent.yaml");
        Files.writeString(
                yaml,
                String.join(
                        "\n",
                        "agent:",
                        "  id: flows-topic-broker-stop",
                        "udp:",
                        "  listen: ['127.0.0.1:" + udpPort + "']",
                        "  sockets-per-listener: 1",
                        "kafka:",
                        "  bootstrap-servers: '" + bootstrap + "'",
                        "  delivery-timeout-ms: 5000",
                        "spool:",
                        "  directory: '" + dir.resolve("spool") + "'",
                        "metrics:",
                        "  host: 127.0.0.1",
                        "  port: " + metricsPort,
                        ""),
                StandardCharsets.UTF_8);
        return yaml;
    }

    private static PipelineSettings settings(String bootstrap) {
        String[] args = {
            "--kafka.bootstrap-servers", bootstrap,
            "--kafka.topic.raw", "flows.raw",
            "--kafka.topic.rejected", "flows.rejected",
            "--kafka.topic.templates", "flows.templates",
            "--kafka.group-id", "flows-topic-broker-stop",
            "--kafka.start", "earliest",
            "--job.parallelism", "2",
            "--job.checkpoint-interval", "1 s",
            "--flows-topic.enabled", "true",
            "--flows-topic.topic", TOPIC,
            "--flows-topic.transactional-id-prefix", "broker-stop-it"
        };
        return PipelineSettings.from(JobArgs.resolve(Map.of(), args), Map.of());
    }

    /** The production graph; ClickHouse's outputs dropped (the topic is what is counted). */
    private static StreamExecutionEnvironment environment(PipelineSettings s) throws Exception {
        Configuration c = new Configuration();
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 60);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(2));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
        FlowPipelineJob.configure(env, s);
        KafkaTopics.ensure(s);
        FlowPipelineJob.build(
                env,
                PipelineConnectors.sources(s),
                PipelineConnectors.sinks(s)
                        .withFlows(new DiscardingSink<>())
                        .withStats(null)
                        .withInterfaceCounters(null)
                        .withPacketFlows(new DiscardingSink<>())
                        .withRollups(r -> new DiscardingSink<>()),
                s);
        return env;
    }
}
