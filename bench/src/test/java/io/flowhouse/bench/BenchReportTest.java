// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchReportTest {

    @TempDir Path dir;

    private static StepResult step(String system, double rate, long expected, long delivered) {
        return new StepResult(
                system,
                rate,
                rate * 0.999,
                true,
                (long) rate * 8,
                (long) rate / 2,
                "flows",
                expected,
                delivered,
                expected - delivered,
                Map.of("decoder_errors", 0L),
                Map.of("goflow2", 37.5, "loadgen", 12.0),
                Map.of("goflow2", 38L),
                9.5);
    }

    @Test
    void cleanMeansNothingLostAnywhere() {
        assertThat(step("a", 1000, 10, 10).clean()).isTrue();
        StepResult lossy = step("a", 1000, 10, 9);
        assertThat(lossy.clean()).isFalse();
        assertThat(lossy.lossPercent()).isEqualTo(10.0);
        SystemResult s =
                new SystemResult(
                        "a",
                        List.of(step("a", 1000, 10, 10), step("a", 2000, 20, 20), lossy),
                        false,
                        null,
                        List.of());
        assertThat(s.highestCleanRate()).isEqualTo(2000 * 0.999);
        assertThat(s.bestStep().targetRate()).isEqualTo(2000);
    }

    @Test
    void flowsPerCpuSecondOfEachProcess() {
        // 8,000 flows over 9.5 s: goflow2 at 37.5 % of a core spent 3.5625 CPU-seconds.
        StepResult s = step("goflow2", 1000, 10, 10);
        assertThat(s.flowsPerCpuSecond().get("goflow2")).isCloseTo(8_000 / 3.5625, within(1e-6));
        assertThat(s.flowsPerCpuSecond().get("loadgen")).isCloseTo(8_000 / 1.14, within(1e-6));
    }

    @Test
    void writesJsonCsvAndPng() throws Exception {
        List<SystemResult> systems =
                List.of(
                        new SystemResult(
                                "flowhouse-agent",
                                List.of(
                                        step("flowhouse-agent", 25_000, 100, 100),
                                        step("flowhouse-agent", 50_000, 200, 150)),
                                false,
                                null,
                                List.of("agent \"default\" config")),
                        new SystemResult(
                                "goflow2",
                                List.of(step("goflow2", 25_000, 100, 100)),
                                true,
                                null,
                                List.of()));
        Path json = BenchReport.write(dir, "agent", "20260101T000000Z", "{\"x\": 1}", systems);
        String text = Files.readString(json, StandardCharsets.UTF_8);
        assertThat(text)
                .contains("\"stage\": \"agent\"")
                .contains("\"highest_clean_flows_per_s\": 24975.0")
                .contains("\"loadgen_limited\": true")
                .contains("agent \\\"default\\\" config")
                .contains("\"lost\": 50")
                .contains("\"flows_per_cpu_second\": {");
        List<String> csv = Files.readAllLines(dir.resolve("agent-20260101T000000Z.csv"));
        assertThat(csv).hasSize(4);
        assertThat(csv.get(2)).startsWith("flowhouse-agent,50000,").endsWith(",false");
        BufferedImage png = ImageIO.read(dir.resolve("agent-20260101T000000Z.png").toFile());
        assertThat(png.getWidth()).isEqualTo(960);

        ByteArrayOutputStream table = new ByteArrayOutputStream();
        BenchReport.print(new PrintStream(table, true, StandardCharsets.UTF_8), "agent", systems);
        assertThat(table.toString(StandardCharsets.UTF_8))
                .contains("LOSS")
                .contains(">= 24,975")
                .contains("no loss seen: lower bound");
    }

    @Test
    void readsProcAndPrometheusText() throws Exception {
        long self = ProcessHandle.current().pid();
        assertThat(ProcStats.cpuTicks(self)).isPositive();
        assertThat(ProcStats.statusKb(self, "VmRSS")).isPositive();
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            assertThat(ProcStats.udpDrops(s.getLocalPort())).isZero();
            assertThat(BenchContext.udpQueueBytes(s.getLocalPort())).isZero();
        }
        assertThat(LossChart.niceCeil(0.7)).isEqualTo(1.0);
        assertThat(LossChart.niceCeil(41_000)).isEqualTo(50_000);
    }
}
