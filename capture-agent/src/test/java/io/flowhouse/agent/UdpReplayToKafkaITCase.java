// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.ExporterPartitionKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.testkit.TestDataDir;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import io.flowhouse.testkit.kafka.RawRecords;
import io.flowhouse.testkit.kafka.TopicReader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every capture in {@code testdata/} replayed over loopback UDP at a running agent, read back from
 * a real Kafka broker: exactly the datagrams sent, byte for byte, in order per exporter, and none
 * dropped by the kernel.
 */
class UdpReplayToKafkaITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @TempDir Path spoolDir;

    @Test
    void everyCaptureArrivesByteForByteInOrderPerExporter() throws Exception {
        List<Path> captures;
        try (Stream<Path> files = Files.list(TestDataDir.testdata())) {
            captures =
                    files.filter(p -> p.getFileName().toString().endsWith(".pcap"))
                            .filter(p -> !p.getFileName().toString().startsWith("packets-"))
                            // sFlow captures: keyed by agent, SflowReplayToKafkaITCase.
                            .filter(p -> !p.getFileName().toString().startsWith("sflow-"))
                            .sorted()
                            .toList();
        }
        assertThat(captures).hasSize(8);
        KAFKA.createTopic("flows.raw", 4);
        KAFKA.createTopic("flows.rejected", 1);

        AgentConfig config =
                AgentCommand.configFrom(
                        new String[] {
                            "--listen", "127.0.0.1:0",
                            "--listen", "[::1]:0",
                            "--bootstrap-servers", KAFKA.bootstrapServers(),
                            "--spool-dir", spoolDir.toString(),
                            "--metrics-port", "0",
                            "--agent-id", "it-agent"
                        });
        Map<String, List<String>> expected = new HashMap<>();
        int sent = 0;
        try (CaptureAgent agent = CaptureAgent.start(config)) {
            List<InetSocketAddress> addrs = agent.udp().localAddresses();
            InetSocketAddress v4 = addrs.get(0);
            InetSocketAddress v6 = addrs.get(addrs.size() - 1);
            for (Path capture : captures) {
                List<PcapReplay.Exporter> exporters = PcapReplay.load(capture);
                List<Integer> ports = PcapReplay.send(exporters, v4, v6, 4_000);
                for (int i = 0; i < exporters.size(); i++) {
                    String key = (exporters.get(i).ipv6() ? "[::1]:" : "127.0.0.1:") + ports.get(i);
                    for (byte[] payload : exporters.get(i).payloads()) {
                        expected.computeIfAbsent(key, k -> new ArrayList<>())
                                .add(HexFormat.of().formatHex(payload));
                        sent++;
                    }
                }
            }
            int total = sent;
            List<ConsumerRecord<byte[], byte[]>> records =
                    TopicReader.readAll(
                            KAFKA.bootstrapServers(),
                            "flows.raw",
                            Duration.ofSeconds(120),
                            RawRecords.atLeast(total));

            Map<String, List<String>> actual = new HashMap<>();
            Map<String, List<DatagramStamp>> stamps = new HashMap<>();
            int datagrams = 0;
            for (ConsumerRecord<byte[], byte[]> r : records) {
                // A batch record: one exporter's datagrams in order, stamped with the first's time.
                List<RawDatagram> in = RawDatagramCodec.decodeAll(r.value());
                assertThat(r.timestamp()).isEqualTo(in.get(0).receivedMillis());
                datagrams += in.size();
                for (RawDatagram d : in) {
                    ExporterKey key = ExporterPartitionKey.decode(r.key());
                    assertThat(key.address()).isEqualTo(d.exporterAddress());
                    assertThat(key.port()).isEqualTo(d.exporterPort());
                    assertThat(d.agentId()).isEqualTo("it-agent");
                    assertThat(d.schemaVersion()).isEqualTo(RawDatagram.SCHEMA_VERSION_STAMPED);
                    assertThat(d.stamp()).isNotNull();
                    actual.computeIfAbsent(key.toString(), k -> new ArrayList<>())
                            .add(HexFormat.of().formatHex(d.payload()));
                    stamps.computeIfAbsent(key.toString(), k -> new ArrayList<>()).add(d.stamp());
                }
            }
            // One stream per exporter, its datagrams numbered from 0 in partition order.
            for (List<DatagramStamp> s : stamps.values()) {
                for (int i = 0; i < s.size(); i++) {
                    assertThat(s.get(i).epoch()).isEqualTo(agent.stamper().epoch());
                    assertThat(s.get(i).stream()).isEqualTo(s.get(0).stream());
                    assertThat(s.get(i).sequence()).isEqualTo(i);
                }
            }
            assertThat(stamps.values().stream().map(s -> s.get(0).stream()).distinct())
                    .hasSize(stamps.size());
            assertThat(datagrams).isEqualTo(total);
            assertThat(records).hasSizeLessThanOrEqualTo(total);
            assertThat(actual.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
            for (Map.Entry<String, List<String>> e : expected.entrySet()) {
                assertThat(actual.get(e.getKey()))
                        .as("datagrams of exporter %s", e.getKey())
                        .containsExactlyElementsOf(e.getValue());
            }
            assertThat(agent.metrics().rejectedCount()).isZero();
            assertThat(agent.metrics().droppedCount()).isZero();
            assertThat(agent.metrics().spooledCount()).isZero();
            assertThat(agent.metrics().datagrams()).isEqualTo(total);
            assertThat(agent.metrics().kernelStats().totalDrops()).isZero();
            String metrics = http(agent.metricsPort(), "/metrics");
            assertThat(metrics)
                    .contains(
                            "flowhouse_agent_datagrams_total{exporter=\"127.0.0.1\",version=\"5\"}")
                    .contains("version=\"9\"")
                    .contains("version=\"10\"")
                    .contains("flowhouse_agent_socket_drops_total");
            assertThat(http(agent.metricsPort(), "/health")).contains("\"status\":\"UP\"");
        }
        System.out.printf(
                "replayed %d captures: %d datagrams from %d exporters, all in Kafka in order%n",
                captures.size(), sent, expected.size());
    }

    private static String http(int port, String path) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<String> response =
                client.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        return response.body();
    }
}
