// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.envelope.ExporterPartitionKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.SflowAgentKey;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.flow.SflowFields;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.schema.v1.Flow;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both real sFlow captures through the production topology with the decoded-flows topic on
 * (flowhouse format, exactly once): the topic holds each flow sample once with testdata/README's
 * goldens, unscaled and scaled by its {@code sampling_rate} (pmacct 1:1: 42,173 samples, 31,803,431
 * frame bytes; OVS 1:10: 4,215 samples, 3,231,726 bytes, 42,150 packets and 32,317,260 bytes
 * scaled), as the independent Python reader ({@link PythonTopicReader}, {@code --sflow}) sums it;
 * and every record's sFlow fields (agent, sub-agent, datagram and sample sequence, data source,
 * sample pool, drops, rate) are those the codec decodes from the same datagrams, sample by sample.
 */
class SflowFlowsTopicITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final String[] FILES = {"sflow-pmacct-rate1.pcap.gz", "sflow-ovs-rate10.pcap"};
    private static final String TOPIC = "flows.decoded.sflow";

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theCapturesSamplesAreOnTheTopicWithTheirRateAndSflowFields(@TempDir Path tmp)
            throws Exception {
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(),
                        null,
                        "sflowtopic",
                        "--kafka.stop",
                        "latest",
                        "--flows-topic.enabled",
                        "true",
                        "--flows-topic.topic",
                        TOPIC,
                        "--flows-topic.partitions",
                        "3",
                        "--flows-topic.format",
                        "flowhouse",
                        "--flows-topic.transactional-id-prefix",
                        "itcase-sflowtopic");
        List<RawDatagram> all = new ArrayList<>();
        Map<Integer, Set<String>> expected = new TreeMap<>();
        for (int i = 0; i < FILES.length; i++) {
            List<RawDatagram> d =
                    CaptureProducer.datagrams(
                            FILES[i], IpAddress.parse("192.0.2." + (1 + i)), 41_000 + i);
            expected.put(41_000 + i, codecSamples(d));
            all.addAll(d);
        }
        KAFKA.createTopic(s.rawTopic(), 4);
        CaptureProducer.produce(
                KAFKA.bootstrapServers(),
                s.rawTopic(),
                all,
                d -> SflowAgentKey.encodeFromHeader(ByteBuffer.wrap(d.payload())));

        PipelineHarness.environment(s, PipelineHarness.withoutClickHouse(s))
                .execute("sflow flows topic");

        // The published Java classes: every sample's sFlow fields, as the codec decodes them.
        Map<Integer, List<byte[]>> byPort = readCommitted();
        assertThat(byPort.keySet()).containsExactly(41_000, 41_001);
        for (Map.Entry<Integer, List<byte[]>> e : byPort.entrySet()) {
            List<String> got = new ArrayList<>();
            for (byte[] v : e.getValue()) {
                Flow f = Flow.parseFrom(v);
                assertThat(f.getVersion()).isEqualTo(FlowRecord.VERSION_SFLOW5);
                got.add(
                        sample(
                                IpAddress.ofBytes(f.getSflowAgentAddress().toByteArray()),
                                Integer.toUnsignedLong(f.getSflowSubAgentId()),
                                Integer.toUnsignedLong(f.getSflowDatagramSequence()),
                                Integer.toUnsignedLong(f.getSflowSampleSequence()),
                                f.getSflowSourceIdClass(),
                                Integer.toUnsignedLong(f.getSflowSourceIdIndex()),
                                Integer.toUnsignedLong(f.getSflowSamplePool()),
                                Integer.toUnsignedLong(f.getSflowDrops()),
                                f.getSamplingRate(),
                                f.getInIf(),
                                f.getOutIf()));
            }
            // As sets (AssertJ's in-any-order match is quadratic): same size, no duplicate.
            Set<String> distinct = new HashSet<>(got);
            assertThat(distinct).as("port %d: no duplicate", e.getKey()).hasSameSizeAs(got);
            Set<String> missing = new HashSet<>(expected.get(e.getKey()));
            missing.removeAll(distinct);
            distinct.removeAll(expected.get(e.getKey()));
            assertThat(missing).as("port %d: samples not on the topic", e.getKey()).isEmpty();
            assertThat(distinct)
                    .as("port %d: samples the codec did not decode", e.getKey())
                    .isEmpty();
        }

        // The independent reader: records packets bytes ids scaled_packets scaled_bytes min_rate
        // max_rate sflow_records agents distinct_samples.
        Map<String, List<Long>> python =
                PythonTopicReader.readSflow(KAFKA.bootstrapServers(), TOPIC, tmp);
        assertThat(python)
                .containsExactly(
                        Map.entry(
                                "192.0.2.1:41000",
                                List.of(
                                        42_173L,
                                        42_173L,
                                        31_803_431L,
                                        42_173L,
                                        42_173L,
                                        31_803_431L,
                                        1L,
                                        1L,
                                        42_173L,
                                        1L,
                                        42_173L)),
                        Map.entry(
                                "192.0.2.2:41001",
                                List.of(
                                        4_215L,
                                        4_215L,
                                        3_231_726L,
                                        4_215L,
                                        42_150L,
                                        32_317_260L,
                                        10L,
                                        10L,
                                        4_215L,
                                        1L,
                                        4_215L)));
    }

    /** One line per flow sample the codec decodes from the datagrams. */
    private static Set<String> codecSamples(List<RawDatagram> datagrams) throws Exception {
        NetflowDecoder decoder = new NetflowDecoder();
        Set<String> out = new HashSet<>();
        for (RawDatagram d : datagrams) {
            for (FlowRecord f :
                    decoder.decode(
                                    ByteBuffer.wrap(d.payload()),
                                    new DecodeContext(d.exporter(), d.receivedMillis()),
                                    new InMemoryTemplateCache())
                            .records()) {
                SflowFields x = f.sflow();
                assertThat(
                                out.add(
                                        sample(
                                                x.agentAddress(),
                                                x.subAgentId(),
                                                x.datagramSequence(),
                                                x.sampleSequence(),
                                                x.sourceIdClass(),
                                                x.sourceIdIndex(),
                                                x.samplePool(),
                                                x.drops(),
                                                f.samplingRate(),
                                                f.inputInterface(),
                                                f.outputInterface())))
                        .isTrue();
            }
        }
        return out;
    }

    /**
     * One sample as a line: the agent, then sub-agent, datagram sequence, sample sequence, source
     * class and index, sample pool, drops, rate, input and output interface.
     */
    private static String sample(IpAddress agent, long... values) {
        StringBuilder b = new StringBuilder(agent.toString());
        for (long v : values) {
            b.append(' ').append(v);
        }
        return b.toString();
    }

    /** Every committed record of the topic, values grouped by the exporter port of their key. */
    private static Map<Integer, List<byte[]>> readCommitted() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        Map<Integer, List<byte[]>> byPort = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> parts = new ArrayList<>();
            for (PartitionInfo i : c.partitionsFor(TOPIC, Duration.ofSeconds(30))) {
                parts.add(new TopicPartition(i.topic(), i.partition()));
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    int port = ExporterPartitionKey.decode(r.key()).port();
                    byPort.computeIfAbsent(port, k -> new ArrayList<>()).add(r.value());
                }
            }
            assertThat(parts).allSatisfy(tp -> assertThat(c.position(tp)).isEqualTo(end.get(tp)));
        }
        return byPort;
    }
}
