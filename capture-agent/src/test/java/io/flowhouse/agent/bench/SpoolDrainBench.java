// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.bench;

import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.kafka.Outbound;
import io.flowhouse.agent.kafka.RawFlowPublisher;
import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.agent.spool.DiskSpool;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * How fast the agent's spool drains into Kafka (not a test): a real in-process broker, a spool
 * filled with RECORDS records of BYTES bytes each (half random, half repeated, so lz4 has about the
 * work it has on flow datagrams), then the real {@link RawFlowPublisher} started on it, timed until
 * it leaves spooling mode. This is the rate at which the agent catches up after an outage or an
 * overload while no new datagram arrives; with traffic arriving, what it drains above the inflow.
 * Broker log and spools live in one temporary directory, removed at the end.
 *
 * <pre>
 * mvn -B -ntp -o -Pfast -pl capture-agent -am install -DskipTests
 * mvn -B -ntp -o -q -pl capture-agent dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt \
 *     -Dmdep.includeScope=test
 * cd capture-agent &amp;&amp; java -Xmx2g -cp target/test-classes:target/classes:$(cat /tmp/cp.txt) \
 *     io.flowhouse.agent.bench.SpoolDrainBench 3000 87000 lz4 3
 * </pre>
 *
 * Arguments: records (3,000), bytes per record (87,000: a batch record of 64 sFlow datagrams),
 * compression (lz4), rounds (3).
 */
public final class SpoolDrainBench {

    private SpoolDrainBench() {}

    public static void main(String[] args) throws Exception {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 3_000;
        int bytes = args.length > 1 ? Integer.parseInt(args[1]) : 87_000;
        String compression = args.length > 2 ? args[2] : "lz4";
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        Path dir = Files.createTempDirectory("spool-drain-bench");
        try {
            run(dir, records, bytes, compression, rounds);
        } finally {
            // The broker's log holds every round's records: gigabytes.
            deleteTree(dir);
        }
    }

    private static void run(Path dir, int records, int bytes, String compression, int rounds)
            throws Exception {
        try (EmbeddedKafka kafka =
                EmbeddedKafka.builder().dataDir(dir.resolve("kafka")).partitions(4).build()) {
            kafka.start();
            kafka.createTopic("flows.raw", 4);
            AgentConfig.Kafka config =
                    new AgentConfig.Kafka(
                            kafka.bootstrapServers(),
                            "flows.raw",
                            "flows.rejected",
                            "packets.raw",
                            compression,
                            5,
                            1024 * 1024,
                            128L * 1024 * 1024,
                            Duration.ofMinutes(2),
                            Map.of());
            byte[][] values = values(bytes);
            for (int round = 0; round < rounds; round++) {
                Path spoolDir = dir.resolve("spool-" + round);
                long total = 0;
                try (DiskSpool spool = DiskSpool.open(spoolDir, 4L << 30, 64L * 1024 * 1024)) {
                    for (int i = 0; i < records; i++) {
                        byte[] key = {(byte) (i % 8)};
                        byte[] value = values[i % values.length];
                        spool.append(new Outbound("flows.raw", -1, 0L, key, value, null, 64));
                        total += value.length;
                    }
                }
                try (DiskSpool spool = DiskSpool.open(spoolDir, 4L << 30, 64L * 1024 * 1024)) {
                    AgentMetrics metrics = new AgentMetrics();
                    long start = System.nanoTime();
                    try (RawFlowPublisher publisher =
                            new RawFlowPublisher(config, spool, metrics, Duration.ZERO)) {
                        long deadline = start + Duration.ofMinutes(5).toNanos();
                        while (publisher.isSpooling() && System.nanoTime() < deadline) {
                            Thread.sleep(5);
                        }
                        double seconds = (System.nanoTime() - start) / 1e9;
                        System.out.printf(
                                "round %d: %,d records, %,d MB drained in %.2f s: %,.0f records/s,"
                                        + " %,.0f MB/s%s (load %s)%n",
                                round,
                                records,
                                total / 1_000_000,
                                seconds,
                                records / seconds,
                                total / 1e6 / seconds,
                                publisher.isSpooling() ? " NOT DRAINED" : "",
                                Files.readAllLines(Path.of("/proc/loadavg")).get(0));
                    }
                }
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** 16 distinct values: each half random bytes, half a repeated pattern. */
    private static byte[][] values(int bytes) {
        SplittableRandom random = new SplittableRandom(1);
        byte[][] out = new byte[16][];
        for (int v = 0; v < out.length; v++) {
            byte[] b = new byte[bytes];
            for (int i = 0; i < bytes; i++) {
                b[i] = i % 2 == 0 ? (byte) random.nextInt(256) : (byte) (i % 64);
            }
            out[v] = b;
        }
        return out;
    }
}
