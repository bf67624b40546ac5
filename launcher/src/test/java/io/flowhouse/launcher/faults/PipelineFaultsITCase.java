// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.jobs.FlowPipelineJob;
import io.flowhouse.jobs.KafkaTopics;
import io.flowhouse.jobs.PipelineConnectors;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.tables.JobTables;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole pipeline - agent JVM, broker, FlowPipelineJob, clickhouse-server - with two faults
 * while datagrams stream: the agent is killed with SIGKILL and restarted, then ClickHouse is
 * stopped for 30 s. The documented query ({@code FROM flowhouse.flows FINAL}) must then return
 * exactly what the sender sent minus what it sent while the agent was down: flows, packets, bytes,
 * one row per row id.
 */
class PipelineFaultsITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static final int RATE = 400;
    private static final Duration OUTAGE = Duration.ofSeconds(30);

    @TempDir Path dir;

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void agentSigkillAndClickHouseOutageLeaveExactTotals() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).build().start()) {
            kafka.createTopic("flows.raw", 2);
            kafka.createTopic("flows.rejected", 1);
            PipelineSettings s = settings(kafka.bootstrapServers(), ch, "flowhouse_faults", 2);
            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            Path yaml = dir.resolve("agent.yaml");
            Files.writeString(
                    yaml,
                    String.join(
                            "\n",
                            "agent:",
                            "  id: pipeline-faults-it",
                            "udp:",
                            "  listen: ['127.0.0.1:" + udpPort + "']",
                            "  sockets-per-listener: 1",
                            "kafka:",
                            "  bootstrap-servers: '" + kafka.bootstrapServers() + "'",
                            "spool:",
                            "  directory: '" + dir.resolve("spool") + "'",
                            "metrics:",
                            "  host: 127.0.0.1",
                            "  port: " + metricsPort,
                            ""),
                    StandardCharsets.UTF_8);
            JobClient job = environment(s, ch, null).executeAsync("pipeline faults");
            String table = s.clickhouse().database() + ".flows";
            try (AgentProcess agent =
                            new AgentProcess(yaml, dir.resolve("agent.log"), metricsPort).start();
                    SteadySender sender = new SteadySender(udpPort, 1)) {
                sender.send(1_200, RATE);
                awaitScalar(ch, "SELECT count() FROM " + table, 1);
                long acked = sender.sent();
                awaitAcked(agent, acked);

                sender.down(true);
                long killed = System.nanoTime();
                agent.kill9();
                sender.send(400, RATE);
                agent.start();
                sender.down(false);
                Duration agentRecovery = Duration.ofNanos(System.nanoTime() - killed);
                sender.send(1_200, RATE);

                ch.stop();
                Thread stream = new Thread(() -> sender.send(RATE * 30, RATE), "faults-sender");
                stream.start();
                Thread.sleep(OUTAGE.toMillis());
                ch.start();
                long chBack = System.nanoTime();
                stream.join(120_000);
                assertThat(stream.isAlive()).isFalse();

                long[] lost = sender.lostTotals();
                long flows = sender.flows() - lost[0];
                long packets = sender.packets() - lost[1];
                long bytes = sender.bytes() - lost[2];
                awaitScalar(ch, "SELECT sum(packets) FROM " + table + " FINAL", packets);
                Duration chRecovery = Duration.ofNanos(System.nanoTime() - chBack);
                List<String> row =
                        ch.queryRows(
                                        "SELECT count(), sum(packets), sum(bytes),"
                                                + " uniqExact(row_id) FROM "
                                                + table
                                                + " FINAL")
                                .get(0);
                long stored = Long.parseLong(row.get(0));
                long rowIds = Long.parseLong(row.get(3));
                assertThat(stored).as("flows").isEqualTo(flows);
                assertThat(Long.parseLong(row.get(1))).as("packets").isEqualTo(packets);
                assertThat(Long.parseLong(row.get(2))).as("bytes").isEqualTo(bytes);
                assertThat(rowIds).as("row ids").isEqualTo(flows);
                long plain = Long.parseLong(ch.queryScalar("SELECT count() FROM " + table));
                FaultSupport.row(
                        "e2e: agent kill -9 + restart",
                        sender.sent(),
                        stored,
                        sender.sentWhileDown(),
                        flows - stored,
                        0,
                        agentRecovery,
                        "ClickHouse FINAL");
                FaultSupport.row(
                        "e2e: ClickHouse stopped 30 s",
                        sender.sent(),
                        stored,
                        sender.sentWhileDown(),
                        flows - stored,
                        stored - rowIds,
                        chRecovery,
                        "ClickHouse FINAL (" + (plain - stored) + " replayed rows pre-merge)");
            } finally {
                FaultSupport.cancelIfRunning(job);
            }
        }
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void stopWithSavepointAndRestoreAtAnotherParallelismLeavesExactTotals() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).build().start()) {
            kafka.createTopic("flows.raw", 2);
            kafka.createTopic("flows.rejected", 1);
            PipelineSettings p2 = settings(kafka.bootstrapServers(), ch, "flowhouse_rescale", 2);
            // Restored with start=latest: only the savepoint's offsets can bring back what was
            // sent while no job ran, so the totals prove the restore.
            PipelineSettings p1 =
                    settings(kafka.bootstrapServers(), ch, "flowhouse_rescale", 1, "latest");
            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            Path yaml = dir.resolve("agent.yaml");
            Files.writeString(
                    yaml,
                    String.join(
                            "\n",
                            "agent:",
                            "  id: rescale-it",
                            "udp:",
                            "  listen: ['127.0.0.1:" + udpPort + "']",
                            "  sockets-per-listener: 1",
                            "kafka:",
                            "  bootstrap-servers: '" + kafka.bootstrapServers() + "'",
                            "spool:",
                            "  directory: '" + dir.resolve("spool") + "'",
                            "metrics:",
                            "  host: 127.0.0.1",
                            "  port: " + metricsPort,
                            ""),
                    StandardCharsets.UTF_8);
            String table = p2.clickhouse().database() + ".flows";
            JobClient second = null;
            JobClient first = environment(p2, ch, null).executeAsync("rescale p2");
            try (AgentProcess agent =
                            new AgentProcess(yaml, dir.resolve("agent.log"), metricsPort).start();
                    SteadySender sender = new SteadySender(udpPort, 1)) {
                Thread stream = new Thread(() -> sender.send(RATE * 25, RATE), "faults-sender");
                stream.start();
                awaitScalar(ch, "SELECT count() FROM " + table, 1);
                Thread.sleep(3_000);
                long stopping = System.nanoTime();
                String savepoint =
                        first.stopWithSavepoint(
                                        false,
                                        dir.resolve("savepoints").toUri().toString(),
                                        SavepointFormatType.CANONICAL)
                                .get(120, TimeUnit.SECONDS);
                Thread.sleep(3_000);
                second = environment(p1, ch, savepoint).executeAsync("rescale p1");
                stream.join(120_000);
                assertThat(stream.isAlive()).isFalse();
                awaitScalar(ch, "SELECT sum(packets) FROM " + table + " FINAL", sender.packets());
                Duration recovery = Duration.ofNanos(System.nanoTime() - stopping);
                List<String> row =
                        ch.queryRows(
                                        "SELECT count(), sum(packets), sum(bytes),"
                                                + " uniqExact(row_id) FROM "
                                                + table
                                                + " FINAL")
                                .get(0);
                long stored = Long.parseLong(row.get(0));
                assertThat(savepoint).isNotBlank();
                assertThat(agent.metricSum("flowhouse_agent_dropped_datagrams_total")).isZero();
                assertThat(stored).as("flows").isEqualTo(sender.flows());
                assertThat(Long.parseLong(row.get(1))).as("packets").isEqualTo(sender.packets());
                assertThat(Long.parseLong(row.get(2))).as("bytes").isEqualTo(sender.bytes());
                assertThat(Long.parseLong(row.get(3))).as("row ids").isEqualTo(stored);
                FaultSupport.row(
                        "e2e: stop with savepoint, restore p=2 -> 1",
                        sender.sent(),
                        stored,
                        0,
                        sender.flows() - stored,
                        0,
                        recovery,
                        "ClickHouse FINAL");
            } finally {
                FaultSupport.cancelIfRunning(second);
                FaultSupport.cancelIfRunning(first);
            }
        }
    }

    private static PipelineSettings settings(
            String bootstrap, LocalClickHouse ch, String database, int parallelism) {
        return settings(bootstrap, ch, database, parallelism, "earliest");
    }

    private static PipelineSettings settings(
            String bootstrap, LocalClickHouse ch, String database, int parallelism, String start) {
        String[] args = {
            "--kafka.bootstrap-servers",
            bootstrap,
            "--kafka.topic.raw",
            "flows.raw",
            "--kafka.topic.rejected",
            "flows.rejected",
            "--kafka.topic.templates",
            "flows.templates",
            "--kafka.group-id",
            database,
            "--kafka.start",
            start,
            "--job.parallelism",
            Integer.toString(parallelism),
            "--job.checkpoint-interval",
            "1 s",
            "--clickhouse.url",
            ch.httpUrl(),
            "--clickhouse.database",
            database,
            "--clickhouse.user",
            ch.user(),
            "--clickhouse.batch-size",
            "5000",
            "--clickhouse.flush-interval",
            "500 ms",
            "--clickhouse.max-retries",
            "30"
        };
        return PipelineSettings.from(JobArgs.resolve(Map.of(), args), Map.of());
    }

    /** The production topology with bounded restarts (40 x 2 s rides out the 30 s outage). */
    private static StreamExecutionEnvironment environment(
            PipelineSettings s, LocalClickHouse ch, String savepoint) throws Exception {
        Configuration c = new Configuration();
        if (savepoint != null) {
            c.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 40);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(2));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
        FlowPipelineJob.configure(env, s);
        KafkaTopics.ensure(s);
        JobTables o = s.clickhouse().tables().withPassword(ch.password());
        FlowPipelineJob.build(
                env, PipelineConnectors.sources(s), PipelineConnectors.sinks(s, o), s);
        return env;
    }

    private static void awaitAcked(AgentProcess agent, long n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String sample = "flowhouse_agent_kafka_datagrams_total{topic=\"flows.raw\"}";
        while (System.nanoTime() < deadline && agent.metric(sample) < n) {
            Thread.sleep(200);
        }
        assertThat(agent.metric(sample)).isEqualTo(n);
    }

    /** Polls until the query's single number reaches {@code atLeast}; bounded in time. */
    private static void awaitScalar(LocalClickHouse ch, String sql, long atLeast)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                String v = ch.queryScalar(sql);
                if (!v.isEmpty() && Long.parseLong(v) >= atLeast) {
                    return;
                }
            } catch (RuntimeException e) {
                // Down or starting: poll again.
            }
            Thread.sleep(500);
        }
    }
}
