// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.bench;

import io.flowhouse.codec.CaptureDatagrams;
import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.io.DataOutputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Same-run comparison on one capture (not part of the unit suite): our decoder's flow records per
 * CPU second on one thread; nfcapd 1.7.1 ingesting the capture replayed over loopback (its CPU time
 * from /proc) and nfdump -r reading the resulting file; and goflow2's decoder (the Go program in
 * bench/peers/goflow2-decoder) on the same datagrams. Usage: {@code PeerBench CAPTURE.pcap
 * [seconds=10] [loops=30] [goflow2bench-binary]}; see BENCHMARKS.md.
 */
public final class PeerBench {

    private PeerBench() {}

    public static void main(String[] args) throws Exception {
        String capture = args[0];
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 10;
        int loops = args.length > 2 ? Integer.parseInt(args[2]) : 30;
        String goBench = args.length > 3 ? args[3] : null;
        List<CaptureDatagrams.Datagram> ds = CaptureDatagrams.datagrams(capture);
        Path out = Files.createDirectories(Paths.get("target", "bench"));
        Path dgrams = out.resolve(capture + ".dgrams");
        try (OutputStream os = Files.newOutputStream(dgrams);
                DataOutputStream d = new DataOutputStream(os)) {
            for (CaptureDatagrams.Datagram g : ds) {
                d.writeShort(g.payload().length);
                d.write(g.payload());
            }
        }
        ours(capture, ds, seconds);
        nfdump(capture, ds, loops, out);
        if (goBench != null) {
            Process p =
                    new ProcessBuilder(
                                    goBench,
                                    "-seconds",
                                    Double.toString(seconds),
                                    dgrams.toString())
                            .redirectErrorStream(true)
                            .start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(10 + (long) seconds * 2, TimeUnit.SECONDS);
            System.out.print(text);
        }
    }

    static void ours(String capture, List<CaptureDatagrams.Datagram> ds, double seconds)
            throws Exception {
        ByteBuffer[] bs = new ByteBuffer[ds.size()];
        DecodeContext[] cs = new DecodeContext[ds.size()];
        for (int i = 0; i < bs.length; i++) {
            byte[] p = ds.get(i).payload();
            bs[i] = ByteBuffer.allocateDirect(p.length).put(p).flip();
            cs[i] = ds.get(i).context();
        }
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long n = 0;
        // warm up for a third of the time, then measure
        for (int phase = 0; phase < 2; phase++) {
            n = 0;
            long t0 = System.nanoTime();
            long c0 = mx.getCurrentThreadCpuTime();
            long end = t0 + (long) (seconds * (phase == 0 ? 0.33 : 1.0) * 1e9);
            while (System.nanoTime() < end) {
                for (int i = 0; i < bs.length; i++) {
                    n += decoder.decode(bs[i], cs[i], cache).records().size();
                }
            }
            if (phase == 1) {
                double wall = (System.nanoTime() - t0) / 1e9;
                double cpu = (mx.getCurrentThreadCpuTime() - c0) / 1e9;
                System.out.printf(
                        Locale.ROOT,
                        "flowhouse decoder: %s: %.2f M records/s wall, %.2f M records per cpu-s"
                                + " (1 thread, Java %s)%n",
                        capture,
                        n / wall / 1e6,
                        n / cpu / 1e6,
                        System.getProperty("java.version"));
            }
        }
    }

    private static double cpuSecondsOf(long pid) throws Exception {
        String stat = Files.readString(Paths.get("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime, stime in ticks
    }

    static void nfdump(String capture, List<CaptureDatagrams.Datagram> ds, int loops, Path out)
            throws Exception {
        Path dir = Files.createTempDirectory(out, "nfcapd");
        int port;
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            port = s.getLocalPort();
        }
        Process p =
                new ProcessBuilder(
                                "nfcapd",
                                "-b",
                                "127.0.0.1",
                                "-p",
                                Integer.toString(port),
                                "-w",
                                dir.toString(),
                                "-t",
                                "3600",
                                "-B",
                                "16777216")
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("nfcapd.log").toFile())
                        .start();
        String hex = String.format(Locale.ROOT, ":%04X ", port);
        for (int i = 0;
                i < 200 && !Files.readString(Paths.get("/proc/net/udp")).contains(hex);
                i++) {
            Thread.sleep(50);
        }
        double cpuBefore = cpuSecondsOf(p.pid());
        long sent = 0;
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            InetSocketAddress to = new InetSocketAddress("127.0.0.1", port);
            for (int l = 0; l < loops; l++) {
                for (CaptureDatagrams.Datagram d : ds) {
                    s.send(new DatagramPacket(d.payload(), d.payload().length, to));
                    if (++sent % 50 == 0) {
                        Thread.sleep(1);
                    }
                }
            }
        }
        Thread.sleep(1000);
        double nfcapdCpu = cpuSecondsOf(p.pid()) - cpuBefore;
        p.destroy();
        p.waitFor(30, TimeUnit.SECONDS);
        Path file;
        try (Stream<Path> files = Files.list(dir)) {
            file =
                    files.filter(f -> f.getFileName().toString().matches("nfcapd\\.\\d+"))
                            .findFirst()
                            .orElseThrow();
        }
        Process r =
                new ProcessBuilder(
                                "/usr/bin/time",
                                "-f",
                                "%e %U %S",
                                "nfdump",
                                "-r",
                                file.toString(),
                                "-q",
                                "-o",
                                "csv")
                        .redirectOutput(dir.resolve("nfdump.csv").toFile())
                        .redirectError(dir.resolve("time.txt").toFile())
                        .start();
        r.waitFor(300, TimeUnit.SECONDS);
        long records;
        try (Stream<String> lines = Files.lines(dir.resolve("nfdump.csv"))) {
            records = lines.filter(l -> !l.isEmpty() && Character.isDigit(l.charAt(0))).count();
        }
        List<String> t = Files.readAllLines(dir.resolve("time.txt"));
        String[] tv = t.get(t.size() - 1).trim().split(" ");
        double wall = Double.parseDouble(tv[0]);
        double cpu = Double.parseDouble(tv[1]) + Double.parseDouble(tv[2]);
        System.out.printf(
                Locale.ROOT,
                "nfcapd 1.7.1 ingest: %s x%d: %d records, %.2f cpu-s => %.2f M records per cpu-s"
                        + " (receive + decode + write)%n",
                capture,
                loops,
                records,
                nfcapdCpu,
                nfcapdCpu > 0 ? records / nfcapdCpu / 1e6 : Double.NaN);
        System.out.printf(
                Locale.ROOT,
                "nfdump 1.7.1 -r -o csv: %d records in %.2f s wall, %.2f cpu-s => %.2f M records per cpu-s%n",
                records,
                wall,
                cpu,
                cpu > 0 ? records / cpu / 1e6 : Double.NaN);
    }
}
