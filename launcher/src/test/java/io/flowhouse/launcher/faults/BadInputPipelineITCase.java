// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import io.flowhouse.testkit.kafka.TopicReader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The malformed corpus, interleaved with good v5 datagrams, through a running agent JVM, the
 * broker, the production {@code FlowPipelineJob} topology (local cluster) and clickhouse-server,
 * with an exporter flooding 100,000 IPFIX templates at the same time as another exporter's IPFIX
 * data. Afterwards: every good datagram's flows are in {@code FROM flows FINAL} exactly; every
 * malformed datagram is accounted for, either rejected by the agent's header check (its reject
 * metric and {@code flows.rejected}) or seen by the job (its per-exporter {@code exporter_stats}
 * datagram count) and dead-lettered on {@code flows.rejected} with a reason or counted as a decode
 * problem; the flood leaves the other exporter's template alone (its flows land); the job never
 * restarted ({@code numRestarts} over the local cluster's REST API) and the agent kept its pid.
 */
class BadInputPipelineITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static final int PER_KIND = 100;
    private static final int FLOOD = 100_000;
    private static final int PER_MESSAGE = 60;
    private static final int VICTIM_DATA = 200;
    private static final String DATABASE = "flowhouse_badjob";

    @TempDir Path dir;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void malformedInputAndATemplateFloodNeverRestartTheJobAndGoodFlowsLand() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        List<MalformedCorpus.Bad> corpus = MalformedCorpus.generate(0x5deece66dL, PER_KIND);
        Map<ByteBuffer, Integer> badSent = new HashMap<>();
        for (MalformedCorpus.Bad b : corpus) {
            badSent.merge(ByteBuffer.wrap(b.payload()), 1, Integer::sum);
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).build().start()) {
            kafka.createTopic("flows.raw", 2);
            kafka.createTopic("flows.rejected", 1);
            int restPort = FaultSupport.freeTcpPort();
            PipelineSettings s = settings(kafka.bootstrapServers(), ch);
            JobClient job = environment(s, ch, restPort).executeAsync("bad input through the job");
            String rest = "http://127.0.0.1:" + restPort;
            String jobId = job.getJobID().toHexString();
            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            Path yaml = agentYaml(kafka, udpPort, metricsPort);
            try (AgentProcess agent =
                            new AgentProcess(yaml, dir.resolve("agent.log"), metricsPort).start();
                    DatagramChannel goodCh = open();
                    DatagramChannel badCh = open();
                    DatagramChannel flooderCh = open();
                    DatagramChannel victimCh = open()) {
                long pid = agent.pid();
                Traffic t = new Traffic(goodCh, badCh, flooderCh, victimCh, udpPort, corpus);
                t.sendAll();
                int goodPort = port(goodCh);
                int badPort = port(badCh);
                int victimPort = port(victimCh);
                int flooderPort = port(flooderCh);
                int sentDatagrams = t.datagrams();
                long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                while (System.nanoTime() < deadline
                        && agent.metricSum("flowhouse_agent_kafka_datagrams_total")
                                < sentDatagrams) {
                    Thread.sleep(200);
                }
                assertThat(agent.metricSum("flowhouse_agent_kafka_datagrams_total"))
                        .as("every datagram reached Kafka (raw or rejected)")
                        .isEqualTo(sentDatagrams);
                long agentRejects = agent.metricSum("flowhouse_agent_rejected_datagrams_total");
                long passed = corpus.size() - agentRejects;
                String flows = DATABASE + ".flows";
                awaitScalar(ch, packetsOf(flows, goodPort), t.goodPackets);
                awaitScalar(ch, packetsOf(flows, victimPort), t.victimPackets);
                // The job's own count of what it saw from the bad exporter (its minute rows).
                String stats = DATABASE + ".exporter_stats";
                awaitScalar(ch, "SELECT sum(d) FROM (" + latestStats(stats, badPort) + ")", passed);

                List<String> goodRow = totals(ch, flows, goodPort);
                List<String> victimRow = totals(ch, flows, victimPort);
                long badFlows = Long.parseLong(totals(ch, flows, badPort).get(0));
                long floodFlows = Long.parseLong(totals(ch, flows, flooderPort).get(0));
                List<String> badStats =
                        ch.queryRows(
                                        "SELECT sum(d), sum(r), sum(p) FROM ("
                                                + latestStats(stats, badPort)
                                                + ")")
                                .get(0);

                DeadLetters dl =
                        DeadLetters.read(kafka, agentRejects, badSent, badPort, flooderPort);
                // What passed the agent and was not dead-lettered must be a decode problem: the
                // decoder the job runs reports one for it, and the job counted problems for it.
                Map<MalformedCorpus.Kind, Integer> problemOnly =
                        problemOnly(corpus, dl.badRejected(), badPort);
                long problemOnlyCount = problemOnly.values().stream().mapToLong(i -> i).sum();
                long agentDeadLetters = dl.agentReasons().values().stream().mapToLong(i -> i).sum();
                long restarts = numRestarts(rest, jobId);

                assertThat(Long.parseLong(goodRow.get(0))).as("good flows").isEqualTo(t.good);
                assertThat(Long.parseLong(goodRow.get(1)))
                        .as("good packets")
                        .isEqualTo(t.goodPackets);
                assertThat(Long.parseLong(goodRow.get(2))).as("good bytes").isEqualTo(t.goodBytes);
                assertThat(Long.parseLong(goodRow.get(3))).as("good row ids").isEqualTo(t.good);
                assertThat(Long.parseLong(victimRow.get(0)))
                        .as("victim flows")
                        .isEqualTo(t.victimSeq);
                assertThat(Long.parseLong(victimRow.get(1)))
                        .as("victim packets")
                        .isEqualTo(t.victimPackets);
                assertThat(Long.parseLong(victimRow.get(2)))
                        .as("victim bytes")
                        .isEqualTo(t.victimOctets);
                assertThat(agentDeadLetters).as("agent dead letters").isEqualTo(agentRejects);
                assertThat(Long.parseLong(badStats.get(0)))
                        .as("bad datagrams the job saw")
                        .isEqualTo(passed);
                assertThat(Long.parseLong(badStats.get(1)))
                        .as("the job's rejected records count its dead letters")
                        .isGreaterThanOrEqualTo(dl.job());
                assertThat(Long.parseLong(badStats.get(2)))
                        .as("decode problems the job counted for the bad exporter")
                        .isGreaterThanOrEqualTo(problemOnlyCount);
                assertThat(agentDeadLetters + dl.job() + problemOnlyCount)
                        .as("every malformed datagram accounted for once")
                        .isEqualTo(corpus.size());
                assertThat(dl.flood()).as("data past the template cap").isGreaterThan(0);
                assertThat(restarts).as("numRestarts").isZero();
                assertThat(job.getJobStatus().get(30, TimeUnit.SECONDS).name())
                        .isEqualTo("RUNNING");
                assertThat(agent.pid()).isEqualTo(pid);
                assertThat(agent.starts()).isOne();
                assertThat(agent.metricSum("flowhouse_agent_socket_drops_total")).isZero();
                System.out.printf(
                        Locale.ROOT,
                        "bad input through the job: %d malformed: %d rejected by the agent %s,"
                                + " %d seen by the job, %d of them dead-lettered %s, %d only counted as"
                                + " problems %s (job problem count %s), %d flows"
                                + " decoded from the bad exporter; %d good v5 (%d packets, %d bytes)"
                                + " stored exactly; flood %d templates in %d messages (%d flows,"
                                + " %d dead letters); victim %d flows stored; numRestarts %d%n",
                        corpus.size(),
                        agentRejects,
                        dl.agentReasons(),
                        passed,
                        dl.job(),
                        dl.jobReasons(),
                        problemOnlyCount,
                        problemOnly,
                        badStats.get(2),
                        badFlows,
                        t.good,
                        t.goodPackets,
                        t.goodBytes,
                        t.announced,
                        t.messages,
                        floodFlows,
                        dl.flood(),
                        t.victimSeq,
                        restarts);
                long stored = Long.parseLong(goodRow.get(0)) + Long.parseLong(victimRow.get(0));
                FaultSupport.row(
                        "bad input + template flood through the job",
                        t.good + t.victimSeq,
                        stored,
                        0,
                        t.good + t.victimSeq - stored,
                        0,
                        Duration.ZERO,
                        "ClickHouse FINAL + flows.rejected, 0 restarts");
            } finally {
                FaultSupport.cancelIfRunning(job);
            }
        }
    }

    /** The four exporters' datagrams, interleaved, with what they carried. */
    private static final class Traffic {
        private final DatagramChannel goodCh;
        private final DatagramChannel badCh;
        private final DatagramChannel flooderCh;
        private final DatagramChannel victimCh;
        private final InetSocketAddress target;
        private final List<MalformedCorpus.Bad> corpus;
        private final long now = System.currentTimeMillis() / 1000;
        int good;
        long goodPackets;
        long goodBytes;
        int announced;
        int messages;
        int victimSeq;
        long victimOctets;
        long victimPackets;

        Traffic(
                DatagramChannel goodCh,
                DatagramChannel badCh,
                DatagramChannel flooderCh,
                DatagramChannel victimCh,
                int udpPort,
                List<MalformedCorpus.Bad> corpus) {
            this.goodCh = goodCh;
            this.badCh = badCh;
            this.flooderCh = flooderCh;
            this.victimCh = victimCh;
            this.target = new InetSocketAddress("127.0.0.1", udpPort);
            this.corpus = corpus;
        }

        /** Everything sent: the victim's template, corpus, good, flood, victim data, overflow. */
        int datagrams() {
            return 1 + corpus.size() + good + messages + 1 + victimSeq;
        }

        void sendAll() throws IOException, InterruptedException {
            victimCh.send(ByteBuffer.wrap(templates(now, 1, 256, 1, 0)), target);
            for (int i = 0; i < corpus.size(); i++) {
                badCh.send(ByteBuffer.wrap(corpus.get(i).payload()), target);
                goodCh.send(ByteBuffer.wrap(FaultSupport.v5(good)), target);
                goodPackets += FaultSupport.packets(good);
                goodBytes += FaultSupport.bytes(good);
                good++;
                // Two flood messages per corpus datagram (the rest after the corpus), and the
                // victim's data among them.
                for (int k = 0; k < 2 && announced < FLOOD; k++) {
                    floodOne();
                }
                if (i % 5 == 4 && victimSeq < VICTIM_DATA) {
                    long octets = 1_000 + victimSeq;
                    long packets = 1 + victimSeq % 9;
                    victimCh.send(
                            ByteBuffer.wrap(data(now, 1, octets, packets, ++victimSeq)), target);
                    victimOctets += octets;
                    victimPackets += packets;
                }
                if (i % 10 == 9) {
                    Thread.sleep(5);
                }
            }
            while (announced < FLOOD) {
                floodOne();
                if (messages % 10 == 0) {
                    Thread.sleep(5);
                }
            }
            // Data for a flooded template of domain 1: past the per-exporter cap, never learned.
            flooderCh.send(ByteBuffer.wrap(data(now, 1, 10, 1, messages)), target);
        }

        private void floodOne() throws IOException {
            long domain = announced / 60_000;
            int firstId = 256 + announced % 60_000;
            int count = Math.min(PER_MESSAGE, Math.min(FLOOD - announced, 60_256 - firstId));
            flooderCh.send(
                    ByteBuffer.wrap(templates(now, domain, firstId, count, messages++)), target);
            announced += count;
        }
    }

    /** {@code flows.rejected}, split into the agent's header rejects and the job's dead letters. */
    private record DeadLetters(
            Map<String, Integer> agentReasons,
            Map<String, Integer> jobReasons,
            Map<ByteBuffer, Integer> badRejected,
            long job,
            long flood) {

        static DeadLetters read(
                EmbeddedKafka kafka,
                long agentRejects,
                Map<ByteBuffer, Integer> badSent,
                int badPort,
                int flooderPort) {
            List<ConsumerRecord<byte[], byte[]>> rejected =
                    TopicReader.readAll(
                            Map.of("bootstrap.servers", kafka.bootstrapServers()),
                            "flows.rejected",
                            Duration.ofSeconds(30),
                            got -> got.size() >= agentRejects + 1);
            Map<String, Integer> agentReasons = new TreeMap<>();
            Map<String, Integer> jobReasons = new TreeMap<>();
            Map<ByteBuffer, Integer> badRejected = new HashMap<>();
            long job = 0;
            long flood = 0;
            for (ConsumerRecord<byte[], byte[]> r : rejected) {
                RejectedDatagram d = RawDatagramCodec.decodeRejected(r.value());
                int from = d.datagram().exporterPort();
                ByteBuffer key = ByteBuffer.wrap(d.datagram().payload());
                if (from == flooderPort) {
                    flood++;
                    jobReasons.merge("flooder " + d.reason(), 1, Integer::sum);
                    continue;
                }
                assertThat(from).as("only the bad and flooding exporters").isEqualTo(badPort);
                assertThat(badSent).containsKey(key);
                assertThat(d.reason()).isNotBlank();
                badRejected.merge(key, 1, Integer::sum);
                if (AGENT_REASONS.contains(d.reason())) {
                    agentReasons.merge(d.reason(), 1, Integer::sum);
                } else {
                    job++;
                    jobReasons.merge(d.reason(), 1, Integer::sum);
                }
            }
            return new DeadLetters(agentReasons, jobReasons, badRejected, job, flood);
        }
    }

    private static final java.util.Set<String> AGENT_REASONS =
            java.util.Set.of(
                    "TOO_SHORT",
                    "LENGTH_MISMATCH",
                    "UNSUPPORTED_VERSION",
                    "BAD_COUNT",
                    "MALFORMED");

    private static boolean decodeProblem(NetflowDecoder decoder, byte[] payload, int port) {
        try {
            DecodeResult result =
                    decoder.decode(
                            ByteBuffer.wrap(payload),
                            new DecodeContext(
                                    new ExporterKey(IpAddress.parse("127.0.0.1"), port),
                                    System.currentTimeMillis()),
                            new InMemoryTemplateCache());
            return !result.problems().isEmpty();
        } catch (DecodeException e) {
            return true;
        }
    }

    /** The malformed datagrams that no one dead-lettered, by kind; each must decode badly. */
    private static Map<MalformedCorpus.Kind, Integer> problemOnly(
            List<MalformedCorpus.Bad> corpus, Map<ByteBuffer, Integer> badRejected, int badPort) {
        Map<MalformedCorpus.Kind, Integer> problemOnly =
                new java.util.EnumMap<>(MalformedCorpus.Kind.class);
        NetflowDecoder decoder = new NetflowDecoder();
        for (MalformedCorpus.Bad b : corpus) {
            if (!badRejected.containsKey(ByteBuffer.wrap(b.payload()))) {
                assertThat(decodeProblem(decoder, b.payload(), badPort))
                        .as("%s not dead-lettered decodes with a problem", b.kind())
                        .isTrue();
                problemOnly.merge(b.kind(), 1, Integer::sum);
            }
        }
        return problemOnly;
    }

    private static String packetsOf(String flows, int port) {
        return "SELECT sum(packets) FROM " + flows + " FINAL WHERE exporter_port = " + port;
    }

    private static DatagramChannel open() throws IOException {
        DatagramChannel c = DatagramChannel.open();
        c.bind(new InetSocketAddress("127.0.0.1", 0));
        return c;
    }

    private static int port(DatagramChannel c) throws IOException {
        return ((InetSocketAddress) c.getLocalAddress()).getPort();
    }

    /**
     * The newest value of every (domain, version, minute) of one exporter port, whether or not the
     * rows were merged yet (the same as {@code FINAL}: the sorting key has had {@code version}
     * since migration V005, so a v9, an IPFIX and a decode-failure, version 0, row stay apart).
     */
    private static String latestStats(String table, int port) {
        return "SELECT argMax(datagrams, updated_at) AS d, argMax(rejected_records, updated_at)"
                + " AS r, argMax(arraySum(problem_counts), updated_at) AS p FROM "
                + table
                + " WHERE exporter_port = "
                + port
                + " GROUP BY observation_domain, version, minute";
    }

    private static List<String> totals(LocalClickHouse ch, String table, int port) {
        return ch.queryRows(
                        "SELECT count(), sum(packets), sum(bytes), uniqExact(row_id) FROM "
                                + table
                                + " FINAL WHERE exporter_port = "
                                + port)
                .get(0);
    }

    /** An IPFIX message with {@code count} templates (ids from {@code firstId}) of 4 fields. */
    private static byte[] templates(long now, long domain, int firstId, int count, int sequence) {
        ByteBuffer b = ByteBuffer.allocate(16 + 4 + count * 20);
        b.putShort((short) 10).putShort((short) b.capacity()).putInt((int) now);
        b.putInt(sequence).putInt((int) domain);
        b.putShort((short) 2).putShort((short) (4 + count * 20));
        for (int i = 0; i < count; i++) {
            b.putShort((short) (firstId + i)).putShort((short) 4);
            b.putShort((short) 8).putShort((short) 4).putShort((short) 12).putShort((short) 4);
            b.putShort((short) 1).putShort((short) 8).putShort((short) 2).putShort((short) 8);
        }
        return b.array();
    }

    /** An IPFIX data set for template 256 with one record of {@code octets}/{@code packets}. */
    private static byte[] data(long now, long domain, long octets, long packets, int sequence) {
        ByteBuffer b = ByteBuffer.allocate(16 + 4 + 24);
        b.putShort((short) 10).putShort((short) b.capacity()).putInt((int) now);
        b.putInt(sequence).putInt((int) domain);
        b.putShort((short) 256).putShort((short) 28);
        b.putInt(0x0a000001).putInt(0x0a000002).putLong(octets).putLong(packets);
        return b.array();
    }

    private long numRestarts(String rest, String jobId) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r =
                        http.send(
                                HttpRequest.newBuilder(
                                                URI.create(
                                                        rest
                                                                + "/jobs/"
                                                                + jobId
                                                                + "/metrics?get=numRestarts"))
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                Matcher m = Pattern.compile("\"value\":\"([0-9]+)\"").matcher(r.body());
                if (m.find()) {
                    return Long.parseLong(m.group(1));
                }
            } catch (IOException e) {
                // Not up yet: ask again.
            }
            Thread.sleep(500);
        }
        throw new AssertionError("no numRestarts metric for job " + jobId + " at " + rest);
    }

    private Path agentYaml(EmbeddedKafka kafka, int udpPort, int metricsPort) throws IOException {
        Path yaml = dir.resolve("agent.yaml");
        Files.writeString(
                yaml,
                String.join(
                        "\n",
                        "agent:",
                        "  id: bad-input-job-it",
                        "udp:",
                        "  listen: ['127.0.0.1:" + udpPort + "']",
                        "  sockets-per-listener: 1",
                        "  receive-buffer-bytes: 8388608",
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

    private static PipelineSettings settings(String bootstrap, LocalClickHouse ch) {
        String[] args = {
            "--kafka.bootstrap-servers",
            bootstrap,
            "--kafka.topic.raw",
            "flows.raw",
            "--kafka.topic.rejected",
            "flows.rejected",
            "--kafka.topic.templates",
            "flows.templates",
            "--kafka.group-id",
            DATABASE,
            "--kafka.start",
            "earliest",
            "--job.parallelism",
            "1",
            "--job.checkpoint-interval",
            "1 s",
            "--decode.template-hold-time",
            "2 s",
            "--clickhouse.url",
            ch.httpUrl(),
            "--clickhouse.database",
            DATABASE,
            "--clickhouse.user",
            ch.user(),
            "--clickhouse.batch-size",
            "5000",
            "--clickhouse.flush-interval",
            "500 ms"
        };
        return PipelineSettings.from(JobArgs.resolve(Map.of(), args), Map.of());
    }

    /**
     * The production topology on a local cluster whose REST API listens on {@code restPort}, with
     * restarts allowed, so that a failure would show as a restart rather than a failed job.
     */
    private static StreamExecutionEnvironment environment(
            PipelineSettings s, LocalClickHouse ch, int restPort) throws Exception {
        Configuration c = new Configuration();
        c.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        c.set(RestOptions.ADDRESS, "127.0.0.1");
        c.set(RestOptions.BIND_PORT, Integer.toString(restPort));
        c.set(RestOptions.PORT, restPort);
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 10);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(1));
        return FaultSupport.productionJob(c, s, ch);
    }

    private static void awaitScalar(LocalClickHouse ch, String sql, long atLeast)
            throws InterruptedException {
        FaultSupport.awaitScalar(ch, sql, atLeast, Duration.ofSeconds(120));
    }
}
