// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.ExporterPartitionKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.envelope.SflowAgentKey;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.testkit.TestDataDir;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import io.flowhouse.testkit.kafka.RawRecords;
import io.flowhouse.testkit.kafka.TopicReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two real sFlow v5 captures and a NetFlow v5 one replayed over loopback UDP at one agent
 * listener (any port takes every format: sFlow's 32-bit version 5 is told from NetFlow's 16-bit
 * one), read back from a real Kafka broker: every datagram, byte for byte, sFlow keyed by its agent
 * address and sub-agent id and in order per agent, NetFlow keyed by its exporter, each with the
 * agent's stamp.
 */
class SflowReplayToKafkaITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @TempDir Path spoolDir;

    @Test
    void sflowAgentsAndNetflowOnOnePortArriveKeyedAndInOrder() throws Exception {
        KAFKA.createTopic("flows.raw", 4);
        KAFKA.createTopic("flows.rejected", 1);
        AgentConfig config =
                AgentCommand.configFrom(
                        new String[] {
                            "--listen", "127.0.0.1:0",
                            "--bootstrap-servers", KAFKA.bootstrapServers(),
                            "--spool-dir", spoolDir.toString(),
                            "--metrics-port", "0",
                            "--agent-id", "it-agent"
                        });
        // The sFlow agents of the captures (testdata/README), and their datagram counts.
        SflowAgentKey pmacct = new SflowAgentKey(IpAddress.parse("192.0.2.1"), 1);
        SflowAgentKey ovs = new SflowAgentKey(IpAddress.parse("192.0.2.2"), 0);
        Map<String, List<String>> expected = new HashMap<>();
        int sent = 0;
        try (CaptureAgent agent = CaptureAgent.start(config)) {
            InetSocketAddress target = agent.udp().localAddresses().get(0);
            for (String[] c :
                    new String[][] {
                        {"sflow-pmacct-rate1.pcap.gz", pmacct.toString()},
                        {"sflow-ovs-rate10.pcap", ovs.toString()},
                        {"netflow-v5-softflowd.pcap", null}
                    }) {
                List<PcapReplay.Exporter> exporters = PcapReplay.load(TestDataDir.file(c[0]));
                List<Integer> ports = PcapReplay.send(exporters, target, target, 4_000);
                for (int i = 0; i < exporters.size(); i++) {
                    String key = c[1] != null ? c[1] : "127.0.0.1:" + ports.get(i);
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
                // A batch record: one key's datagrams in order, stamped with the first's time.
                List<RawDatagram> in = RawDatagramCodec.decodeAll(r.value());
                assertThat(r.timestamp()).isEqualTo(in.get(0).receivedMillis());
                datagrams += in.size();
                for (RawDatagram d : in) {
                    boolean sflow = r.key().length == SflowAgentKey.SIZE;
                    String key =
                            sflow
                                    ? SflowAgentKey.decode(r.key()).toString()
                                    : ExporterPartitionKey.decode(r.key()).toString();
                    assertThat(sflow).isEqualTo(d.payload()[1] == 0 && d.payload()[3] == 5);
                    assertThat(d.exporterAddress()).isEqualTo(IpAddress.parse("127.0.0.1"));
                    assertThat(d.agentId()).isEqualTo("it-agent");
                    assertThat(d.stamp()).isNotNull();
                    actual.computeIfAbsent(key, k -> new ArrayList<>())
                            .add(HexFormat.of().formatHex(d.payload()));
                    stamps.computeIfAbsent(
                                    d.exporterAddress() + ":" + d.exporterPort(),
                                    k -> new ArrayList<>())
                            .add(d.stamp());
                }
            }
            assertThat(datagrams).isEqualTo(total);
            assertThat(records).hasSizeLessThanOrEqualTo(total);
            assertThat(actual.keySet())
                    .containsExactlyInAnyOrderElementsOf(expected.keySet())
                    .contains(pmacct.toString(), ovs.toString());
            assertThat(actual.get(pmacct.toString())).hasSize(5_770);
            assertThat(actual.get(ovs.toString())).hasSize(588);
            for (Map.Entry<String, List<String>> e : expected.entrySet()) {
                assertThat(actual.get(e.getKey()))
                        .as("datagrams of %s", e.getKey())
                        .containsExactlyElementsOf(e.getValue());
            }
            // The stamp stays the sender's stream, numbered from 0, whatever the format.
            for (List<DatagramStamp> s : stamps.values()) {
                for (int i = 0; i < s.size(); i++) {
                    assertThat(s.get(i).epoch()).isEqualTo(agent.stamper().epoch());
                    assertThat(s.get(i).stream()).isEqualTo(s.get(0).stream());
                    assertThat(s.get(i).sequence()).isEqualTo(i);
                }
            }
            assertThat(agent.metrics().rejectedCount()).isZero();
            assertThat(agent.metrics().droppedCount()).isZero();
            assertThat(agent.metrics().datagrams()).isEqualTo(total);
            assertThat(agent.metrics().kernelStats().totalDrops()).isZero();
            assertThat(metrics(agent.metricsPort()))
                    .contains("version=\"105\"")
                    .contains("version=\"5\"");
        }
        System.out.printf(
                "replayed 2 sFlow captures and 1 NetFlow v5 capture to one port: %d datagrams, %d"
                        + " keys, all in Kafka in order%n",
                sent, expected.size());
    }

    private static String metrics(int port) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
