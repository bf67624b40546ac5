// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.config.Config;
import io.flowhouse.jobs.PipelineSinks;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.ServiceRequirement;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The fan-out switched on by configuration, as {@code ./flowhouse up --ipfix-to --zmq} does: one
 * test capture goes through the production topology on a MiniCluster with {@code
 * flowhouse.ipfix.targets} pointing at a real nfdump {@code nfcapd} and {@code
 * flowhouse.zmq.endpoint} bound on loopback with a plain JeroMQ SUB reading it. nfcapd's totals
 * ({@code nfdump -I}) and the flows counted in the ZMQ TLV messages equal the ground truth.
 */
class FanOutITCase {

    private static final String CAPTURE = "ipfix-pmacct.pcap";
    private static final long RECORDS = 2995;

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(2).build();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void ipfixAndZmqReceiveEveryFlowOfTheCapture(@TempDir Path dir) throws Exception {
        Path nfcapdBin = ServiceRequirement.requireExecutable("nfcapd", "apt-get install nfdump");
        Path nfdumpBin = ServiceRequirement.requireExecutable("nfdump", "apt-get install nfdump");
        int ipfixPort = freeUdpPort();
        int zmqPort = freeTcpPort();
        Config conf =
                JobArgs.resolve(
                        Map.of(),
                        new String[] {
                            "--kafka.bootstrap-servers", KAFKA.bootstrapServers(),
                            "--kafka.topic.raw", "flows.raw.fanout",
                            "--kafka.topic.rejected", "flows.rejected.fanout",
                            "--kafka.topic.templates", "flows.templates.fanout",
                            "--kafka.group-id", "itcase-fanout",
                            "--kafka.start", "earliest",
                            "--kafka.stop", "latest",
                            "--job.parallelism", "2",
                            "--job.checkpoint-interval", "1 s",
                            // Short keys as the launcher passes them, and one full key.
                            "--ipfix.targets", "127.0.0.1:" + ipfixPort,
                            "--ipfix.max-message-bytes", "8192",
                            "--zmq.endpoint", "tcp://127.0.0.1:" + zmqPort,
                            "--flowhouse.zmq.await-subscriber", "30s",
                            "--zmq.linger", "5s",
                            "--zmq.overflow", "block"
                        });
        PipelineSettings s = PipelineSettings.from(conf, Map.of());
        List<RawDatagram> datagrams =
                CaptureProducer.datagrams(CAPTURE, IpAddress.parse("192.0.2.50"), 41_000);
        KAFKA.createTopic(s.rawTopic(), 2);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), datagrams);

        Files.createDirectories(dir.resolve("flows"));
        Process nfcapd =
                new ProcessBuilder(
                                nfcapdBin.toString(),
                                "-b",
                                "127.0.0.1",
                                "-p",
                                Integer.toString(ipfixPort),
                                "-w",
                                dir.resolve("flows").toString(),
                                "-B",
                                "16777216",
                                "-t",
                                "3600")
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("nfcapd.log").toFile())
                        .start();
        ZmqCounter zmq = new ZmqCounter("tcp://127.0.0.1:" + zmqPort);
        Thread reader = new Thread(zmq, "zmq-sub");
        try {
            awaitUdpBound(ipfixPort, nfcapd);
            reader.start();

            PipelineSinks sinks = PipelineHarness.withoutClickHouse(s);
            assertThat(sinks.fanOutCount()).isEqualTo(2);
            PipelineHarness.environment(s, sinks).execute("fan-out");

            // The job has ended (bounded run); the SUB may still be reading the last messages.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (zmq.flows.get() < RECORDS && System.nanoTime() - deadline < 0) {
                Thread.sleep(50);
            }
            Thread.sleep(500); // let nfcapd drain its socket before it is told to stop
        } finally {
            zmq.stop = true;
            reader.join(10_000);
            nfcapd.destroy(); // SIGTERM: nfcapd closes and renames its file
            if (!nfcapd.waitFor(20, TimeUnit.SECONDS)) {
                nfcapd.destroyForcibly();
            }
        }
        assertThat(zmq.failure.get()).isNull();
        assertThat(zmq.flows.get()).as("ZMQ flows").isEqualTo(RECORDS);
        assertThat(zmq.packets.get()).as("ZMQ packets").isEqualTo(CaptureProducer.V9_IPFIX_PACKETS);
        assertThat(zmq.bytes.get()).as("ZMQ bytes").isEqualTo(CaptureProducer.V9_IPFIX_BYTES);

        String info = nfdumpInfo(dir, nfdumpBin);
        assertThat(field(info, "Flows")).as("nfcapd flows").isEqualTo(RECORDS);
        assertThat(field(info, "Packets"))
                .as("nfcapd packets")
                .isEqualTo(CaptureProducer.V9_IPFIX_PACKETS);
        assertThat(field(info, "Bytes"))
                .as("nfcapd bytes")
                .isEqualTo(CaptureProducer.V9_IPFIX_BYTES);
    }

    /**
     * A plain SUB socket that counts the flow records of the {@code flow} messages (nDPI TLV, one
     * record per flow) and sums IN/OUT_PKTS and IN/OUT_BYTES (nProbe ids 2, 24, 1, 23).
     */
    static final class ZmqCounter implements Runnable {
        final AtomicLong flows = new AtomicLong();
        final AtomicLong packets = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile boolean stop;
        private final String endpoint;

        ZmqCounter(String endpoint) {
            this.endpoint = endpoint;
        }

        @Override
        public void run() {
            try (ZContext ctx = new ZContext()) {
                ZMQ.Socket sub = ctx.createSocket(SocketType.SUB);
                sub.setReceiveTimeOut(200);
                sub.subscribe("flow".getBytes(StandardCharsets.US_ASCII));
                sub.connect(endpoint);
                long bound = 1_000_000; // messages; the capture needs a few hundred
                while (!stop && bound-- > 0) {
                    byte[] header = sub.recv();
                    if (header == null) {
                        continue;
                    }
                    byte[] payload = sub.hasReceiveMore() ? sub.recv() : null;
                    if (payload == null || header.length != 36) {
                        throw new AssertionError("message without a v3 header and a payload");
                    }
                    count(payload);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }

        private void count(byte[] b) {
            if (b.length < 2 || b[0] != 1 || b[1] != 1) {
                throw new AssertionError("not an nDPI TLV v1 buffer");
            }
            int pos = 2;
            while (pos < b.length) {
                int type = b[pos++] & 0xff;
                if (type == 1) {
                    flows.incrementAndGet();
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
                if (key == 2 || key == 24) {
                    packets.addAndGet(value);
                } else if (key == 1 || key == 23) {
                    bytes.addAndGet(value);
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

    private static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            return s.getLocalPort();
        }
    }

    static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Polls /proc/net/udp until nfcapd has bound the port (at most 10 s). */
    private static void awaitUdpBound(int port, Process p) throws Exception {
        String hex = String.format(Locale.ROOT, ":%04X ", port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() - deadline < 0) {
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

    /** {@code nfdump -r FILE -I} of the file the stopped nfcapd wrote. */
    private static String nfdumpInfo(Path dir, Path nfdump) throws Exception {
        Path file;
        try (Stream<Path> files = Files.list(dir.resolve("flows"))) {
            file =
                    files.filter(p -> p.getFileName().toString().startsWith("nfcapd.2"))
                            .findFirst()
                            .orElseThrow(() -> new AssertionError("nfcapd wrote no file"));
        }
        Path out = dir.resolve("nfdump.out");
        Process p =
                new ProcessBuilder(nfdump.toString(), "-r", file.toString(), "-I")
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("nfdump did not finish in 60 s");
        }
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    private static long field(String info, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + ": *([0-9]+)").matcher(info);
        if (!m.find()) {
            throw new AssertionError("no " + name + " in nfdump -I output:\n" + info);
        }
        return Long.parseLong(m.group(1));
    }
}
