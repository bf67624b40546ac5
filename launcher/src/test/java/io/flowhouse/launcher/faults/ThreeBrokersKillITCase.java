// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.launcher.FlowhouseMain;
import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.ServiceKind;
import io.flowhouse.services.ServiceStatus;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.ServicesManager;
import io.flowhouse.testkit.kafka.RawRecords;
import io.flowhouse.testkit.kafka.TopicReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ./flowhouse services up --kafka-brokers 3}: a KRaft quorum of three broker+controller
 * JVMs, every topic with three replicas and {@code min.insync.replicas} 2. While {@link
 * MixedExporters} stream through an agent JVM (acks=all, idempotent) into the job and ClickHouse,
 * one broker is killed with SIGKILL and started again: the agent never spools, {@code flows.raw}
 * holds every datagram once, and every table holds exactly what was sent.
 */
class ThreeBrokersKillITCase {

    private static final int RATE = 200;
    private static final int BROKERS = 3;
    private static final String DATABASE = "flowhouse_three_brokers";
    private static final Pattern SUBMITTED = Pattern.compile("as job ([0-9a-f]{32})");

    @Test
    @Timeout(value = 12, unit = TimeUnit.MINUTES)
    void oneOfThreeBrokersKilledAndRestartedLosesAndDuplicatesNothing() throws Exception {
        Path root = ClusterProbe.root();
        Path jar = ClusterProbe.requireCluster(root);
        Path state =
                Path.of("target", "faults-three-brokers-" + System.currentTimeMillis())
                        .toAbsolutePath();
        // Node i listens on kafka-port + 2i and kafka-controller-port + 2i.
        int kafkaBase = ClusterProbe.freePortBlock(2 * BROKERS);
        int[] ports;
        do {
            ports = ClusterProbe.freePorts(4);
        } while (java.util.Arrays.stream(ports)
                .anyMatch(p -> p >= kafkaBase && p < kafkaBase + 2 * BROKERS));
        Map<String, String> env = environment(state, kafkaBase, ports);
        FlowhouseMain launcher =
                new FlowhouseMain(
                        new FlowhouseHome(root, state), env, new ByteArrayInputStream(new byte[0]));
        ServicesConfig config =
                ServicesConfig.resolve(root, state, env, Map.of(), false).withKafkaBrokers(BROKERS);
        ServicesManager manager = new ServicesManager(config);
        ClusterProbe probe = new ClusterProbe(config);
        String jobId = null;
        AtomicBoolean sending = new AtomicBoolean(true);
        try {
            String up = run(launcher, "services", "up", "--kafka-brokers", "3");
            assertThat(up).contains("kafka-2", "kafka-3", "3 Kafka broker(s)");
            assertThat(run(launcher, "services", "status"))
                    .contains("KRaft node 3 of 3", "3 Kafka broker(s)");
            assertThat(config.kafkaBootstrap().split(",")).hasSize(BROKERS);

            List<String> submit = new ArrayList<>();
            submit.addAll(
                    List.of(
                            "job",
                            "submit",
                            "--jar",
                            jar.toString(),
                            "--parallelism",
                            "2",
                            "--timeout",
                            "180",
                            "--"));
            submit.addAll(jobArgs(config));
            Matcher m = SUBMITTED.matcher(run(launcher, submit.toArray(String[]::new)));
            assertThat(m.find()).isTrue();
            jobId = m.group(1);
            probe.awaitAllRunning(jobId, 0, Duration.ofSeconds(180));
            assertReplicated(config.kafkaBootstrap(), "flows.raw");

            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            Path yaml =
                    ClusterProbe.agentYaml(
                            state,
                            "three-brokers-it",
                            config.kafkaBootstrap(),
                            udpPort,
                            metricsPort);
            try (AgentProcess agent =
                            new AgentProcess(yaml, state.resolve("agent.log"), metricsPort)
                                    .start();
                    MixedExporters sender = new MixedExporters(udpPort)) {
                Thread stream = ClusterProbe.stream(sender, sending, RATE);
                String table = DATABASE + ".flows";
                probe.awaitScalar("SELECT count() FROM " + table, 1, Duration.ofSeconds(120));
                probe.awaitCompletedCheckpoints(jobId, 2, Duration.ofSeconds(120));

                OptionalLong victim = manager.pid(ServiceKind.KAFKA, 1);
                assertThat(victim).isPresent();
                int sentAtKill = sender.sent();
                long killed = System.nanoTime();
                assertThat(manager.kill(ServiceKind.KAFKA, 1)).isTrue();
                assertThat(ProcessHandle.of(victim.getAsLong()).filter(ProcessHandle::isAlive))
                        .isEmpty();
                Thread.sleep(20_000); // two of three brokers carry the stream
                int sentWhileDown = sender.sent() - sentAtKill;
                ServiceStatus back = manager.start(ServiceKind.KAFKA, 1);
                assertThat(back.answers()).as(back.toString()).isTrue();
                assertThat(back.name()).isEqualTo("kafka-2");
                Duration down = Duration.ofNanos(System.nanoTime() - killed);
                awaitInSync(config.kafkaBootstrap(), "flows.raw", Duration.ofSeconds(120));
                Duration inSync = Duration.ofNanos(System.nanoTime() - killed);

                Thread.sleep(10_000); // stream on with the broker back
                long lastMinute = ClusterProbe.endStream(stream, sending, sender, RATE);

                assertThat(agent.metric("flowhouse_agent_spooled_records_total"))
                        .as("records the agent spooled")
                        .isZero();
                assertThat(agent.metricSum("flowhouse_agent_dropped_datagrams_total"))
                        .as("agent drops")
                        .isZero();
                // flows.raw: every datagram sent, each once.
                int[] inKafka = distinctAndTwice(config.kafkaBootstrap(), sender.sent());
                int distinct = inKafka[0];
                int duplicates = inKafka[1];
                assertThat(duplicates).as("datagrams twice in flows.raw").isZero();
                assertThat(distinct).as("datagrams in flows.raw").isEqualTo(sender.sent());
                System.out.println(
                        "THREE BROKERS rollup metrics: " + probe.metrics(jobId, "rollup_late"));
                ClusterProbe.Totals totals = probe.assertTablesExact(DATABASE, sender, lastMinute);
                long[] sent = totals.sent();
                long plain = totals.plainRows();
                long statsDatagrams = totals.statsDatagrams();
                long restarts = probe.numRestarts(jobId);
                probe.drainedStopThenHourExact(jobId, DATABASE, state.resolve("savepoints"));

                System.out.printf(
                        Locale.ROOT,
                        "THREE BROKERS: sent %d datagrams (%d while a broker was down), %d in"
                                + " flows.raw, 0 twice; %d flows %d packets %d bytes; broker back"
                                + " %.1f s after the kill, in sync %.1f s; job restarts %d;"
                                + " %d rows before merges%n",
                        sender.sent(),
                        sentWhileDown,
                        distinct,
                        sent[0],
                        sent[1],
                        sent[2],
                        down.toMillis() / 1000.0,
                        inSync.toMillis() / 1000.0,
                        restarts,
                        plain);
                FaultSupport.row(
                        "e2e: 3 Kafka brokers, one kill -9 + restart",
                        sender.sent(),
                        distinct,
                        0,
                        sender.sent() - distinct,
                        duplicates,
                        inSync,
                        "flows.raw each datagram, flows FINAL, flows_1m, exporter_stats, flows_1h"
                                + " after a drained stop;"
                                + " agent spooled 0; job restarts "
                                + restarts);
            }
        } finally {
            sending.set(false);
            if (jobId != null) {
                launcher.run(
                        List.of("job", "cancel", jobId),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            }
            run(launcher, "services", "down");
            manager.stopAll();
        }
    }

    /** The services' places: Kafka's nodes from {@code kafkaBase}, the others on {@code ports}. */
    private static Map<String, String> environment(Path state, int kafkaBase, int[] ports) {
        Map<String, String> env = new HashMap<>();
        env.put("FLOWHOUSE_STATE_DIR", state.toString());
        env.put("FLOWHOUSE_KAFKA_PORT", Integer.toString(kafkaBase));
        env.put("FLOWHOUSE_KAFKA_CONTROLLER_PORT", Integer.toString(kafkaBase + 1));
        env.put("FLOWHOUSE_CLICKHOUSE_HTTP_PORT", Integer.toString(ports[0]));
        env.put("FLOWHOUSE_CLICKHOUSE_NATIVE_PORT", Integer.toString(ports[1]));
        env.put("FLOWHOUSE_FLINK_REST_PORT", Integer.toString(ports[2]));
        env.put("FLOWHOUSE_FLINK_RPC_PORT", Integer.toString(ports[3]));
        env.put("FLOWHOUSE_FLINK_PROMETHEUS_PORTS", "none");
        return env;
    }

    /** The distinct datagrams of {@code flows.raw} (by their stamps) and those seen twice. */
    private static int[] distinctAndTwice(String bootstrap, int atLeast) {
        List<ConsumerRecord<byte[], byte[]>> records =
                TopicReader.readAll(
                        bootstrap,
                        "flows.raw",
                        Duration.ofSeconds(60),
                        RawRecords.atLeast(atLeast));
        Set<String> stamps = new HashSet<>();
        int duplicates = 0;
        for (RawDatagram d : RawRecords.datagrams(records)) {
            DatagramStamp st = d.stamp();
            String id = d.agentId() + "/" + st.epoch() + "/" + st.stream() + "/" + st.sequence();
            duplicates += stamps.add(id) ? 0 : 1;
        }
        return new int[] {stamps.size(), duplicates};
    }

    /** Every partition of the topic has three replicas; the topic needs two in sync. */
    private static void assertReplicated(String bootstrap, String topic) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline
                    && !admin.listTopics().names().get(10, TimeUnit.SECONDS).contains(topic)) {
                Thread.sleep(500);
            }
            TopicDescription d =
                    admin.describeTopics(List.of(topic))
                            .allTopicNames()
                            .get(10, TimeUnit.SECONDS)
                            .get(topic);
            assertThat(d.partitions()).isNotEmpty();
            for (TopicPartitionInfo p : d.partitions()) {
                assertThat(p.replicas()).as(topic + " partition " + p.partition()).hasSize(3);
            }
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config c =
                    admin.describeConfigs(List.of(resource))
                            .all()
                            .get(10, TimeUnit.SECONDS)
                            .get(resource);
            assertThat(c.get("min.insync.replicas").value()).isEqualTo("2");
        }
    }

    /** Waits until every partition of the topic has all its replicas in sync again. */
    private static void awaitInSync(String bootstrap, String topic, Duration timeout)
            throws Exception {
        try (Admin admin = admin(bootstrap)) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                TopicDescription d =
                        admin.describeTopics(List.of(topic))
                                .allTopicNames()
                                .get(10, TimeUnit.SECONDS)
                                .get(topic);
                if (d.partitions().stream().allMatch(p -> p.isr().size() == p.replicas().size())) {
                    return;
                }
                Thread.sleep(500);
            }
            throw new AssertionError(topic + " replicas not in sync within " + timeout);
        }
    }

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        return Admin.create(p);
    }

    private static String run(FlowhouseMain launcher, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code =
                launcher.run(
                        List.of(args),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(out, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        System.out.print("flowhouse " + String.join(" ", args) + "\n" + text);
        assertThat(code).as(text).isZero();
        return text;
    }

    /** The job's flags; its parallelism is left to {@code submit --parallelism}. */
    private static List<String> jobArgs(ServicesConfig config) {
        return List.of(
                "--kafka.bootstrap-servers",
                config.kafkaBootstrap(),
                "--kafka.group-id",
                DATABASE,
                "--kafka.start",
                "earliest",
                "--job.checkpoint-interval",
                "2 s",
                // A partition whose leader died is silent until the new leader serves it (the
                // agent's producer retries meanwhile): with this idleness the watermark passes it,
                // and its delayed datagrams reach the rollups late, within the allowed lateness.
                "--decode.idleness",
                "5 s",
                "--flowhouse.rollup.max-out-of-orderness",
                "0 s",
                "--clickhouse.url",
                config.clickhouseUrl(),
                "--clickhouse.password-file",
                config.clickhousePasswordFile().toString(),
                "--clickhouse.database",
                DATABASE,
                "--clickhouse.batch-size",
                "5000",
                "--clickhouse.flush-interval",
                "500 ms",
                "--restart-strategy.type",
                "fixed-delay",
                "--restart-strategy.fixed-delay.attempts",
                "30",
                "--restart-strategy.fixed-delay.delay",
                "2 s");
    }
}
