// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.loadgen.LoadgenMain;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./flowhouse loadgen --protocol sflow} with counter samples every second per interface,
 * over real loopback UDP to a capture agent JVM, the broker, the production topology (local
 * cluster) and clickhouse-server: {@code interface_counters} holds exactly the counter samples
 * loadgen reports (their number per agent and the sums of every counter it sums), each with both
 * its generic and its Ethernet record, and {@code flows} holds the flow samples beside them.
 */
class SflowLoadgenCountersITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static final String DATABASE = "flowhouse_sflow_loadgen";
    private static final int EXPORTERS = 3;
    private static final int SAMPLING = 64;

    @TempDir Path dir;

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void interfaceCountersHoldExactlyWhatLoadgenSent() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).build().start()) {
            kafka.createTopic("flows.raw", 2);
            kafka.createTopic("flows.rejected", 1);
            PipelineSettings s = settings(kafka.bootstrapServers(), ch);
            JobClient job = environment(s, ch).executeAsync("sflow loadgen counters");
            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            try (AgentProcess agent =
                    new AgentProcess(
                                    agentYaml(kafka, udpPort, metricsPort),
                                    dir.resolve("agent.log"),
                                    metricsPort)
                            .start()) {
                Path summaryFile = dir.resolve("summary.json");
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                int code =
                        LoadgenMain.run(
                                new String[] {
                                    "--to",
                                    "127.0.0.1:" + udpPort,
                                    "--protocol",
                                    "sflow",
                                    "--exporters",
                                    Integer.toString(EXPORTERS),
                                    "--sampling",
                                    Integer.toString(SAMPLING),
                                    "--rate",
                                    "4000",
                                    "--count",
                                    "24000",
                                    "--counter-interval",
                                    "1s",
                                    "--summary-json",
                                    summaryFile.toString(),
                                    "--quiet"
                                },
                                new PrintStream(out, true, StandardCharsets.UTF_8),
                                new PrintStream(out, true, StandardCharsets.UTF_8));
                assertThat(code).as(out.toString(StandardCharsets.UTF_8)).isZero();
                JsonNode summary = new ObjectMapper().readTree(summaryFile.toFile());
                long datagrams = summary.get("datagrams").asLong();
                long samples = summary.get("counter_samples").asLong();
                // 6 s of traffic, 10 interfaces per agent polled every second.
                assertThat(samples).isGreaterThanOrEqualTo(EXPORTERS * 10 * 4L);

                awaitScalar(agent, datagrams);
                assertThat(agent.metricSum("flowhouse_agent_kafka_datagrams_total"))
                        .as("every datagram reached Kafka")
                        .isEqualTo(datagrams);
                assertThat(agent.metricSum("flowhouse_agent_socket_drops_total")).isZero();
                String counters = DATABASE + ".interface_counters";
                String flows = DATABASE + ".flows";
                awaitScalar(ch, "SELECT count() FROM " + counters + " FINAL", samples);
                awaitScalar(
                        ch,
                        "SELECT count() FROM " + flows + " FINAL",
                        summary.get("flows").asLong());

                assertThat(
                                ch.queryRows(
                                        "SELECT count(), sum(in_octets), sum(out_octets),"
                                                + " sum(in_ucast_pkts), sum(out_ucast_pkts),"
                                                + " sum(in_discards), sum(out_discards),"
                                                + " sum(in_errors), sum(out_errors),"
                                                + " sum(dot3_fcs_errors), min(has_generic),"
                                                + " min(has_ethernet), uniqExact(agent),"
                                                + " uniqExact(agent, if_index) FROM "
                                                + counters
                                                + " FINAL"))
                        .containsExactly(
                                List.of(
                                        Long.toString(samples),
                                        summary.get("counter_in_octets").asText(),
                                        summary.get("counter_out_octets").asText(),
                                        summary.get("counter_in_packets").asText(),
                                        summary.get("counter_out_packets").asText(),
                                        summary.get("counter_in_discards").asText(),
                                        summary.get("counter_out_discards").asText(),
                                        summary.get("counter_in_errors").asText(),
                                        summary.get("counter_out_errors").asText(),
                                        summary.get("counter_fcs_errors").asText(),
                                        "1",
                                        "1",
                                        Integer.toString(EXPORTERS),
                                        Integer.toString(EXPORTERS * 10)));
                // The agents' in counters grew by what their flow samples scaled by the rate say:
                // the traffic after each interface's first poll is in its later counters.
                assertThat(
                                ch.queryScalar(
                                        "SELECT count() FROM (SELECT agent, if_index,"
                                                + " max(in_octets) - min(in_octets) AS d FROM "
                                                + counters
                                                + " FINAL GROUP BY agent, if_index) WHERE d > 0"))
                        .isEqualTo(Integer.toString(EXPORTERS * 10));
                assertThat(
                                ch.queryRows(
                                        "SELECT count(), sum(packets * sampling_rate),"
                                                + " sum(bytes) FROM "
                                                + flows
                                                + " FINAL"))
                        .containsExactly(
                                List.of(
                                        summary.get("flows").asText(),
                                        Long.toString(summary.get("packets").asLong() * SAMPLING),
                                        summary.get("bytes").asText()));
                System.out.printf(
                        "sflow loadgen counters: %d datagrams, %d flow samples, %d counter samples"
                                + " (sum in octets %s) stored exactly%n",
                        datagrams,
                        summary.get("flows").asLong(),
                        samples,
                        summary.get("counter_in_octets").asText());
            } finally {
                job.cancel().get(60, TimeUnit.SECONDS);
            }
        }
    }

    private Path agentYaml(EmbeddedKafka kafka, int udpPort, int metricsPort) throws IOException {
        Path yaml = dir.resolve("agent.yaml");
        Files.writeString(
                yaml,
                String.join(
                        "\n",
                        "agent:",
                        "  id: sflow-loadgen-counters-it",
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
                        ""),
                StandardCharsets.UTF_8);
        return yaml;
    }

    private static PipelineSettings settings(String bootstrap, LocalClickHouse ch) {
        String[] args = {
            "--kafka.bootstrap-servers", bootstrap,
            "--kafka.topic.raw", "flows.raw",
            "--kafka.topic.rejected", "flows.rejected",
            "--kafka.topic.templates", "flows.templates",
            "--kafka.group-id", DATABASE,
            "--kafka.start", "earliest",
            "--job.parallelism", "1",
            "--job.checkpoint-interval", "1 s",
            "--clickhouse.url", ch.httpUrl(),
            "--clickhouse.database", DATABASE,
            "--clickhouse.user", ch.user(),
            "--clickhouse.batch-size", "5000",
            "--clickhouse.flush-interval", "500 ms"
        };
        return PipelineSettings.from(JobArgs.resolve(Map.of(), args), Map.of());
    }

    private static StreamExecutionEnvironment environment(PipelineSettings s, LocalClickHouse ch)
            throws Exception {
        return FaultSupport.productionJob(new Configuration(), s, ch);
    }

    private static void awaitScalar(AgentProcess agent, long records) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline
                && agent.metricSum("flowhouse_agent_kafka_datagrams_total") < records) {
            Thread.sleep(200);
        }
    }

    private static void awaitScalar(LocalClickHouse ch, String sql, long atLeast)
            throws InterruptedException {
        FaultSupport.awaitScalar(ch, sql, atLeast, Duration.ofSeconds(120));
    }
}
