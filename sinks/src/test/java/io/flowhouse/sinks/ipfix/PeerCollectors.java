// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.pcap.PcapWriter;
import io.flowhouse.services.LocalPorts;
import io.flowhouse.testkit.ServiceRequirement;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The real collectors of the interop tests, run as child processes on 127.0.0.1: nfdump's nfcapd
 * and goflow2, plus tshark. Missing tools skip the test locally and fail it when {@code
 * flowhouse.it.required=true}.
 */
final class PeerCollectors {

    /** goflow2 v2.2.6 as installed by {@code go install}. */
    static final String GOFLOW2 = "/root/go/bin/goflow2";

    private PeerCollectors() {}

    /** Totals a collector reports. */
    record Totals(long flows, long packets, long bytes) {}

    static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            return s.getLocalPort();
        }
    }

    static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Waits until the collector has bound the port (at most 10 s). */
    static void awaitUdpBound(int port, Process p, String name) {
        if (!LocalPorts.awaitUdpBound(p.toHandle(), List.of(port), Duration.ofSeconds(10))) {
            if (!p.isAlive()) {
                throw new AssertionError(name + " exited with " + p.exitValue());
            }
            throw new AssertionError(name + " did not bind UDP port " + port);
        }
    }

    /** Runs a command to completion (bounded) and returns its output. */
    static String run(Path dir, int timeoutSeconds, List<String> command) throws Exception {
        Path out = Files.createTempFile(dir, "cmd", ".out");
        Process p =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command + " did not finish in " + timeoutSeconds + " s");
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new AssertionError(command + " exited with " + p.exitValue() + ":\n" + text);
        }
        return text;
    }

    /** Writes what a tap caught as a capture, each datagram to 127.0.0.1:4739 (IPFIX's port). */
    static void writePcap(Path pcap, List<UdpTap.Datagram> datagrams) throws IOException {
        try (PcapWriter w = PcapWriter.create(pcap, false)) {
            for (UdpTap.Datagram d : datagrams) {
                w.writeUdp(
                        System.currentTimeMillis() * 1_000_000L,
                        IpAddress.of(d.from().getAddress()),
                        d.from().getPort(),
                        IpAddress.parse("127.0.0.1"),
                        4739,
                        ByteBuffer.wrap(d.payload()));
            }
        }
    }

    /** Fails if tshark finds a malformed packet or an error-level expert note in {@code pcap}. */
    static void assertTsharkFindsNoError(Path dir, Path tshark, Path pcap) throws Exception {
        String bad =
                run(
                                dir,
                                120,
                                List.of(
                                        tshark.toString(),
                                        "-n",
                                        "-r",
                                        pcap.toString(),
                                        "-Y",
                                        "_ws.malformed || _ws.expert.severity >= \"error\""))
                        .replace(
                                "Running as user \"root\" and group \"root\". This could be"
                                        + " dangerous.",
                                "");
        if (!bad.isBlank()) {
            throw new AssertionError("tshark malformed/error packets in " + pcap + ":\n" + bad);
        }
    }

    static void stop(Process p) throws InterruptedException {
        p.destroy(); // SIGTERM: nfcapd closes and renames its file, goflow2 flushes
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
    }

    /** nfcapd on 127.0.0.1:port writing into dir/flows. */
    static Process startNfcapd(Path dir, int port) throws Exception {
        Path nfcapd = ServiceRequirement.requireExecutable("nfcapd", "apt-get install nfdump");
        Path flows = Files.createDirectories(dir.resolve("flows"));
        Process p =
                new ProcessBuilder(
                                nfcapd.toString(),
                                "-b",
                                "127.0.0.1",
                                "-p",
                                Integer.toString(port),
                                "-w",
                                flows.toString(),
                                "-B",
                                "16777216",
                                "-t",
                                "3600")
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("nfcapd.log").toFile())
                        .start();
        awaitUdpBound(port, p, "nfcapd");
        return p;
    }

    /** {@code nfdump -r FILE -I} of the file a stopped nfcapd wrote. */
    static Totals nfdumpTotals(Path dir) throws Exception {
        Path nfdump = ServiceRequirement.requireExecutable("nfdump", "apt-get install nfdump");
        Path file;
        try (Stream<Path> files = Files.list(dir.resolve("flows"))) {
            file =
                    files.filter(p -> p.getFileName().toString().startsWith("nfcapd.2"))
                            .findFirst()
                            .orElseThrow(() -> new AssertionError("nfcapd wrote no file"));
        }
        String info = run(dir, 60, List.of(nfdump.toString(), "-r", file.toString(), "-I"));
        return new Totals(field(info, "Flows"), field(info, "Packets"), field(info, "Bytes"));
    }

    /** {@code nfdump -r FILE -s record/packets} output, for the report. */
    static String nfdumpTopRecords(Path dir) throws Exception {
        Path nfdump = ServiceRequirement.requireExecutable("nfdump", "apt-get install nfdump");
        try (Stream<Path> files = Files.list(dir.resolve("flows"))) {
            Path file =
                    files.filter(p -> p.getFileName().toString().startsWith("nfcapd.2"))
                            .findFirst()
                            .orElseThrow();
            return run(
                    dir,
                    60,
                    List.of(nfdump.toString(), "-r", file.toString(), "-s", "record/packets"));
        }
    }

    private static long field(String info, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + ": *([0-9]+)").matcher(info);
        if (!m.find()) {
            throw new AssertionError("no " + name + " in nfdump -I output:\n" + info);
        }
        return Long.parseLong(m.group(1));
    }

    /** goflow2 listening for NetFlow/IPFIX on 127.0.0.1:port, JSON lines into dir/goflow2.json. */
    static Process startGoflow2(Path dir, int port) throws Exception {
        ServiceRequirement.require(
                Files.isExecutable(Path.of(GOFLOW2)),
                "goflow2 at "
                        + GOFLOW2
                        + " (go install github.com/netsampler/goflow2/v2/cmd/goflow2)");
        Process p =
                new ProcessBuilder(
                                GOFLOW2,
                                "-listen",
                                // One worker: with several, a data datagram can be decoded
                                // before the template datagram ahead of it (lost as "template
                                // not found"); seen here on the first messages of a session.
                                "netflow://127.0.0.1:" + port + "?workers=1",
                                "-format",
                                "json",
                                "-transport",
                                "file",
                                "-transport.file",
                                dir.resolve("goflow2.json").toString(),
                                "-addr",
                                "127.0.0.1:" + freeTcpPort())
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("goflow2.log").toFile())
                        .start();
        awaitUdpBound(port, p, "goflow2");
        // goflow2 binds before its decoders run: datagrams of the first ~50 ms went missing
        // here. Wait for its "starting collection" line, then a moment more.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Path log = dir.resolve("goflow2.log");
        while (!Files.readString(log).contains("starting collection")
                && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
        }
        Thread.sleep(1_000);
        return p;
    }

    private static final Pattern GOFLOW_BYTES = Pattern.compile("\"bytes\":([0-9]+)");
    private static final Pattern GOFLOW_PACKETS = Pattern.compile("\"packets\":([0-9]+)");

    /** Totals of goflow2's JSON lines so far. */
    static Totals goflow2Totals(Path dir) throws IOException {
        Path json = dir.resolve("goflow2.json");
        if (!Files.exists(json)) {
            return new Totals(0, 0, 0);
        }
        long flows = 0;
        long packets = 0;
        long bytes = 0;
        List<String> lines = new ArrayList<>(Files.readAllLines(json, StandardCharsets.UTF_8));
        for (String line : lines) {
            if (line.isBlank() || !line.endsWith("}")) {
                continue;
            }
            Matcher b = GOFLOW_BYTES.matcher(line);
            Matcher p = GOFLOW_PACKETS.matcher(line);
            if (b.find() && p.find()) {
                flows++;
                bytes += Long.parseLong(b.group(1));
                packets += Long.parseLong(p.group(1));
            }
        }
        return new Totals(flows, packets, bytes);
    }
}
