// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.bench;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.ipfix.IpfixExporter;
import io.flowhouse.sinks.ipfix.IpfixExporterOptions;
import io.flowhouse.sinks.testdata.CaptureFlows;
import io.flowhouse.sinks.zmq.ZmqPublisher;
import io.flowhouse.sinks.zmq.ZmqSinkOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Throughput harness for the two fan-out sinks (not a test: run it by hand, see
 * sinks/BENCHMARKS-zmq-ipfix.md). Input: the flows of every test capture, repeated.
 *
 * <ul>
 *   <li>{@code zmq FLOWS}: {@link ZmqPublisher} bound on 127.0.0.1 with a SUB subscriber draining
 *       it on its own thread; rate = flows / time until the subscriber got the last message, and
 *       messages received must equal messages sent.
 *   <li>{@code ipfix FLOWS MAX_MESSAGE_BYTES PACE}: {@link IpfixExporter} over UDP into nfcapd;
 *       rate = flows / export time; drop-free when {@code nfdump -I} counts every record. Then
 *       nfreplay (nfdump's own sender) replays the same nfcapd file into a second nfcapd, side by
 *       side.
 * </ul>
 *
 * <p>Every loop is bounded by the flow count and by {@link #MAX_DURATION}.
 */
public final class ZmqIpfixBenchMain {

    private static final Duration MAX_DURATION = Duration.ofSeconds(180);

    private ZmqIpfixBenchMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println(
                    "usage: zmq FLOWS | ipfix FLOWS MAX_MESSAGE_BYTES MESSAGES_PER_SECOND(0=unpaced)");
            return;
        }
        List<FlowRecord> pool = pool();
        long flows = Long.parseLong(args[1]);
        System.out.printf(Locale.ROOT, "input pool: %d flows from %d captures%n", pool.size(), 8);
        if (args[0].equals("zmq")) {
            zmq(pool, flows);
        } else {
            ipfix(pool, flows, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        }
    }

    private static List<FlowRecord> pool() {
        List<FlowRecord> pool = new ArrayList<>();
        for (CaptureFlows.Capture c : CaptureFlows.ALL) {
            pool.addAll(CaptureFlows.decode(c));
        }
        return pool;
    }

    private static void zmq(List<FlowRecord> pool, long flows) throws Exception {
        ZmqSinkOptions options =
                ZmqSinkOptions.builder("tcp://127.0.0.1:0")
                        .overflow(ZmqSinkOptions.Overflow.BLOCK)
                        .queueCapacity(65_536)
                        .maxMessageBytes(65_536)
                        .awaitSubscriber(Duration.ofSeconds(30))
                        .build();
        AtomicLong messages = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        AtomicLong lastNanos = new AtomicLong();
        try (ZmqPublisher pub = new ZmqPublisher(options, 1);
                ZContext ctx = new ZContext(1)) {
            Thread sub =
                    new Thread(
                            () -> {
                                ZMQ.Socket s = ctx.createSocket(SocketType.SUB);
                                s.setReceiveTimeOut(200);
                                s.subscribe("flow");
                                s.connect("tcp://127.0.0.1:" + pub.boundPort());
                                long idleSince = System.nanoTime();
                                while (System.nanoTime() - idleSince
                                        < TimeUnit.SECONDS.toNanos(3)) {
                                    byte[] h = s.recv();
                                    if (h == null) {
                                        continue;
                                    }
                                    byte[] p = s.recv();
                                    messages.incrementAndGet();
                                    bytes.addAndGet(h.length + p.length);
                                    lastNanos.set(System.nanoTime());
                                    idleSince = System.nanoTime();
                                }
                            },
                            "bench-sub");
            sub.start();
            long start = System.nanoTime();
            long deadline = start + MAX_DURATION.toNanos();
            long n = 0;
            while (n < flows && System.nanoTime() - deadline < 0) {
                pub.publish(pool.get((int) (n % pool.size())));
                n++;
            }
            pub.flush(Duration.ofSeconds(60));
            long published = System.nanoTime();
            sub.join(30_000);
            ZmqPublisher.Metrics m = pub.metrics();
            double seconds = (lastNanos.get() - start) / 1e9;
            System.out.printf(
                    Locale.ROOT,
                    "zmq: %d flows in %d messages (%.1f MB) published in %.2f s, drained by the"
                            + " subscriber in %.2f s: %.0f flows/s; subscriber got %d of %d"
                            + " flow messages; dropped %d%n",
                    m.flowsSent(),
                    m.messagesSent(),
                    m.bytesSent() / 1e6,
                    (published - start) / 1e9,
                    seconds,
                    m.flowsSent() / seconds,
                    messages.get(),
                    m.messagesSent(),
                    m.flowsDropped());
        }
    }

    private static void ipfix(List<FlowRecord> pool, long flows, int mtu, int pace)
            throws Exception {
        Path dir = Files.createTempDirectory("ipfix-bench");
        int port = 39_000 + (int) (ProcessHandle.current().pid() % 1000);
        Process nfcapd = nfcapd(dir.resolve("export"), port);
        long start;
        long end;
        IpfixExporter.Metrics m;
        try {
            IpfixExporterOptions o =
                    IpfixExporterOptions.builder()
                            .target("127.0.0.1:" + port)
                            .maxMessageBytes(mtu)
                            .maxMessagesPerSecond(pace)
                            .sendBufferBytes(8 << 20)
                            .build();
            try (IpfixExporter e = new IpfixExporter(o.targets().get(0), o)) {
                start = System.nanoTime();
                long deadline = start + MAX_DURATION.toNanos();
                long n = 0;
                while (n < flows && System.nanoTime() - deadline < 0) {
                    e.export(pool.get((int) (n % pool.size())));
                    n++;
                }
                e.flush();
                end = System.nanoTime();
                m = e.metrics();
            }
            Thread.sleep(2_000);
        } finally {
            stop(nfcapd);
        }
        long[] got = totals(dir.resolve("export"));
        double seconds = (end - start) / 1e9;
        System.out.printf(
                Locale.ROOT,
                "ipfix: %d records in %d messages of <= %d bytes (%.1f MB) in %.2f s: %.0f"
                        + " records/s (pacing %d msg/s); nfcapd counted %d records, %d packets"
                        + " (%s)%n",
                m.recordsSent(),
                m.messagesSent(),
                mtu,
                m.bytesSent() / 1e6,
                seconds,
                m.recordsSent() / seconds,
                pace,
                got[0],
                got[1],
                got[0] == m.recordsSent() ? "drop-free" : (m.recordsSent() - got[0]) + " lost");

        // Side by side: nfdump's own sender replays the file nfcapd just wrote.
        Path file = nfcapdFile(dir.resolve("export"));
        int port2 = port + 1;
        Process second = nfcapd(dir.resolve("replay"), port2);
        long t0;
        long t1;
        try {
            t0 = System.nanoTime();
            Process replay =
                    new ProcessBuilder(
                                    "nfreplay",
                                    "-r",
                                    file.toString(),
                                    "-H",
                                    "127.0.0.1",
                                    "-p",
                                    Integer.toString(port2),
                                    "-v",
                                    "9",
                                    "-d",
                                    "0",
                                    "-b",
                                    Integer.toString(8 << 20))
                            .redirectErrorStream(true)
                            .redirectOutput(dir.resolve("nfreplay.log").toFile())
                            .start();
            if (!replay.waitFor(MAX_DURATION.toSeconds(), TimeUnit.SECONDS)) {
                replay.destroyForcibly();
            }
            t1 = System.nanoTime();
            Thread.sleep(2_000);
        } finally {
            stop(second);
        }
        long[] replayed = totals(dir.resolve("replay"));
        double rs = (t1 - t0) / 1e9;
        System.out.printf(
                Locale.ROOT,
                "nfreplay -v 9 -d 0 of the same %d records: %.2f s, %.0f records/s; the second"
                        + " nfcapd counted %d records (%s)%n",
                got[0],
                rs,
                got[0] / rs,
                replayed[0],
                replayed[0] == got[0] ? "drop-free" : (got[0] - replayed[0]) + " lost");
    }

    private static Process nfcapd(Path dir, int port) throws Exception {
        Files.createDirectories(dir);
        Process p =
                new ProcessBuilder(
                                "nfcapd",
                                "-b",
                                "127.0.0.1",
                                "-p",
                                Integer.toString(port),
                                "-w",
                                dir.toString(),
                                "-B",
                                Integer.toString(64 << 20),
                                "-t",
                                "3600")
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("nfcapd.log").toFile())
                        .start();
        String hex = String.format(Locale.ROOT, ":%04X ", port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.readString(Path.of("/proc/net/udp")).contains(hex)
                && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
        }
        return p;
    }

    private static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
    }

    private static Path nfcapdFile(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("nfcapd.2"))
                    .findFirst()
                    .orElseThrow(() -> new IOException("nfcapd wrote no file in " + dir));
        }
    }

    /** Flows and packets from {@code nfdump -r FILE -I}. */
    private static long[] totals(Path dir) throws Exception {
        Path out = dir.resolve("nfdump-I.txt");
        Process p =
                new ProcessBuilder("nfdump", "-r", nfcapdFile(dir).toString(), "-I")
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
        p.waitFor(120, TimeUnit.SECONDS);
        String info = Files.readString(out, StandardCharsets.UTF_8);
        return new long[] {field(info, "Flows"), field(info, "Packets")};
    }

    private static long field(String info, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + ": *([0-9]+)").matcher(info);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }
}
