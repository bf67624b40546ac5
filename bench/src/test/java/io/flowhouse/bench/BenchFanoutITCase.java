// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fan-out stages for real, kept small: the ZMQ bridge into a subscriber (low rates, a slow
 * subscriber), and the IPFIX re-export into nfcapd and goflow2 (one low-rate step each); every flow
 * must arrive or be counted, and the result files must be written. No rate is asserted.
 */
class BenchFanoutITCase {

    @TempDir Path dir;

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8);

    private static BenchOptions args(String... a) {
        return BenchOptions.parse(a);
    }

    @Test
    void zmqStepsAreCleanAndTheSlowSubscriberIsAccounted() throws Exception {
        ZmqBench bench = new ZmqBench(FanoutFlows.load().flows(), out);
        long deadline = System.nanoTime() + 120_000_000_000L;

        ZmqBench.Round round = bench.throughput(20_000, deadline);
        assertThat(round.flows()).isEqualTo(20_000);
        assertThat(round.complete()).as(log.toString(StandardCharsets.UTF_8)).isTrue();
        assertThat(round.cpuNanos()).containsKeys("caller", "publisher", "subscriber");

        SystemResult r = bench.search(List.of(5_000.0, 10_000.0), 1, deadline);
        assertThat(r.error()).as(log.toString(StandardCharsets.UTF_8)).isNull();
        assertThat(r.steps()).hasSize(2);
        for (StepResult s : r.steps()) {
            assertThat(s.expected()).isPositive();
            assertThat(s.delivered()).isEqualTo(s.expected());
            assertThat(s.clean()).isTrue();
        }

        ZmqBench.SlowResult slow = bench.slowSubscriber(1);
        assertThat(slow.offered()).isPositive();
        assertThat(slow.accounted()).as(slow.describe(1)).isTrue();
        assertThat(slow.depthAtEnd()).isLessThanOrEqualTo(65_536);
    }

    @Test
    void ipfixStageCountsEveryRecordInNfcapdAndGoflow2() throws Exception {
        boolean required =
                Boolean.parseBoolean(System.getProperty("flowhouse.it.required", "false"));
        boolean tools =
                PeerTools.find("nfcapd", List.of()).isPresent()
                        && PeerTools.find("nfdump", List.of()).isPresent()
                        && PeerTools.find("goflow2", List.of(PeerTools.goBin().resolve("goflow2")))
                                .isPresent();
        if (required) {
            assertThat(tools).as("nfcapd, nfdump and goflow2 installed").isTrue();
        }
        Assumptions.assumeTrue(tools, "nfcapd, nfdump or goflow2 missing");

        int code =
                IpfixBench.run(
                        args(
                                "--systems",
                                "nfcapd:1400,goflow2:8960",
                                "--rates",
                                "5000",
                                "--goflow2-rates",
                                "500",
                                "--step-seconds",
                                "1",
                                "--time-limit-seconds",
                                "240"),
                        dir.resolve("state"),
                        dir.resolve("results"),
                        "it",
                        out);
        String text = log.toString(StandardCharsets.UTF_8);
        assertThat(code).as(text).isZero();
        assertThat(text).contains("nfcapd/1400", "goflow2/8960").doesNotContain("LOSS");
        String json = Files.readString(dir.resolve("results/ipfix-it.json"));
        assertThat(json).contains("\"system\": \"nfcapd/1400\"", "\"clean\": true");
        assertThat(dir.resolve("results/ipfix-it.csv")).exists();
        assertThat(dir.resolve("results/ipfix-it.png")).exists();
    }
}
