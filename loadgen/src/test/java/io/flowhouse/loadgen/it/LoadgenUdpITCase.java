// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.loadgen.LoadgenMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./flowhouse loadgen} over real loopback UDP to a plain Java collector at a moderate rate:
 * what arrives, decoded, equals the summary's exact totals.
 */
class LoadgenUdpITCase {

    @TempDir Path dir;

    @Test
    void mixOfProtocolsWithSamplingGapsAndMalformedDatagrams() throws Exception {
        try (CountingCollector c = new CountingCollector("127.0.0.1")) {
            Path json = dir.resolve("summary.json");
            int exit =
                    run(
                            "--to",
                            "127.0.0.1:" + c.address().getPort(),
                            "--protocol",
                            "mix",
                            "--exporters",
                            "6",
                            "--rate",
                            "20000",
                            "--duration",
                            "3s",
                            "--seed",
                            "7",
                            "--sampling",
                            "8",
                            "--gap-ratio",
                            "0.01",
                            "--malformed-ratio",
                            "0.01",
                            "--summary-json",
                            json.toString(),
                            "--quiet");
            assertThat(exit).isZero();
            SummaryJson s = SummaryJson.read(json);
            long sent = s.number("datagrams") + s.number("malformed_datagrams");
            assertThat(c.awaitDatagrams(sent, 10_000)).as("all %d datagrams arrive", sent).isTrue();
            assertThat(c.datagrams()).isEqualTo(sent);
            assertThat(c.malformed()).isEqualTo(s.number("malformed_datagrams")).isPositive();
            assertThat(c.records()).isEqualTo(s.number("flows")).isPositive();
            assertThat(c.packets()).isEqualTo(s.number("packets"));
            assertThat(c.bytes()).isEqualTo(s.number("bytes"));
            assertThat(c.samplingRate()).isEqualTo(8);
            assertThat(c.sources()).isEqualTo(6);
            assertThat(s.exporters()).isEqualTo(6);
            assertThat(s.number("send_errors")).isZero();
        }
    }

    @Test
    void countOfIpfixFlowsOverIpv6Loopback() throws Exception {
        try (CountingCollector c = new CountingCollector("::1")) {
            Path json = dir.resolve("summary6.json");
            int exit =
                    run(
                            "--to",
                            "[::1]:" + c.address().getPort(),
                            "--protocol",
                            "ipfix",
                            "--exporters",
                            "3",
                            "--rate",
                            "30000",
                            "--count",
                            "25000",
                            "--ipv6-share",
                            "0.5",
                            "--summary-json",
                            json.toString(),
                            "--quiet");
            assertThat(exit).isZero();
            SummaryJson s = SummaryJson.read(json);
            assertThat(s.number("flows")).isEqualTo(25_000);
            assertThat(c.awaitDatagrams(s.number("datagrams"), 10_000)).isTrue();
            assertThat(c.records()).isEqualTo(25_000);
            assertThat(c.packets()).isEqualTo(s.number("packets"));
            assertThat(c.bytes()).isEqualTo(s.number("bytes"));
            assertThat(c.sources()).isEqualTo(3);
        }
    }

    @Test
    void sflowSamplesAtASetRateWithExactTotals() throws Exception {
        try (CountingCollector c = new CountingCollector("127.0.0.1")) {
            Path json = dir.resolve("summary-sflow.json");
            long start = System.nanoTime();
            int exit =
                    run(
                            "--to",
                            "127.0.0.1:" + c.address().getPort(),
                            "--protocol",
                            "sflow",
                            "--exporters",
                            "4",
                            "--rate",
                            "20000",
                            "--count",
                            "40000",
                            "--sampling",
                            "512",
                            "--ipv6-share",
                            "0.3",
                            "--summary-json",
                            json.toString(),
                            "--quiet");
            double seconds = (System.nanoTime() - start) / 1e9;
            assertThat(exit).isZero();
            SummaryJson s = SummaryJson.read(json);
            assertThat(s.number("flows")).isEqualTo(40_000);
            // One packet per sample; at 20,000 samples/s the run takes about 2 s.
            assertThat(s.number("packets")).isEqualTo(40_000);
            assertThat(seconds).isGreaterThan(1.5);
            assertThat(c.awaitDatagrams(s.number("datagrams"), 10_000)).isTrue();
            assertThat(c.records()).isEqualTo(40_000);
            assertThat(c.packets()).isEqualTo(s.number("packets"));
            assertThat(c.bytes()).isEqualTo(s.number("bytes"));
            assertThat(c.sources()).isEqualTo(4);
            assertThat(c.samplingRate()).isEqualTo(512);
            assertThat(s.number("send_errors")).isZero();
        }
    }

    @Test
    void replayPoolCyclesPrebuiltDatagramsWithExactTotals() throws Exception {
        for (String protocol : List.of("ipfix", "sflow")) {
            try (CountingCollector c = new CountingCollector("127.0.0.1")) {
                Path json = dir.resolve("summary-replay-" + protocol + ".json");
                int exit =
                        run(
                                "--to",
                                "127.0.0.1:" + c.address().getPort(),
                                "--protocol",
                                protocol,
                                "--exporters",
                                "2",
                                "--rate",
                                "20000",
                                "--duration",
                                "1s",
                                "--replay-pool",
                                "5",
                                "--summary-json",
                                json.toString(),
                                "--quiet");
                assertThat(exit).isZero();
                SummaryJson s = SummaryJson.read(json);
                assertThat(s.number("datagrams")).as(protocol).isGreaterThan(100);
                assertThat(c.awaitDatagrams(s.number("datagrams"), 10_000)).isTrue();
                assertThat(c.malformed()).isZero();
                assertThat(c.records()).as(protocol).isEqualTo(s.number("flows"));
                assertThat(c.packets()).as(protocol).isEqualTo(s.number("packets"));
                assertThat(c.bytes()).as(protocol).isEqualTo(s.number("bytes"));
                // Two exporters' pools of five: the bodies repeat, only the headers change.
                assertThat(c.distinctBodies()).as(protocol).isLessThanOrEqualTo(10);
            }
        }
    }

    @Test
    void eachExporterSendsFromItsOwnAddressWithBindPlus() throws Exception {
        try (CountingCollector c = new CountingCollector("127.0.0.1")) {
            Path json = dir.resolve("summary-bind.json");
            int exit =
                    run(
                            "--to",
                            "127.0.0.1:" + c.address().getPort(),
                            "--protocol",
                            "ipfix",
                            "--exporters",
                            "3",
                            "--bind",
                            "127.0.0.254+",
                            "--rate",
                            "20000",
                            "--count",
                            "3000",
                            "--summary-json",
                            json.toString(),
                            "--quiet");
            assertThat(exit).isZero();
            SummaryJson s = SummaryJson.read(json);
            assertThat(c.awaitDatagrams(s.number("datagrams"), 10_000)).isTrue();
            assertThat(c.records()).isEqualTo(3_000);
            assertThat(c.sourceAddresses())
                    .containsExactly("127.0.0.254", "127.0.0.255", "127.0.1.0");
        }
    }

    @Test
    void badArgumentsExitWithUsage() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit =
                LoadgenMain.run(
                        new String[] {"--protocol", "v7", "--to", "127.0.0.1:2055"},
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).isEqualTo(LoadgenMain.EXIT_USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--protocol v7");
    }

    static int run(String... args) {
        return LoadgenMain.run(
                args,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }
}
