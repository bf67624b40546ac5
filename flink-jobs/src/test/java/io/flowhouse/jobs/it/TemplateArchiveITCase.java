// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.Template;
import io.flowhouse.jobs.FlowPipelineJob;
import io.flowhouse.jobs.KafkaTopics;
import io.flowhouse.jobs.PipelineConnectors;
import io.flowhouse.jobs.PipelineSinks;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.serde.ArchivedTemplateCodec;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The template archive end to end, the production graph on a MiniCluster against a real broker,
 * with no restarts allowed (a failure fails the job, and the test):
 *
 * <ul>
 *   <li>an IPFIX template that was withdrawn stays withdrawn when the pipeline is started afresh
 *       from an offset before the withdrawal: the archive's end comes back with the template, so
 *       data before the withdrawal decodes and data after it is dead-lettered;
 *   <li>an options scope whose archive record is larger than Kafka takes does not fail the job:
 *       every flow is decoded and the failed sends are counted.
 * </ul>
 */
class TemplateArchiveITCase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(1).build();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
                            .build());

    private static final IpAddress EXPORTER = IpAddress.parse("192.0.2.77");
    private static final int PORT = 4739;
    private static final long T0 = 1_705_320_000_000L;
    private static final IpfixEncoder ENCODER = new IpfixEncoder();
    private static final Template FLOWS = IpfixEncoder.FLOW_TEMPLATE_IPV4;

    private static PipelineSettings settings(String suffix, String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers",
                                KAFKA.bootstrapServers(),
                                "--kafka.topic.raw",
                                "flows.raw." + suffix,
                                "--kafka.topic.templates",
                                "flows.templates." + suffix,
                                "--job.parallelism",
                                "1",
                                "--job.checkpoint-interval",
                                "1 s"));
        args.addAll(List.of(extra));
        return PipelineSettings.from(
                JobArgs.resolve(Map.of(), args.toArray(String[]::new)), Map.of());
    }

    /** The production graph; flows counted under {@code flows}; no restart on any failure. */
    private static StreamExecutionEnvironment environment(PipelineSettings s, String flows)
            throws Exception {
        Configuration c = new Configuration();
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
        FlowPipelineJob.configure(env, s);
        KafkaTopics.ensure(s);
        PipelineSinks sinks =
                PipelineConnectors.sinks(s)
                        .withFlows(new CountingSink<FlowRecord>(flows))
                        .withStats(null)
                        .withInterfaceCounters(null)
                        .withPacketFlows(new DiscardingSink<>())
                        .withRollups(r -> new DiscardingSink<>());
        FlowPipelineJob.build(env, PipelineConnectors.sources(s), sinks, s);
        return env;
    }

    private static RawDatagram datagram(long received, Consumer<IpfixEncoder.Message> body) {
        ByteBuffer b = ByteBuffer.allocate(IpfixEncoder.MAX_MESSAGE_SIZE);
        IpfixEncoder.Message m = ENCODER.begin(b, 1, received / 1000);
        body.accept(m);
        int n = m.finish();
        return RawDatagram.of(EXPORTER, PORT, received, "itcase", Arrays.copyOf(b.array(), n));
    }

    private static Consumer<IpfixEncoder.Message> flows(boolean withTemplate, int n) {
        return m -> {
            if (withTemplate) {
                m.template(FLOWS);
            }
            m.data(FLOWS.templateId());
            for (int i = 0; i < n; i++) {
                IpfixEncoder.writeFlow(
                        m,
                        FLOWS,
                        FlowRecord.builder()
                                .srcAddr(IpAddress.parse("198.51.100." + (1 + i)))
                                .dstAddr(IpAddress.parse("203.0.113.9"))
                                .srcPort(40_000 + i)
                                .dstPort(443)
                                .protocol(6)
                                .packets(3)
                                .bytes(300)
                                .flowStartMillis(T0 - 5_000)
                                .flowEndMillis(T0 - 1_000)
                                .build());
            }
        };
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts =
                    c.partitionsFor(topic).stream()
                            .map(i -> new TopicPartition(topic, i.partition()))
                            .toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts);
            List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))
                    && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            return out;
        }
    }

    private static long counter(JobExecutionResult r, String name) {
        long n = 0;
        String job = r.getJobID().toString();
        for (Map.Entry<MetricGroup, Map<String, Metric>> g :
                REPORTER.getMetricsByGroup().entrySet()) {
            if (!job.equals(g.getKey().getAllVariables().get("<job_id>"))) {
                continue;
            }
            for (Map.Entry<String, Metric> e : g.getValue().entrySet()) {
                if (e.getKey().equals(name) && e.getValue() instanceof Counter c) {
                    n += c.getCount();
                }
            }
        }
        return n;
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aWithdrawnTemplateStaysWithdrawnOnAReplayFromBeforeTheWithdrawal() throws Exception {
        String suffix = "ends";
        List<RawDatagram> datagrams =
                List.of(
                        datagram(T0, flows(true, 5)),
                        datagram(T0 + 1_000, flows(false, 5)),
                        datagram(T0 + 2_000, m -> m.withdraw(FLOWS.templateId(), false)),
                        datagram(T0 + 3_000, flows(false, 7)));
        PipelineSettings first =
                settings(
                        suffix,
                        "--kafka.group-id",
                        "itcase-ends-1",
                        "--kafka.topic.rejected",
                        "flows.rejected.ends-1",
                        "--kafka.start",
                        "earliest",
                        "--kafka.stop",
                        "latest",
                        "--decode.template-hold-time",
                        "0 s");
        KAFKA.createTopic(first.rawTopic(), 1);
        CaptureProducer.produce(KAFKA.bootstrapServers(), first.rawTopic(), datagrams);

        // Live: the template, its data, the withdrawal, then data nobody can decode.
        environment(first, "ends-live").execute("live");
        assertThat(CountingSink.count("ends-live")).isEqualTo(10);
        List<ArchivedTemplate> archive =
                readAll(first.templatesTopic()).stream()
                        .map(r -> ArchivedTemplateCodec.decode(r.value()))
                        .toList();
        assertThat(archive)
                .extracting(ArchivedTemplate::end)
                .containsExactly(ArchivedTemplate.End.LIVE, ArchivedTemplate.End.WITHDRAWN);
        assertThat(archive.get(1).endedMillis()).isEqualTo(T0 + 2_000);
        assertThat(archive.get(1).learnedMillis()).isEqualTo(T0);
        assertThat(new String(readAll(first.templatesTopic()).get(1).key(), StandardCharsets.UTF_8))
                .isEqualTo("192.0.2.77|4739|10|1|256");

        // Afresh (no state) from the second datagram: the template comes from the archive with
        // its end, so the datagram before the withdrawal decodes and the one after it does not.
        // The two inputs race: the replayed withdrawal may reach decode before the archive's
        // live record (then its mark ends the restored template), and the data may come before
        // either (then it is held: the hold is long enough for the archive to be read).
        PipelineSettings replay =
                settings(
                        suffix,
                        "--kafka.group-id",
                        "itcase-ends-2",
                        "--kafka.topic.rejected",
                        "flows.rejected.ends-2",
                        "--kafka.start",
                        "timestamp:" + (T0 + 500),
                        "--decode.template-hold-time",
                        "15 s");
        JobClient job = environment(replay, "ends-replay").executeAsync("replay");
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            List<ConsumerRecord<byte[], byte[]>> rejected = List.of();
            while (System.nanoTime() < deadline) {
                rejected = readAll(replay.rejectedTopic());
                if (!rejected.isEmpty() && CountingSink.count("ends-replay") >= 5) {
                    break;
                }
                Thread.sleep(200);
            }
            Thread.sleep(1_000); // anything that would still come out, would have
            assertThat(CountingSink.count("ends-replay")).isEqualTo(5);
            assertThat(rejected).hasSize(1);
            assertThat(
                            new String(
                                    rejected.get(0).headers().lastHeader("reason").value(),
                                    StandardCharsets.UTF_8))
                    .isEqualTo("TEMPLATE_MISSING");
            assertThat(job.getJobStatus().get(10, TimeUnit.SECONDS).isGloballyTerminalState())
                    .isFalse();
        } finally {
            job.cancel().get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void anOptionsScopeTooLargeForKafkaDoesNotFailTheJob() throws Exception {
        String suffix = "huge-options";
        Template names =
                new Template(
                        300, List.of(FieldSpecifier.of(10, 4), FieldSpecifier.of(82, 0xffff)), 1);
        char[] name = new char[1_500];
        Arrays.fill(name, 'n');
        List<RawDatagram> datagrams = new ArrayList<>();
        int ifIndex = 0;
        for (int d = 0; d < 30; d++) {
            int first = ifIndex;
            ifIndex += 40;
            datagrams.add(
                    datagram(
                            T0 + d,
                            m -> {
                                m.template(names).data(300);
                                for (int i = first; i < first + 40; i++) {
                                    m.u32(i).varString(new String(name)).endRecord();
                                }
                            }));
        }
        for (int d = 0; d < 10; d++) {
            datagrams.add(datagram(T0 + 100 + d, flows(true, 10)));
        }
        PipelineSettings s =
                settings(
                        suffix,
                        "--kafka.group-id",
                        "itcase-huge-options",
                        "--kafka.topic.rejected",
                        "flows.rejected.huge-options",
                        "--kafka.start",
                        "earliest",
                        "--kafka.stop",
                        "latest",
                        "--decode.options.max-string-bytes",
                        "2000",
                        "--decode.options.max-bytes-per-scope",
                        "4194304",
                        "--decode.state.max-bytes-per-exporter",
                        "16777216",
                        // Let the record through the job and the producer: the broker refuses it.
                        "--templates.archive-max-record-bytes",
                        "16777216",
                        "--kafka.properties.max.request.size",
                        "16777216");
        KAFKA.createTopic(s.rawTopic(), 1);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), datagrams);

        JobExecutionResult r = environment(s, "huge-options").execute("huge options");

        assertThat(CountingSink.count("huge-options")).isEqualTo(100);
        long failed = counter(r, "templates_archive_failed_total");
        long sent = counter(r, "templates_archive_sent_total");
        assertThat(failed).isPositive();
        assertThat(sent).isPositive();
        List<ArchivedTemplate> archive =
                readAll(s.templatesTopic()).stream()
                        .map(x -> ArchivedTemplateCodec.decode(x.value()))
                        .toList();
        // The templates went through; options data over the broker's limit did not.
        assertThat(archive).extracting(ArchivedTemplate::templateId).contains(300, 256);
        assertThat(archive.size()).isEqualTo(sent);
        assertThat(sent + failed).isEqualTo(2 + 30);
    }
}
