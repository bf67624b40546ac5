// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import io.flowhouse.testkit.kafka.RawRecords;
import io.flowhouse.testkit.kafka.TopicReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The malformed corpus goes through a running agent JVM, interleaved with good datagrams, and a
 * source outside the exporter allow-list sends good datagrams too. Afterwards: every malformed
 * datagram is either in {@code flows.rejected} (header check, counted in the agent's reject metric)
 * or in {@code flows.raw} where the decoder the Flink job runs reports a problem for it; every good
 * datagram is in {@code flows.raw} and decodes to its flow; every datagram from the disallowed
 * source is counted as {@code NOT_ALLOWED} and absent from Kafka; the agent is the same process
 * throughout, with no socket drops.
 */
class BadInputITCase {

    private static final int PER_KIND = 300;

    @TempDir Path dir;

    @Test
    void everyMalformedDatagramIsCountedAndEveryGoodOneStored() throws Exception {
        List<MalformedCorpus.Bad> corpus = MalformedCorpus.generate(0x9e3779b97f4a7c15L, PER_KIND);
        Map<ByteBuffer, Integer> badSent = new HashMap<>();
        for (MalformedCorpus.Bad b : corpus) {
            badSent.merge(ByteBuffer.wrap(b.payload()), 1, Integer::sum);
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).build().start()) {
            kafka.createTopic("flows.raw", 2);
            kafka.createTopic("flows.rejected", 1);
            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            Path yaml = agentYaml(kafka, udpPort, metricsPort);
            try (AgentProcess agent =
                            new AgentProcess(yaml, dir.resolve("agent.log"), metricsPort).start();
                    DatagramChannel allowed = DatagramChannel.open();
                    DatagramChannel outsider = DatagramChannel.open()) {
                long pid = agent.pid();
                long rssBefore = rssKib(pid);
                allowed.bind(new InetSocketAddress("127.0.0.1", 0));
                outsider.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
                InetSocketAddress target = new InetSocketAddress("127.0.0.1", udpPort);
                int good = 0;
                int outside = 0;
                for (int i = 0; i < corpus.size(); i++) {
                    allowed.send(ByteBuffer.wrap(corpus.get(i).payload()), target);
                    allowed.send(ByteBuffer.wrap(FaultSupport.v5(good++)), target);
                    if (i % 5 == 0) {
                        outsider.send(
                                ByteBuffer.wrap(FaultSupport.v5(1_000_000 + outside++)), target);
                    }
                    if (i % 20 == 19) {
                        Thread.sleep(5);
                    }
                }
                long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                while (System.nanoTime() < deadline
                        && agent.metricSum("flowhouse_agent_kafka_datagrams_total")
                                < good + corpus.size()) {
                    Thread.sleep(200);
                }
                long rawAcked =
                        agent.metric("flowhouse_agent_kafka_datagrams_total{topic=\"flows.raw\"}");
                List<ConsumerRecord<byte[], byte[]>> raw =
                        RawRecords.read(
                                Map.of("bootstrap.servers", kafka.bootstrapServers()),
                                "flows.raw",
                                Duration.ofSeconds(90),
                                rawAcked);
                long rejectedMetric = agent.metricSum("flowhouse_agent_rejected_datagrams_total");
                List<ConsumerRecord<byte[], byte[]>> rejected =
                        TopicReader.readAll(
                                Map.of("bootstrap.servers", kafka.bootstrapServers()),
                                "flows.rejected",
                                Duration.ofSeconds(30),
                                got -> got.size() >= rejectedMetric);

                Map<ByteBuffer, Integer> badSeen = new HashMap<>();
                Map<String, Integer> rejectReasons = new TreeMap<>();
                for (ConsumerRecord<byte[], byte[]> r : rejected) {
                    RejectedDatagram d = RawDatagramCodec.decodeRejected(r.value());
                    badSeen.merge(ByteBuffer.wrap(d.datagram().payload()), 1, Integer::sum);
                    rejectReasons.merge(d.reason(), 1, Integer::sum);
                }
                NetflowDecoder decoder = new NetflowDecoder();
                Map<Integer, Integer> goodSeen = new HashMap<>();
                Map<MalformedCorpus.Kind, Integer> decodeRejects =
                        new EnumMap<>(MalformedCorpus.Kind.class);
                long goodPackets = 0;
                for (RawDatagram d : RawRecords.datagrams(raw)) {
                    ByteBuffer key = ByteBuffer.wrap(d.payload());
                    assertThat(d.exporterAddress().toString()).isEqualTo("127.0.0.1");
                    if (badSent.containsKey(key)) {
                        badSeen.merge(key, 1, Integer::sum);
                        assertThat(decodeProblem(decoder, d))
                                .as(
                                        "a malformed datagram that passed the header check decodes"
                                                + " with a problem")
                                .isTrue();
                        continue;
                    }
                    int seq = FaultSupport.seqOf(d.payload());
                    assertThat(goodSeen.merge(seq, 1, Integer::sum))
                            .as("duplicate %d", seq)
                            .isOne();
                    DecodeResult result =
                            decoder.decode(
                                    ByteBuffer.wrap(d.payload()),
                                    new DecodeContext(
                                            new ExporterKey(d.exporterAddress(), d.exporterPort()),
                                            d.receivedMillis()),
                                    new InMemoryTemplateCache());
                    assertThat(result.problems()).isEmpty();
                    assertThat(result.records()).hasSize(1);
                    FlowRecord f = result.records().get(0);
                    assertThat(f.packets()).isEqualTo(FaultSupport.packets(seq));
                    assertThat(f.bytes()).isEqualTo(FaultSupport.bytes(seq));
                    goodPackets += f.packets();
                }
                for (MalformedCorpus.Bad b : corpus) {
                    ByteBuffer key = ByteBuffer.wrap(b.payload());
                    if (!rejectedContains(rejected, key)) {
                        decodeRejects.merge(b.kind(), 1, Integer::sum);
                    }
                }

                assertThat(badSeen)
                        .as("every malformed datagram, as often as sent")
                        .isEqualTo(badSent);
                assertThat(goodSeen).hasSize(good);
                assertThat(goodSeen.keySet()).allMatch(s -> s < 1_000_000);
                assertThat(rejected).hasSize((int) rejectedMetric);
                assertThat(
                                agent.metric(
                                        "flowhouse_agent_dropped_datagrams_total{reason=\"NOT_ALLOWED\"}"))
                        .isEqualTo(outside);
                assertThat(agent.metricSum("flowhouse_agent_socket_drops_total")).isZero();
                assertThat(agent.isAlive()).isTrue();
                assertThat(agent.pid()).isEqualTo(pid);
                assertThat(agent.starts()).isOne();
                long rssAfter = rssKib(pid);
                assertThat(rssAfter).as("agent RSS KiB").isLessThan(768 * 1024);
                System.out.printf(
                        Locale.ROOT,
                        "bad input: %d malformed (%d rejected by the agent %s, %d to the decoder %s),"
                                + " %d good stored (%d packets), %d from outside the allow-list"
                                + " dropped; agent RSS %d -> %d KiB%n",
                        corpus.size(),
                        rejected.size(),
                        rejectReasons,
                        corpus.size() - rejected.size(),
                        decodeRejects,
                        goodSeen.size(),
                        goodPackets,
                        outside,
                        rssBefore,
                        rssAfter);
                FaultSupport.row(
                        "bad input corpus + allow-list (good part)",
                        good,
                        goodSeen.size(),
                        0,
                        good - goodSeen.size(),
                        0,
                        Duration.ZERO,
                        "flows.raw + flows.rejected");
            }
        }
    }

    private Path agentYaml(EmbeddedKafka kafka, int udpPort, int metricsPort)
            throws java.io.IOException {
        Path yaml = dir.resolve("agent.yaml");
        Files.writeString(
                yaml,
                String.join(
                        "\n",
                        "agent:",
                        "  id: bad-input-it",
                        "udp:",
                        "  listen: ['127.0.0.1:" + udpPort + "']",
                        "  sockets-per-listener: 1",
                        "  allowed-exporters: ['127.0.0.1/32']",
                        "kafka:",
                        "  bootstrap-servers: '" + kafka.bootstrapServers() + "'",
                        "spool:",
                        "  directory: '" + dir.resolve("spool") + "'",
                        "metrics:",
                        "  host: 127.0.0.1",
                        "  port: " + metricsPort,
                        ""),
                StandardCharsets.UTF_8);
        return yaml;
    }

    private static boolean rejectedContains(
            List<ConsumerRecord<byte[], byte[]>> rejected, ByteBuffer key) {
        for (ConsumerRecord<byte[], byte[]> r : rejected) {
            if (ByteBuffer.wrap(RawDatagramCodec.decodeRejected(r.value()).datagram().payload())
                    .equals(key)) {
                return true;
            }
        }
        return false;
    }

    private static boolean decodeProblem(NetflowDecoder decoder, RawDatagram d) {
        try {
            DecodeResult result =
                    decoder.decode(
                            ByteBuffer.wrap(d.payload()),
                            new DecodeContext(
                                    new ExporterKey(d.exporterAddress(), d.exporterPort()),
                                    d.receivedMillis()),
                            new InMemoryTemplateCache());
            return !result.problems().isEmpty();
        } catch (DecodeException e) {
            return true;
        }
    }

    private static long rssKib(long pid) throws java.io.IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }
}
