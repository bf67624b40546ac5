// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.testkit.ServiceRequirement;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * loadgen over loopback UDP into nfdump's collector (nfcapd): {@code nfdump -I} reports exactly the
 * summary's flows, packets and bytes. An independent decoder, so this checks the encoders against
 * the outside world, not against our own decoder.
 */
class NfcapdITCase {

    @TempDir Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"v5", "v9", "ipfix", "mix"})
    void nfdumpTotalsEqualTheSummary(String protocol) throws Exception {
        Path nfcapd = ServiceRequirement.requireExecutable("nfcapd", "apt-get install nfdump");
        Path nfdump = ServiceRequirement.requireExecutable("nfdump", "apt-get install nfdump");
        int port = freeUdpPort();
        Path flows = Files.createDirectories(dir.resolve("flows"));
        Process collector =
                new ProcessBuilder(
                                nfcapd.toString(),
                                "-b",
                                "127.0.0.1",
                                "-p",
                                Integer.toString(port),
                                "-w",
                                flows.toString(),
                                "-B",
                                "4194304",
                                "-t",
                                "3600")
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("nfcapd.log").toFile())
                        .start();
        Path json = dir.resolve("summary.json");
        try {
            awaitUdpBound(port, collector);
            int exit =
                    LoadgenUdpITCase.run(
                            "--to",
                            "127.0.0.1:" + port,
                            "--protocol",
                            protocol,
                            "--exporters",
                            "3",
                            "--rate",
                            "15000",
                            "--count",
                            "20000",
                            "--ipv6-share",
                            "0.3",
                            "--summary-json",
                            json.toString(),
                            "--quiet");
            assertThat(exit).isZero();
            Thread.sleep(500); // let nfcapd drain its socket before it is told to stop
        } finally {
            collector.destroy(); // SIGTERM: nfcapd closes and renames its file
            if (!collector.waitFor(20, TimeUnit.SECONDS)) {
                collector.destroyForcibly();
            }
        }
        SummaryJson s = SummaryJson.read(json);
        Path file;
        try (Stream<Path> files = Files.list(flows)) {
            file =
                    files.filter(p -> p.getFileName().toString().startsWith("nfcapd.2"))
                            .findFirst()
                            .orElseThrow(() -> new AssertionError("nfcapd wrote no file"));
        }
        String info =
                ToolOutput.run(dir, 60, List.of(nfdump.toString(), "-r", file.toString(), "-I"));
        assertThat(field(info, "Flows")).as(info).isEqualTo(s.number("flows"));
        assertThat(field(info, "Packets")).isEqualTo(s.number("packets"));
        assertThat(field(info, "Bytes")).isEqualTo(s.number("bytes"));
    }

    private static long field(String info, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + ": *([0-9]+)").matcher(info);
        if (!m.find()) {
            throw new AssertionError("no " + name + " in nfdump -I output:\n" + info);
        }
        return Long.parseLong(m.group(1));
    }

    private static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            return s.getLocalPort();
        }
    }

    /** Polls /proc/net/udp until the collector's port is bound (at most 10 s). */
    private static void awaitUdpBound(int port, Process p) throws Exception {
        String hex = String.format(java.util.Locale.ROOT, ":%04X ", port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new AssertionError("nfcapd exited with " + p.exitValue());
            }
            if (Files.readString(Path.of("/proc/net/udp")).contains(hex)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("nfcapd did not bind UDP port " + port);
    }
}
