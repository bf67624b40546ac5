// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.codec.packet.FlowHash;
import io.flowhouse.codec.packet.PacketBatchCodec;
import io.flowhouse.codec.packet.PacketSummary;
import io.flowhouse.codec.packet.ParseResult;
import io.flowhouse.testkit.TestDataDir;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import io.flowhouse.testkit.kafka.TopicReader;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The synthetic packet trace read offline by the agent ({@code --pcap FILE --speed max}) into
 * {@code packets.raw} on a real broker: exactly its 42,173 packets and 31,011,641 IP bytes, both
 * directions of every flow in one partition.
 */
class PcapFileToKafkaITCase {

    private static final int PACKETS = 42_173;
    private static final long IP_BYTES = 31_011_641L;

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @TempDir Path spoolDir;

    @Test
    void syntheticTraceYieldsEveryPacket() throws Exception {
        KAFKA.createTopic("packets.raw", 4);
        Path pcap = TestDataDir.file("packets-synthetic.pcap");
        AgentConfig config =
                AgentCommand.configFrom(
                        new String[] {
                            "--pcap", pcap.toString(),
                            "--speed", "max",
                            "--bootstrap-servers", KAFKA.bootstrapServers(),
                            "--spool-dir", spoolDir.toString(),
                            "--no-metrics"
                        });
        assertThat(config.udp().enabled()).isFalse();
        long read;
        try (CaptureAgent agent = CaptureAgent.start(config)) {
            read = agent.packetsDone().get();
            assertThat(read).isEqualTo(PACKETS);
            assertThat(agent.metrics().packetCount(ParseResult.OK)).isEqualTo(PACKETS);
        }
        List<ConsumerRecord<byte[], byte[]>> records =
                TopicReader.readAll(
                        KAFKA.bootstrapServers(),
                        "packets.raw",
                        Duration.ofSeconds(120),
                        got -> count(got) >= PACKETS);
        long packets = 0;
        long bytes = 0;
        long v6 = 0;
        long vlan = 0;
        Set<Integer> protocols = new HashSet<>();
        Map<String, Integer> partitionOfFlow = new HashMap<>();
        long previous = Long.MIN_VALUE;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            int bucket = ByteBuffer.wrap(r.key()).getInt();
            for (PacketSummary s : PacketBatchCodec.decode(r.value())) {
                packets++;
                bytes += s.ipLength();
                v6 += s.ipVersion() == 6 ? 1 : 0;
                vlan += s.outerVlan() != 0 ? 1 : 0;
                protocols.add(s.protocol());
                assertThat(FlowHash.partition(s.flowHash(), 64)).isEqualTo(bucket);
                String flow = canonical(s);
                Integer before = partitionOfFlow.putIfAbsent(flow, r.partition());
                assertThat(before == null ? r.partition() : before)
                        .as("partition of flow %s", flow)
                        .isEqualTo(r.partition());
                assertThat(s.timestampNanos()).isPositive();
                previous = Math.max(previous, s.timestampNanos());
            }
        }
        assertThat(packets).isEqualTo(PACKETS);
        assertThat(bytes).isEqualTo(IP_BYTES);
        assertThat(v6).isPositive();
        assertThat(vlan).isPositive();
        assertThat(protocols).contains(1, 6, 17, 47, 50, 58);
        System.out.printf(
                "packets-synthetic.pcap: %d packets, %d IP bytes, %d IPv6, %d VLAN-tagged, %d flows"
                        + " in %d records%n",
                packets, bytes, v6, vlan, partitionOfFlow.size(), records.size());
    }

    private static long count(List<ConsumerRecord<byte[], byte[]>> records) {
        long n = 0;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            n += ByteBuffer.wrap(r.value()).getInt(8);
        }
        return n;
    }

    /** Direction-free flow key, to check that both directions share a partition. */
    private static String canonical(PacketSummary s) {
        String a = s.srcAddr() + "/" + (s.protocol() == 1 || s.protocol() == 58 ? 0 : s.srcPort());
        String b = s.dstAddr() + "/" + (s.protocol() == 1 || s.protocol() == 58 ? 0 : s.dstPort());
        String lo = a.compareTo(b) <= 0 ? a : b;
        String hi = a.compareTo(b) <= 0 ? b : a;
        return s.outerVlan() + "|" + s.innerVlan() + "|" + s.protocol() + "|" + lo + "|" + hi;
    }
}
