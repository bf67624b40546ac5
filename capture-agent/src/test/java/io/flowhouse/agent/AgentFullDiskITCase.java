// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.metrics.AgentMetrics.Drop;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.testkit.Tmpfs;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import io.flowhouse.testkit.kafka.RawRecords;
import io.flowhouse.testkit.kafka.TopicReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent with its spool on a real 2 MiB tmpfs, Kafka stopped mid-stream: the spool fills the
 * file system, datagrams are dropped and counted as SPOOL_NO_SPACE (never wedged as SPOOL_FULL),
 * and once Kafka is back the spool drains, writes again, empties and the agent sends directly
 * again: every datagram not counted as dropped is in Kafka.
 */
class AgentFullDiskITCase {

    private static final int PAYLOAD = 1_200;

    @TempDir Path dir;

    @Test
    void aFullDiskUnderTheSpoolIsCountedAndTheAgentRecoversWhenKafkaReturns() throws Exception {
        try (Tmpfs fs = Tmpfs.mount(2 << 20);
                EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(1).build().start()) {
            kafka.createTopic("flows.raw", 1);
            kafka.createTopic("flows.rejected", 1);
            Path yaml = dir.resolve("agent.yaml");
            Files.writeString(
                    yaml,
                    String.join(
                            "\n",
                            "udp:",
                            "  listen: ['127.0.0.1:0']",
                            "  sockets-per-listener: 1",
                            "kafka:",
                            "  bootstrap-servers: '" + kafka.bootstrapServers() + "'",
                            "  buffer-memory-bytes: 1048576",
                            "  batch-bytes: 65536",
                            "spool:",
                            "  directory: '" + fs.path().resolve("spool") + "'",
                            "  max-bytes: 64MiB",
                            "  segment-bytes: 256KiB",
                            "metrics:",
                            "  port: 0",
                            ""));
            AgentConfig config =
                    AgentCommand.configFrom(new String[] {"--config", yaml.toString()});
            try (CaptureAgent agent = CaptureAgent.start(config);
                    DatagramChannel exporter = DatagramChannel.open()) {
                exporter.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
                InetSocketAddress target = agent.udp().localAddresses().get(0);
                int[] seq = {0};
                Runnable send1500 =
                        () -> {
                            long next = System.nanoTime();
                            try {
                                for (int i = 0; i < 1_500; i++) {
                                    LockSupport.parkNanos(next - System.nanoTime());
                                    next += 1_000_000_000L / 1_500;
                                    exporter.send(ByteBuffer.wrap(ipfix(seq[0]++)), target);
                                }
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        };
                send1500.run();
                kafka.stop();
                // Kafka away: the spool takes what comes until the 2 MiB file system is full.
                while (agent.metrics().droppedCount(Drop.SPOOL_NO_SPACE) == 0) {
                    send1500.run();
                    assertThat(seq[0])
                            .as("datagrams sent while waiting for a full disk")
                            .isLessThan(30_000);
                }
                send1500.run();
                assertThat(agent.metrics().droppedCount(Drop.SPOOL_FULL)).isZero();
                // Full: what is left is less than one write of the spool's 256 KiB buffer.
                assertThat(fs.free()).isLessThan(260 * 1024);
                String down = http(agent.metricsPort(), "/metrics");
                assertThat(down)
                        .contains("flowhouse_agent_spool_problems_total{problem=\"NO_SPACE\"}");
                kafka.start();
                send1500.run();
                // The drain empties the spool and the agent goes back to direct sends.
                await(
                        () -> !agent.publisher().isSpooling() && agent.metrics().spoolDepth() == 0,
                        Duration.ofSeconds(120));
                long droppedBefore = agent.metrics().droppedCount();
                send1500.run();
                int total = seq[0];
                long dropped = agent.metrics().droppedCount();
                assertThat(dropped).isEqualTo(droppedBefore);
                assertThat(dropped)
                        .isEqualTo(
                                agent.metrics().droppedCount(Drop.SPOOL_NO_SPACE)
                                        + agent.metrics().droppedCount(Drop.SPOOL_IO_ERROR));
                List<ConsumerRecord<byte[], byte[]>> records =
                        TopicReader.readAll(
                                kafka.bootstrapServers(),
                                "flows.raw",
                                Duration.ofSeconds(120),
                                got -> distinct(got).size() >= total - dropped);
                Set<Integer> got = distinct(records);
                assertThat(got).hasSize((int) (total - dropped));
                // The last 1,500, sent after the recovery, are all there.
                for (int s = total - 1_500; s < total; s++) {
                    assertThat(got).contains(s);
                }
                assertThat(http(agent.metricsPort(), "/health")).contains("\"status\":\"UP\"");
                System.out.printf(
                        "full disk: %d datagrams sent, %d in Kafka, %d dropped (%d no space),"
                                + " %d spooled, spool problems: %d no space%n",
                        total,
                        got.size(),
                        dropped,
                        agent.metrics().droppedCount(Drop.SPOOL_NO_SPACE),
                        agent.metrics().spooledCount(),
                        spoolProblems(down));
            }
        }
    }

    /** A valid IPFIX message whose sequence number identifies it. */
    static byte[] ipfix(int sequence) {
        ByteBuffer b = ByteBuffer.allocate(PAYLOAD);
        b.putShort((short) 10).putShort((short) PAYLOAD).putInt(1_700_000_000);
        b.putInt(sequence).putInt(1);
        b.putShort((short) 256).putShort((short) (PAYLOAD - 16));
        while (b.hasRemaining()) {
            b.put((byte) (sequence * 31 + b.position()));
        }
        return b.array();
    }

    private static Set<Integer> distinct(List<ConsumerRecord<byte[], byte[]>> records) {
        Set<Integer> seqs = new LinkedHashSet<>();
        for (RawDatagram d : RawRecords.datagrams(records)) {
            seqs.add(ByteBuffer.wrap(d.payload()).getInt(8));
        }
        return seqs;
    }

    private static long spoolProblems(String metrics) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith("flowhouse_agent_spool_problems_total{problem=\"NO_SPACE\"}")) {
                return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return -1;
    }

    static void await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited %s", timeout).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    static String http(int port, String path) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        return client.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
