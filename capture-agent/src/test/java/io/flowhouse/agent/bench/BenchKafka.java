// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.bench;

import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.file.Path;

/**
 * A standalone broker for the benchmark scripts ({@code capture-agent/bench/}): one KRaft broker on
 * {@code 127.0.0.1:PORT} with its log in DIR, running until killed. Not a test.
 */
public final class BenchKafka {

    private BenchKafka() {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Path dir = Path.of(args[1]);
        int partitions = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        EmbeddedKafka kafka =
                EmbeddedKafka.builder().port(port).dataDir(dir).partitions(partitions).build();
        kafka.start();
        kafka.createTopic("flows.raw", partitions);
        kafka.createTopic("flows.rejected", 1);
        kafka.createTopic("packets.raw", partitions);
        System.out.println("bench kafka ready on " + kafka.bootstrapServers());
        Runtime.getRuntime().addShutdownHook(new Thread(kafka::close));
        Thread.currentThread().join();
    }
}
