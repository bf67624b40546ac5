// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.kafka.TopicAdmin;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The agent stage for real, kept small: loadgen -> the capture agent in its own JVM -> a real Kafka
 * broker, two short steps at low rates; every datagram must be in the agent's topic, and the result
 * files must be written.
 */
class BenchAgentITCase {

    @RegisterExtension static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().build();

    @TempDir Path dir;

    /** One record per datagram, and batch records of up to 16 (the agent batches by default). */
    @ParameterizedTest
    @ValueSource(ints = {1, 16})
    void agentStepsAreCleanAndResultsAreWritten(int recordMaxDatagrams) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8);
        try (TopicAdmin kafka = TopicAdmin.connect(KAFKA.bootstrapServers(), new Properties())) {
            BenchContext ctx =
                    new BenchContext(
                            "it" + System.currentTimeMillis(),
                            Files.createDirectories(dir.resolve("work")),
                            dir.resolve("results"),
                            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                            System.getProperty("java.class.path"),
                            KAFKA.bootstrapServers(),
                            kafka);
            DropFreeSearch search =
                    new DropFreeSearch(
                            new DropFreeSearch.Settings(
                                    "mix", 3, List.of(2_000.0, 4_000.0), 2, 20_000, 0),
                            out,
                            Map.of("loadgen", ProcessHandle.current().pid()));
            SystemResult r =
                    search.run(
                            new AgentCollector(ctx, recordMaxDatagrams),
                            System.nanoTime() + 150_000_000_000L);
            assertThat(r.error()).as(log.toString(StandardCharsets.UTF_8)).isNull();
            assertThat(r.steps()).hasSize(2);
            for (StepResult s : r.steps()) {
                assertThat(s.expected()).isPositive();
                assertThat(s.delivered()).isEqualTo(s.expected());
                assertThat(s.kernelDrops()).isZero();
                assertThat(s.clean()).isTrue();
                assertThat(s.cpuPercent()).containsKeys("agent", "loadgen");
                assertThat(s.peakRssMb().get("agent")).isPositive();
            }
            assertThat(r.loadgenLimited()).as("ended clean: a lower bound").isTrue();
            Path json = BenchReport.write(dir.resolve("results"), "agent", "it", "{}", List.of(r));
            assertThat(Files.readString(json)).contains("\"system\": \"flowhouse-agent\"");
            assertThat(dir.resolve("results/agent-it.png")).exists();
        }
    }
}
