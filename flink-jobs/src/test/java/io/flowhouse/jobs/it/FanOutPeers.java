// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The fan-out tests' peers, shared by {@link FanOutITCase} and {@link EnrichedFanOutITCase}: a real
 * nfdump {@code nfcapd} on a free UDP port for the IPFIX re-export, and a plain JeroMQ SUB that
 * reads the ZMQ publisher's nDPI TLV flow records (nProbe's ids) as ntopng's collector does.
 */
final class FanOutPeers {

    private FanOutPeers() {}

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

    /** nfcapd writing into {@code dir/flows}; {@link #stop()} ends it so its file is complete. */
    static final class Nfcapd {
        private final Path dir;
        private final Process process;

        /** Starts nfcapd on 127.0.0.1:{@code port} and waits until it has bound the port. */
        Nfcapd(Path nfcapd, Path dir, int port, String... extra) throws Exception {
            this.dir = dir;
            Files.createDirectories(dir.resolve("flows"));
            List<String> command =
                    new ArrayList<>(
                            List.of(
                                    nfcapd.toString(),
                                    "-b",
                                    "127.0.0.1",
                                    "-p",
                                    Integer.toString(port),
                                    "-w",
                                    dir.resolve("flows").toString(),
                                    "-t",
                                    "3600"));
            command.addAll(List.of(extra));
            process =
                    new ProcessBuilder(command)
                            .redirectErrorStream(true)
                            .redirectOutput(dir.resolve("nfcapd.log").toFile())
                            .start();
            try {
                awaitUdpBound(port);
            } catch (Exception | AssertionError e) {
                stop();
                throw e;
            }
        }

        /** Polls /proc/net/udp until nfcapd has bound the port (at most 10 s). */
        private void awaitUdpBound(int port) throws Exception {
            String hex = String.format(Locale.ROOT, ":%04X ", port);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() - deadline < 0) {
                if (!process.isAlive()) {
                    throw new AssertionError("nfcapd exited with " + process.exitValue());
                }
                if (Files.readString(Path.of("/proc/net/udp")).contains(hex)) {
                    return;
                }
                Thread.sleep(50);
            }
            throw new AssertionError("nfcapd did not bind UDP port " + port);
        }

        /** SIGTERM: nfcapd closes and renames its file. */
        void stop() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }

        /** What {@code nfdump -r FILE args...} prints of the file the stopped nfcapd wrote. */
        String nfdump(Path nfdump, String... args) throws Exception {
            Path file;
            try (Stream<Path> files = Files.list(dir.resolve("flows"))) {
                file =
                        files.filter(p -> p.getFileName().toString().startsWith("nfcapd.2"))
                                .findFirst()
                                .orElseThrow(() -> new AssertionError("nfcapd wrote no file"));
            }
            List<String> command =
                    new ArrayList<>(List.of(nfdump.toString(), "-r", file.toString()));
            command.addAll(List.of(args));
            Path out = dir.resolve("nfdump.out");
            Process p =
                    new ProcessBuilder(command)
                            .redirectError(ProcessBuilder.Redirect.DISCARD)
                            .redirectOutput(out.toFile())
                            .start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("nfdump did not finish in 60 s");
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        }
    }

    /**
     * A plain SUB socket on its own thread that reads the {@code flow} messages ({@code
     * zmq_msg_hdr_v3} header, then an nDPI TLV v1 buffer) and keeps every flow record's numeric
     * values by nProbe id (strings are skipped).
     */
    static final class TlvSubscriber {
        final List<Map<Long, Long>> flows = new CopyOnWriteArrayList<>();

        /** The JSON payloads of the snmp-ifaces messages (interface names), in arrival order. */
        final List<String> snmpIfaces = new CopyOnWriteArrayList<>();

        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final String endpoint;
        private final Thread thread;
        private volatile boolean stop;

        /** Subscribes to {@code endpoint} at once. */
        TlvSubscriber(String endpoint) {
            this.endpoint = endpoint;
            this.thread = new Thread(this::run, "zmq-sub");
            thread.start();
        }

        /** Waits until {@code n} flow records came, at most {@code seconds}. */
        void awaitFlows(long n, int seconds) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (flows.size() < n && System.nanoTime() - deadline < 0) {
                Thread.sleep(50);
            }
        }

        /** The sum of nProbe ids {@code keys} over every flow record. */
        long sum(long... keys) {
            long total = 0;
            for (Map<Long, Long> f : flows) {
                for (long k : keys) {
                    total += f.getOrDefault(k, 0L);
                }
            }
            return total;
        }

        /** Stops the reader. */
        void stop() throws InterruptedException {
            stop = true;
            thread.join(10_000);
        }

        /** What made the reader fail, or null. */
        Throwable failure() {
            return failure.get();
        }

        private void run() {
            try (ZContext ctx = new ZContext()) {
                ZMQ.Socket sub = ctx.createSocket(SocketType.SUB);
                sub.setReceiveTimeOut(200);
                sub.subscribe("flow".getBytes(StandardCharsets.US_ASCII));
                sub.subscribe("snmp-ifaces".getBytes(StandardCharsets.US_ASCII));
                sub.connect(endpoint);
                long bound = 1_000_000; // messages; the tests need a few hundred
                while (!stop && bound-- > 0) {
                    byte[] header = sub.recv();
                    if (header == null) {
                        continue;
                    }
                    byte[] payload = sub.hasReceiveMore() ? sub.recv() : null;
                    if (payload == null || header.length != 36) {
                        throw new AssertionError("message without a v3 header and a payload");
                    }
                    if (header[0] == 's') {
                        snmpIfaces.add(new String(payload, StandardCharsets.UTF_8));
                    } else {
                        read(payload);
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }

        private void read(byte[] b) {
            if (b.length < 2 || b[0] != 1 || b[1] != 1) {
                throw new AssertionError("not an nDPI TLV v1 buffer");
            }
            int pos = 2;
            Map<Long, Long> values = new HashMap<>();
            while (pos < b.length) {
                int type = b[pos++] & 0xff;
                if (type == 1) {
                    flows.add(values);
                    values = new HashMap<>();
                    continue;
                }
                long key;
                switch (type >>> 4) {
                    case 2 -> key = b[pos++] & 0xff;
                    case 3 -> {
                        key = uint(b, pos, 2);
                        pos += 2;
                    }
                    case 4 -> {
                        key = uint(b, pos, 4);
                        pos += 4;
                    }
                    case 11 -> {
                        pos += 2 + (int) uint(b, pos, 2);
                        key = -1;
                    }
                    default -> throw new AssertionError("key type " + (type >>> 4));
                }
                int width =
                        switch (type & 0x0f) {
                            case 2, 6 -> 1;
                            case 3, 7 -> 2;
                            case 4, 8, 10 -> 4;
                            case 5, 9 -> 8;
                            case 11 -> -1;
                            default -> throw new AssertionError("value type " + (type & 0x0f));
                        };
                if (width < 0) {
                    pos += 2 + (int) uint(b, pos, 2);
                    continue;
                }
                long value = uint(b, pos, width);
                pos += width;
                if (key >= 0) {
                    values.merge(key, value, Long::sum);
                }
            }
        }

        private static long uint(byte[] b, int at, int width) {
            long v = 0;
            for (int i = 0; i < width; i++) {
                v = v << 8 | (b[at + i] & 0xffL);
            }
            return v;
        }
    }
}
