// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import io.flowhouse.kafka.TopicAdmin;
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

/**
 * What every stage shares: a run id, a scratch directory, the Java binary and class path for child
 * JVMs, and the Kafka broker with its topic admin.
 *
 * @param runId timestamp id of this run, used in topic and file names
 * @param workDir scratch directory for logs, configs and collector files
 * @param resultsDir where result files go ({@code bench/results})
 * @param bootstrap Kafka bootstrap servers ("" when the stage needs no Kafka)
 */
record BenchContext(
        String runId,
        Path workDir,
        Path resultsDir,
        String javaBin,
        String classPath,
        String bootstrap,
        TopicAdmin kafka) {

    /** Samples of a counter, for {@link #awaitStable}. */
    @FunctionalInterface
    interface Counter {
        long get() throws Exception;
    }

    /** Creates the stage's topic; returns once each of its partitions serves writes. */
    void createTopic(String topic, int partitions) throws InterruptedException {
        kafka.createMissing(List.of(TopicAdmin.topic(topic, partitions, Map.of())));
        kafka.awaitReady(topic);
    }

    static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            return s.getLocalPort();
        }
    }

    static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * Polls {@code counter} every 250 ms until it reaches {@code expected}, or does not move for 2
     * s, or {@code maxMillis} pass.
     */
    static long awaitStable(Counter counter, long expected, long maxMillis) throws Exception {
        return awaitStable(counter, expected, maxMillis, 2_000);
    }

    /** Like {@link #awaitStable(Counter, long, long)} with a chosen quiet time. */
    static long awaitStable(Counter counter, long expected, long maxMillis, long quietMillis)
            throws Exception {
        long deadline = System.nanoTime() + maxMillis * 1_000_000L;
        long last = counter.get();
        long lastChange = System.nanoTime();
        while (last < expected && System.nanoTime() < deadline) {
            Thread.sleep(250);
            long now = counter.get();
            if (now != last) {
                last = now;
                lastChange = System.nanoTime();
            } else if (System.nanoTime() - lastChange > quietMillis * 1_000_000L) {
                break;
            }
        }
        return last;
    }

    /** Bytes waiting in the receive queues of UDP sockets on {@code port}. */
    static long udpQueueBytes(int port) throws IOException {
        String hexPort = String.format(Locale.ROOT, ":%04X", port);
        long sum = 0;
        for (String table : List.of("/proc/net/udp", "/proc/net/udp6")) {
            List<String> lines = Files.readAllLines(Path.of(table), StandardCharsets.UTF_8);
            for (int i = 1; i < lines.size(); i++) {
                String[] f = lines.get(i).trim().split("\\s+");
                if (f.length > 4 && f[1].endsWith(hexPort)) {
                    String rx = f[4].substring(f[4].indexOf(':') + 1);
                    sum += Long.parseLong(rx, 16);
                }
            }
        }
        return sum;
    }

    /** Runs a tool to completion (bounded) and returns its output; fails on a non-zero exit. */
    static String runTool(List<String> command, long timeoutSeconds)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("bench-tool", ".out");
        try {
            Process p =
                    new ProcessBuilder(command)
                            .redirectErrorStream(true)
                            .redirectOutput(out.toFile())
                            .start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(command + " did not finish in " + timeoutSeconds + " s");
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException(command + " exited " + p.exitValue() + ": " + text);
            }
            return text;
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
