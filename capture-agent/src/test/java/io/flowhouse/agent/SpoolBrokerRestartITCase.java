// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.codec.envelope.ExporterPartitionKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import io.flowhouse.testkit.kafka.TopicReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker goes away in the middle of a stream and comes back: with a small producer buffer the
 * agent has to spool to disk, and every datagram sent still arrives in Kafka, in order per
 * exporter.
 */
class SpoolBrokerRestartITCase {

    private static final int EXPORTERS = 3;
    private static final int PER_EXPORTER = 3_000;
    private static final int PAYLOAD = 1_200;

    @TempDir Path dir;

    /** A valid IPFIX message whose sequence number and domain identify it. */
    static byte[] ipfix(int domain, int sequence) {
        ByteBuffer b = ByteBuffer.allocate(PAYLOAD);
        b.putShort((short) 10).putShort((short) PAYLOAD).putInt(1_700_000_000);
        b.putInt(sequence).putInt(domain);
        // One data set for template 256 filling the rest.
        b.putShort((short) 256).putShort((short) (PAYLOAD - 16));
        while (b.hasRemaining()) {
            b.put((byte) (sequence * 31 + b.position()));
        }
        return b.array();
    }

    @Test
    void everyDatagramArrivesAcrossABrokerRestart() throws Exception {
        run(false);
    }

    /**
     * The same with several datagrams of one exporter per record: batch records are spooled and
     * replayed as they are, and every datagram in them arrives once, in order, with its stamp.
     */
    @Test
    void everyDatagramOfBatchRecordsArrivesAcrossABrokerRestart() throws Exception {
        run(true);
    }

    private void run(boolean batched) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).build().start()) {
            kafka.createTopic("flows.raw", 2);
            kafka.createTopic("flows.rejected", 1);
            Path yaml = dir.resolve("agent.yaml");
            Files.writeString(
                    yaml,
                    String.join(
                            "\n",
                            "agent:",
                            "  id: spool-it",
                            "udp:",
                            "  listen: ['127.0.0.1:0']",
                            "  sockets-per-listener: 2",
                            "kafka:",
                            "  bootstrap-servers: '" + kafka.bootstrapServers() + "'",
                            "  buffer-memory-bytes: 1048576",
                            "  batch-bytes: 65536",
                            // The default batches: a record per datagram is asked for here.
                            batched ? "  record-max-datagrams: 32" : "  record-max-datagrams: 1",
                            batched ? "  record-linger-ms: 20" : "",
                            "spool:",
                            "  directory: '" + dir.resolve("spool") + "'",
                            "  segment-bytes: 1048576",
                            "metrics:",
                            "  enabled: false",
                            ""));
            AgentConfig config =
                    AgentCommand.configFrom(new String[] {"--config", yaml.toString()});
            assertThat(config.kafka().bufferMemoryBytes()).isEqualTo(1_048_576L);

            Map<String, List<Integer>> sent = new HashMap<>();
            try (CaptureAgent agent = CaptureAgent.start(config)) {
                InetSocketAddress target = agent.udp().localAddresses().get(0);
                List<DatagramChannel> sockets = new ArrayList<>();
                for (int e = 0; e < EXPORTERS; e++) {
                    DatagramChannel ch = DatagramChannel.open();
                    ch.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
                    sockets.add(ch);
                }
                Thread sender =
                        new Thread(
                                () -> {
                                    long next = System.nanoTime();
                                    try {
                                        for (int i = 0; i < PER_EXPORTER; i++) {
                                            for (int e = 0; e < EXPORTERS; e++) {
                                                LockSupport.parkNanos(next - System.nanoTime());
                                                next += 1_000_000_000L / 1_500;
                                                sockets.get(e)
                                                        .send(ByteBuffer.wrap(ipfix(e, i)), target);
                                            }
                                        }
                                    } catch (java.io.IOException ex) {
                                        throw new java.io.UncheckedIOException(ex);
                                    }
                                },
                                "it-sender");
                sender.start();
                Thread.sleep(1_500);
                kafka.stop();
                Thread.sleep(2_000);
                long spooledWhileDown = agent.metrics().spooledCount();
                Thread.sleep(2_000);
                kafka.start();
                sender.join(60_000);
                for (int e = 0; e < EXPORTERS; e++) {
                    String key =
                            "127.0.0.1:"
                                    + ((InetSocketAddress) sockets.get(e).getLocalAddress())
                                            .getPort();
                    List<Integer> seqs = new ArrayList<>();
                    for (int i = 0; i < PER_EXPORTER; i++) {
                        seqs.add(i);
                    }
                    sent.put(key, seqs);
                    sockets.get(e).close();
                }

                int total = EXPORTERS * PER_EXPORTER;
                List<ConsumerRecord<byte[], byte[]>> records =
                        TopicReader.readAll(
                                kafka.bootstrapServers(),
                                "flows.raw",
                                Duration.ofSeconds(180),
                                got -> distinct(got) >= total);
                Map<String, List<Integer>> firstSeen = new HashMap<>();
                Map<String, Set<Integer>> seen = new HashMap<>();
                int duplicates = 0;
                Map<String, List<Long>> stamps = new HashMap<>();
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    for (RawDatagram d : RawDatagramCodec.decodeAll(r.value())) {
                        String key = ExporterPartitionKey.decode(r.key()).toString();
                        assertThat(d.exporter().toString()).isEqualTo(key);
                        int seq = ByteBuffer.wrap(d.payload()).getInt(8);
                        assertThat(d.payload())
                                .isEqualTo(ipfix(ByteBuffer.wrap(d.payload()).getInt(12), seq));
                        if (seen.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(seq)) {
                            firstSeen.computeIfAbsent(key, k -> new ArrayList<>()).add(seq);
                            stamps.computeIfAbsent(key, k -> new ArrayList<>())
                                    .add(d.stamp().sequence());
                        } else {
                            duplicates++;
                        }
                    }
                }
                for (Map.Entry<String, List<Long>> e : stamps.entrySet()) {
                    // One run, one stream per exporter: the stamps count 0, 1, 2... as sent.
                    for (int i = 0; i < e.getValue().size(); i++) {
                        assertThat(e.getValue().get(i)).as("stamp of %s", e.getKey()).isEqualTo(i);
                    }
                }
                if (batched) {
                    assertThat(records.size())
                            .as("records holding several datagrams")
                            .isLessThan(total / 2);
                    assertThat(agent.metrics().batchedDatagrams()).isGreaterThanOrEqualTo(total);
                }
                assertThat(agent.metrics().kernelStats().totalDrops()).isZero();
                assertThat(agent.metrics().droppedCount()).isZero();
                assertThat(spooledWhileDown)
                        .as("records spooled while the broker was down")
                        .isPositive();
                assertThat(firstSeen.keySet()).containsExactlyInAnyOrderElementsOf(sent.keySet());
                for (Map.Entry<String, List<Integer>> e : sent.entrySet()) {
                    assertThat(firstSeen.get(e.getKey()))
                            .as("datagrams of exporter %s", e.getKey())
                            .containsExactlyElementsOf(e.getValue());
                }
                System.out.printf(
                        "broker restart%s: %d datagrams sent, %d distinct in Kafka (%d records),"
                                + " %d duplicates, %d spooled (%d while the broker was down),"
                                + " %d send errors%n",
                        batched ? " (batch records)" : "",
                        total,
                        distinct(records),
                        records.size(),
                        duplicates,
                        agent.metrics().spooledCount(),
                        spooledWhileDown,
                        agent.metrics().sendErrors());
            }
        }
    }

    private static int distinct(List<ConsumerRecord<byte[], byte[]>> records) {
        Set<String> ids = new java.util.HashSet<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            for (RawDatagram d : RawDatagramCodec.decodeAll(r.value())) {
                ids.add(d.exporterPort() + "/" + ByteBuffer.wrap(d.payload()).getInt(8));
            }
        }
        return ids.size();
    }
}
