// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.io.File;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The IPFIX encoder's output, sent over loopback UDP to real collectors written by others (nfcapd
 * 1.7.1, goflow2), gives the ground-truth totals: 2,991 flows, 42,173 packets, 31,011,641 bytes.
 */
class PeerDecodersITCase {

    private static final String GOFLOW2 =
            Files.isExecutable(Paths.get("/root/go/bin/goflow2"))
                    ? "/root/go/bin/goflow2"
                    : "goflow2";

    /**
     * Flows of the softflowd v9 capture, re-encoded as IPFIX messages of at most 1400 bytes, with
     * the templates in every {@code templateEvery}-th message.
     */
    private static List<byte[]> messages(int templateEvery) throws Exception {
        List<FlowRecord> flows = new ArrayList<>();
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        for (CaptureDatagrams.Datagram d :
                CaptureDatagrams.datagrams("netflow-v9-softflowd.pcap")) {
            flows.addAll(decoder.decode(d.buffer(), d.context(), cache).records());
        }
        assertThat(flows).hasSize(2991);
        IpfixEncoder enc = new IpfixEncoder();
        List<byte[]> out = new ArrayList<>();
        ByteBuffer buf = ByteBuffer.allocate(1400);
        int from = 0;
        while (from < flows.size()) {
            buf.clear();
            from +=
                    enc.encodeFlows(
                            buf, 9, 1_705_320_600L, flows, from, out.size() % templateEvery == 0);
            buf.flip();
            byte[] m = new byte[buf.remaining()];
            buf.get(m);
            out.add(m);
        }
        return out;
    }

    private static int freeUdpPort() throws Exception {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            return s.getLocalPort();
        }
    }

    private static int freeTcpPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Waits (bounded) until something listens on the UDP port, per /proc/net/udp. */
    private static void awaitUdpListener(int port, Process p) throws Exception {
        String hex = String.format(Locale.ROOT, ":%04X ", port);
        for (int i = 0; i < 200; i++) {
            if (Files.readString(Paths.get("/proc/net/udp")).contains(hex)) {
                return;
            }
            if (!p.isAlive()) {
                fail("collector exited with " + p.exitValue());
            }
            Thread.sleep(50);
        }
        fail("nothing listens on UDP port " + port + " after 10 s");
    }

    private static void send(List<byte[]> messages, int port) throws Exception {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            InetSocketAddress to = new InetSocketAddress("127.0.0.1", port);
            int i = 0;
            for (byte[] m : messages) {
                s.send(new DatagramPacket(m, m.length, to));
                if (++i % 4 == 0) {
                    Thread.sleep(
                            1); // stay far below the collector's socket buffer, even on a busy box
                }
            }
        }
    }

    private static void stop(Process p) throws Exception {
        p.destroy(); // SIGTERM: both collectors flush on it
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("collector did not stop in 30 s");
        }
    }

    @Test
    void nfcapdReadsTheEncoderOutput(@TempDir Path dir) throws Exception {
        ExternalTool.require("nfcapd", "-V");
        List<byte[]> messages = messages(10);
        int port = freeUdpPort();
        Path flows = Files.createDirectories(dir.resolve("flows"));
        Process p =
                new ProcessBuilder(
                                "nfcapd",
                                "-b",
                                "127.0.0.1",
                                "-p",
                                Integer.toString(port),
                                "-w",
                                flows.toString(),
                                "-t",
                                "3600",
                                "-B",
                                "8388608")
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("nfcapd.log").toFile())
                        .start();
        try {
            awaitUdpListener(port, p);
            send(messages, port);
            Thread.sleep(500); // let nfcapd drain its socket before the flush on SIGTERM
        } finally {
            stop(p);
        }
        String csv = ExternalTool.run(120, "nfdump", "-R", flows.toString(), "-o", "csv", "-q");
        long n = 0;
        long packets = 0;
        long bytes = 0;
        for (String line : csv.split("\n")) {
            String[] f = line.split(",");
            if (f.length > 14 && !f[0].isEmpty() && Character.isDigit(f[0].charAt(0))) {
                n++;
                packets += Long.parseLong(f[11]) + Long.parseLong(f[13]);
                bytes += Long.parseLong(f[12]) + Long.parseLong(f[14]);
            }
        }
        assertThat(n).as(Files.readString(dir.resolve("nfcapd.log"))).isEqualTo(2991);
        assertThat(packets).isEqualTo(42173);
        assertThat(bytes).isEqualTo(31011641);
    }

    /** Flows, packets and bytes in goflow2's JSON lines output so far. */
    private static long[] totals(Path out) throws Exception {
        long[] t = new long[3];
        if (!Files.exists(out)) {
            return t;
        }
        Pattern pk = Pattern.compile("\"packets\":(\\d+)");
        Pattern by = Pattern.compile("\"bytes\":(\\d+)");
        // Count every object, not lines: goflow2's workers can write two objects on one line.
        try (Stream<String> lines = Files.lines(out, StandardCharsets.UTF_8)) {
            for (String line : (Iterable<String>) lines::iterator) {
                Matcher a = pk.matcher(line);
                Matcher b = by.matcher(line);
                while (a.find() && b.find()) {
                    t[0]++;
                    t[1] += Long.parseLong(a.group(1));
                    t[2] += Long.parseLong(b.group(1));
                }
            }
        }
        return t;
    }

    @Test
    void goflow2ReadsTheEncoderOutput(@TempDir Path dir) throws Exception {
        ExternalTool.require(GOFLOW2, "-v");
        // goflow2 decodes datagrams on several workers by default, so data can overtake the
        // datagram that carries its template and two workers can interleave their JSON output;
        // one worker keeps the order, and templates in every message keep the test about decoding.
        List<byte[]> messages = messages(1);
        int port = freeUdpPort();
        Path out = dir.resolve("goflow2.jsonl");
        Process p =
                new ProcessBuilder(
                                GOFLOW2,
                                "-listen",
                                "netflow://127.0.0.1:" + port + "?workers=1",
                                "-addr",
                                "127.0.0.1:" + freeTcpPort(),
                                "-format",
                                "json",
                                "-transport",
                                "file",
                                "-transport.file",
                                out.toString())
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("goflow2.log").toFile())
                        .start();
        try {
            awaitUdpListener(port, p);
            // Send in chunks and let goflow2 catch up before the next, so a busy machine cannot
            // overflow its socket buffer (a UDP drop is not what this test is about).
            NetflowDecoder ours = new NetflowDecoder();
            InMemoryTemplateCache cache = new InMemoryTemplateCache();
            DecodeContext ctx = new DecodeContext(CaptureDatagrams.localhost(1), 0);
            long expected = 0;
            for (int from = 0; from < messages.size(); from += 25) {
                List<byte[]> chunk = messages.subList(from, Math.min(messages.size(), from + 25));
                for (byte[] m : chunk) {
                    expected += ours.decode(ByteBuffer.wrap(m), ctx, cache).records().size();
                }
                send(chunk, port);
                for (int i = 0; i < 200 && totals(out)[0] < expected; i++) { // bounded, 10 s
                    Thread.sleep(50);
                }
            }
        } finally {
            stop(p); // goflow2 flushes its file transport on exit
        }
        long[] t = totals(out);
        long n = t[0];
        long packets = t[1];
        long bytes = t[2];
        assertThat(n).as(Files.readString(dir.resolve("goflow2.log"))).isEqualTo(2991);
        // goflow2 ignores RFC 5103 reverse counters; the softflowd v9 flows are unidirectional.
        assertThat(packets).isEqualTo(42173);
        assertThat(bytes).isEqualTo(31011641);
        assertThat(new File(out.toString())).exists();
    }
}
