// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.ExporterPartitionKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.PipelineConnectors;
import io.flowhouse.jobs.PipelineSinks;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.schema.goflow2.FlowMessage;
import io.flowhouse.schema.v1.Flow;
import io.flowhouse.testkit.ServiceRequirement;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
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
 * Every NetFlow/IPFIX test capture, produced to {@code flows.raw} as the agent would (one exporter
 * per capture), goes through the production topology on a MiniCluster with the decoded-flows topic
 * on, exactly once. The topic, read with {@code isolation.level=read_committed}, holds each flow
 * once with the README's ground-truth totals per exporter: counted through the published Java
 * classes, by {@code protoc --decode} with the published {@code .proto} files (flowhouse.v1.Flow;
 * goflow2's FlowMessage, length-delimited), and by an independent consumer that reads the topic
 * itself: Python's kafka-python and protobuf with the same files ({@link PythonTopicReader}).
 */
class FlowsTopicITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    /** Per-exporter totals read back from the topic. */
    record Totals(long records, long packets, long bytes, Set<String> ids) {
        Totals() {
            this(0, 0, 0, new HashSet<>());
        }

        Totals plus(long p, long b, String id) {
            ids.add(id);
            return new Totals(records + 1, packets + p, bytes + b, ids);
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void flowhouseFormatCarriesTheGroundTruthOnceWithReadCommitted(@TempDir Path tmp)
            throws Exception {
        Path protoc =
                ServiceRequirement.requireExecutable("protoc", "apt-get install protobuf-compiler");
        Map<Integer, List<byte[]>> byPort = runPipeline("fh", "flowhouse");

        Map<Integer, Totals> java = new TreeMap<>();
        Map<Integer, Totals> independent = new TreeMap<>();
        for (Map.Entry<Integer, List<byte[]>> e : byPort.entrySet()) {
            Totals t = new Totals();
            ByteArrayOutputStream batch = new ByteArrayOutputStream();
            for (byte[] v : e.getValue()) {
                Flow f = Flow.parseFrom(v);
                assertThat(f.getExporterPort()).isEqualTo(e.getKey());
                assertThat(IpAddress.ofBytes(f.getExporterAddress().toByteArray()))
                        .isEqualTo(exporter(e.getKey() - 40_000));
                t =
                        t.plus(
                                f.getPackets() + f.getReversePackets(),
                                f.getBytes() + f.getReverseBytes(),
                                Long.toUnsignedString(f.getRowId()));
                // One element of `repeated Flow flows = 1`: tag, length, message.
                batch.write(0x0a);
                writeVarint(batch, v.length);
                batch.write(v);
            }
            java.put(e.getKey(), t);
            independent.put(
                    e.getKey(),
                    protocTotals(
                            protoc,
                            tmp,
                            "flowhouse.test.FlowBatch",
                            batch.toByteArray(),
                            List.of("packets", "reverse_packets"),
                            List.of("bytes", "reverse_bytes"),
                            "row_id"));
        }
        assertGroundTruth(java, false);
        assertGroundTruth(independent, false);
        assertGroundTruth(python("fh", "flowhouse", tmp), false);
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void goflow2FormatIsReadWithGoflow2sSchemaLengthDelimited(@TempDir Path tmp) throws Exception {
        Path protoc =
                ServiceRequirement.requireExecutable("protoc", "apt-get install protobuf-compiler");
        Map<Integer, List<byte[]>> byPort = runPipeline("g2", "goflow2");

        Map<Integer, Totals> java = new TreeMap<>();
        Map<Integer, Totals> independent = new TreeMap<>();
        for (Map.Entry<Integer, List<byte[]>> e : byPort.entrySet()) {
            Totals t = new Totals();
            ByteArrayOutputStream batch = new ByteArrayOutputStream();
            for (byte[] v : e.getValue()) {
                // Exactly one length-delimited message per record, nothing after it.
                ByteArrayInputStream in = new ByteArrayInputStream(v);
                FlowMessage m = FlowMessage.parseDelimitedFrom(in);
                assertThat(in.available()).isZero();
                assertThat(IpAddress.ofBytes(m.getSamplerAddress().toByteArray()))
                        .isEqualTo(exporter(e.getKey() - 40_000));
                t = t.plus(m.getPackets(), m.getBytes(), m.getSequenceNum() + "/" + t.records());
                // The record's own varint length prefix makes it one `repeated ... = 1` element.
                batch.write(0x0a);
                batch.write(v);
            }
            java.put(e.getKey(), t);
            independent.put(
                    e.getKey(),
                    protocTotals(
                            protoc,
                            tmp,
                            "flowhouse.test.Goflow2Batch",
                            batch.toByteArray(),
                            List.of("packets"),
                            List.of("bytes"),
                            null));
        }
        // goflow2's FlowMessage has no reverse counters: the biflow capture carries its forward
        // direction only, as goflow2's own decode of it does (testdata/README).
        assertGroundTruth(java, true);
        assertGroundTruth(independent, true);
        assertGroundTruth(python("g2", "goflow2", tmp), true);
    }

    /**
     * A topic-only deployment ({@code clickhouse.enabled=false}, the rollups off): the production
     * sinks have no ClickHouse table at all (the URL points at a closed port, so any ClickHouse
     * writer would fail the job), and the topic still carries every capture's ground truth once.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void topicOnlyDeploymentWritesTheTopicWithoutAnyClickHouseSink() throws Exception {
        Map<Integer, List<byte[]>> byPort = runPipeline("to", "flowhouse", true);
        Map<Integer, Totals> java = new TreeMap<>();
        for (Map.Entry<Integer, List<byte[]>> e : byPort.entrySet()) {
            Totals t = new Totals();
            for (byte[] v : e.getValue()) {
                Flow f = Flow.parseFrom(v);
                t =
                        t.plus(
                                f.getPackets() + f.getReversePackets(),
                                f.getBytes() + f.getReverseBytes(),
                                Long.toUnsignedString(f.getRowId()));
            }
            java.put(e.getKey(), t);
        }
        assertGroundTruth(java, false);
    }

    /**
     * The topic as the Python reader (no Flowhouse code, read_committed) sums it, by exporter port;
     * its distinct-id count stands for the ids (goflow2 has none: each record counts as one).
     */
    private static Map<Integer, Totals> python(String suffix, String format, Path tmp)
            throws Exception {
        Map<Integer, Totals> byPort = new TreeMap<>();
        for (Map.Entry<String, PythonTopicReader.Totals> e :
                PythonTopicReader.read(
                                KAFKA.bootstrapServers(), "flows.decoded." + suffix, format, tmp)
                        .entrySet()) {
            int colon = e.getKey().lastIndexOf(':');
            int port = Integer.parseInt(e.getKey().substring(colon + 1));
            assertThat(IpAddress.parse(e.getKey().substring(0, colon)))
                    .isEqualTo(exporter(port - 40_000));
            PythonTopicReader.Totals p = e.getValue();
            Set<String> ids = new HashSet<>();
            long distinct = p.distinctIds() < 0 ? p.records() : p.distinctIds();
            for (long i = 0; i < distinct; i++) {
                ids.add("#" + i);
            }
            byPort.put(port, new Totals(p.records(), p.packets(), p.bytes(), ids));
        }
        return byPort;
    }

    private static IpAddress exporter(int i) {
        return IpAddress.parse("192.0.2." + (10 + i));
    }

    /** Runs every capture through the job (bounded) and reads the topic back, by exporter port. */
    private static Map<Integer, List<byte[]>> runPipeline(String suffix, String format)
            throws Exception {
        return runPipeline(suffix, format, false);
    }

    /**
     * Runs every capture through the job (bounded) and reads the topic back, by exporter port.
     *
     * @param topicOnly the production sinks with {@code clickhouse.enabled=false} and the rollups
     *     off; otherwise ClickHouse's outputs are dropped
     */
    private static Map<Integer, List<byte[]>> runPipeline(
            String suffix, String format, boolean topicOnly) throws Exception {
        String topic = "flows.decoded." + suffix;
        List<String> topicOnlyArgs =
                topicOnly
                        ? List.of(
                                "--clickhouse.enabled",
                                "false",
                                "--clickhouse.url",
                                "http://127.0.0.1:9",
                                "--rollup.enabled",
                                "false")
                        : List.of();
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(),
                        null,
                        suffix,
                        concat(
                                topicOnlyArgs,
                                "--kafka.stop",
                                "latest",
                                "--flows-topic.enabled",
                                "true",
                                "--flows-topic.topic",
                                topic,
                                "--flows-topic.partitions",
                                "3",
                                "--flows-topic.format",
                                format,
                                "--flows-topic.transactional-id-prefix",
                                "itcase-" + suffix));
        assertThat(s.flowsTopic()).isNotNull();
        List<RawDatagram> all = new ArrayList<>();
        for (int i = 0; i < CaptureProducer.CAPTURES.size(); i++) {
            all.addAll(
                    CaptureProducer.datagrams(
                            CaptureProducer.CAPTURES.get(i).file(), exporter(i), 40_000 + i));
        }
        KAFKA.createTopic(s.rawTopic(), 4);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), all);

        PipelineSinks sinks;
        if (topicOnly) {
            sinks = PipelineConnectors.sinks(s);
            assertThat(sinks.flows()).isNull();
            assertThat(sinks.stats()).isNull();
            assertThat(sinks.rollups()).isNull();
            assertThat(sinks.interfaceCounters()).isNull();
        } else {
            sinks = PipelineHarness.withoutClickHouse(s);
        }
        StreamExecutionEnvironment env = PipelineHarness.environment(s, sinks);
        if (topicOnly) {
            assertThat(env.getStreamGraph(false).getStreamNodes())
                    .extracting(n -> n.getOperatorName().toLowerCase(java.util.Locale.ROOT))
                    .noneMatch(name -> name.contains("clickhouse") || name.contains("rollup"));
        }
        env.execute("flows topic " + format);

        return readCommitted(topic);
    }

    /** Every committed record of the topic, values grouped by the exporter port of their key. */
    private static Map<Integer, List<byte[]>> readCommitted(String topic) {
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
            for (PartitionInfo i : c.partitionsFor(topic, Duration.ofSeconds(30))) {
                parts.add(new TopicPartition(i.topic(), i.partition()));
            }
            assertThat(parts).as("partitions of " + topic).hasSize(3);
            c.assign(parts);
            c.seekToBeginning(parts);
            // With read_committed, the end offsets are the last stable offsets.
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

    private static void assertGroundTruth(Map<Integer, Totals> byPort, boolean forwardOnly) {
        assertThat(byPort).hasSize(CaptureProducer.CAPTURES.size());
        for (int i = 0; i < CaptureProducer.CAPTURES.size(); i++) {
            CaptureProducer.Capture c = CaptureProducer.CAPTURES.get(i);
            Totals t = byPort.get(40_000 + i);
            assertThat(t).as(c.file()).isNotNull();
            long packets = c.packets();
            long bytes = c.bytes();
            if (forwardOnly && c.file().startsWith("ipfix-biflow")) {
                packets = 18_329L;
                bytes = 2_608_501L;
            }
            assertThat(t.records()).as(c.file() + " records").isEqualTo(c.records());
            assertThat(t.packets()).as(c.file() + " packets").isEqualTo(packets);
            assertThat(t.bytes()).as(c.file() + " bytes").isEqualTo(bytes);
            assertThat((long) t.ids().size())
                    .as(c.file() + " distinct ids (no duplicate)")
                    .isEqualTo(c.records());
        }
    }

    private static final Pattern NUMBER_FIELD = Pattern.compile("^  (\\w+): (\\d+)$");

    /**
     * Decodes a batch with {@code protoc --decode} and the published {@code .proto} files, and sums
     * its text output: one {@code flows {...}} block per flow.
     *
     * @param idField a field whose values must all differ, or null
     */
    private static Totals protocTotals(
            Path protoc,
            Path tmp,
            String type,
            byte[] batch,
            List<String> packetFields,
            List<String> byteFields,
            String idField)
            throws Exception {
        Path schema =
                Path.of(System.getProperty("flowhouse.root.dir", ".."))
                        .resolve("flow-schema/src/main/proto")
                        .toAbsolutePath();
        Path testProto = tmp.resolve("flowhouse/test/batch.proto");
        Files.createDirectories(testProto.getParent());
        Files.writeString(
                testProto,
                String.join(
                        "\n",
                        "syntax = \"proto3\";",
                        "package flowhouse.test;",
                        "import \"flowhouse/v1/flow.proto\";",
                        "import \"goflow2/flow.proto\";",
                        "message FlowBatch { repeated flowhouse.v1.Flow flows = 1; }",
                        "message Goflow2Batch { repeated flowpb.FlowMessage flows = 1; }",
                        ""));
        Path in = Files.createTempFile(tmp, "batch", ".bin");
        Files.write(in, batch);
        Path out = Files.createTempFile(tmp, "batch", ".txt");
        Process proc =
                new ProcessBuilder(
                                protoc.toString(),
                                "-I" + schema,
                                "-I" + tmp,
                                "--decode=" + type,
                                "flowhouse/test/batch.proto")
                        .redirectInput(in.toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
        assertThat(proc.waitFor(120, TimeUnit.SECONDS)).as("protoc finished").isTrue();
        assertThat(proc.exitValue()).as("protoc exit code").isZero();
        Totals t = new Totals();
        long p = 0;
        long b = 0;
        String id = null;
        int n = 0;
        for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
            if (line.equals("flows {")) {
                p = 0;
                b = 0;
                id = "#" + n++;
            } else if (line.equals("}")) {
                t = t.plus(p, b, id);
            } else {
                Matcher m = NUMBER_FIELD.matcher(line);
                if (m.matches()) {
                    long v = Long.parseUnsignedLong(m.group(2));
                    if (packetFields.contains(m.group(1))) {
                        p += v;
                    } else if (byteFields.contains(m.group(1))) {
                        b += v;
                    } else if (m.group(1).equals(idField)) {
                        id = m.group(2);
                    }
                }
            }
        }
        return t;
    }

    private static String[] concat(List<String> first, String... rest) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(rest));
        return all.toArray(String[]::new);
    }

    private static void writeVarint(ByteArrayOutputStream out, int v) {
        while ((v & ~0x7f) != 0) {
            out.write((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }
}
