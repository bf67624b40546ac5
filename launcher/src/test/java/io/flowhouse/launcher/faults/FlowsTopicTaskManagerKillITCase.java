// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.launcher.FlinkRestClient;
import io.flowhouse.services.ServiceKind;
import io.flowhouse.services.ServiceStatus;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.ServicesManager;
import io.flowhouse.testkit.ServiceRequirement;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kill -9 of the TaskManager JVM of the real standalone cluster ({@link ServicesManager}) while an
 * agent JVM streams into its broker and the production job jar writes every flow to the
 * decoded-flows topic, exactly once. A new TaskManager is started; the job aborts the dead writers'
 * transactions and replays from its last checkpoint. A {@code read_committed} consumer must see
 * every flow sent, each {@code row_id} once.
 */
class FlowsTopicTaskManagerKillITCase {

    private static final int RATE = 250;
    private static final int DATAGRAMS = RATE * 40;
    private static final int FLOWS_PER_DATAGRAM = 5;
    private static final String TOPIC = "flows.decoded";
    private static final Pattern NUMBER = Pattern.compile("\"(?:value|completed)\":\"?([0-9]+)");

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void taskManagerKilledMidTransactionLeavesEachFlowOnceOnTheTopic() throws Exception {
        Path root =
                Path.of(System.getProperty("flowhouse.root.dir", ".."))
                        .toAbsolutePath()
                        .normalize();
        ServiceRequirement.requireFile(
                root.resolve("dist/kafka/target/lib"),
                "the Kafka class path (mvn package -pl dist/kafka)");
        ServiceRequirement.requireFile(
                root.resolve("dist/flink/target/lib"),
                "the Flink class path (mvn package -pl dist/flink)");
        ServicesConfig defaults = ServicesConfig.defaults(root);
        ServiceRequirement.require(
                Files.isExecutable(defaults.clickhouseBinary()),
                "clickhouse-server (apt-get install -y clickhouse-server)");
        Path jar =
                ServiceRequirement.requireFile(
                        jobJar(root), "the job jar (mvn package -pl flink-jobs)");
        Path state =
                Path.of("target", "faults-topic-tm-kill-" + System.currentTimeMillis())
                        .toAbsolutePath();
        int[] ports = freePorts(6);
        ServicesConfig config =
                defaults.withStateDir(state)
                        .withPorts(ports[0], ports[1], ports[2], ports[3], ports[4], ports[5])
                        .withFlinkPrometheusPorts("none");
        ServicesManager manager = new ServicesManager(config);
        FlinkRestClient rest = new FlinkRestClient(config.flinkRestUrl());
        String flink = config.flinkRestUrl();
        String jobId = null;
        try {
            manager.startAll();
            jobId = submit(rest, jar, config);
            assertThat(rest.awaitState(jobId, Duration.ofSeconds(120), "RUNNING"))
                    .isEqualTo("RUNNING");

            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            Path yaml = state.resolve("agent.yaml");
            Files.writeString(
                    yaml,
                    String.join(
                            "\n",
                            "agent:",
                            "  id: topic-tm-kill-it",
                            "udp:",
                            "  listen: ['127.0.0.1:" + udpPort + "']",
                            "  sockets-per-listener: 1",
                            "kafka:",
                            "  bootstrap-servers: '" + config.kafkaBootstrap() + "'",
                            "spool:",
                            "  directory: '" + state.resolve("spool") + "'",
                            "metrics:",
                            "  host: 127.0.0.1",
                            "  port: " + metricsPort,
                            ""),
                    StandardCharsets.UTF_8);
            try (AgentProcess agent =
                            new AgentProcess(yaml, state.resolve("agent.log"), metricsPort)
                                    .start();
                    SteadySender sender = new SteadySender(udpPort, FLOWS_PER_DATAGRAM)) {
                Thread stream = new Thread(() -> sender.send(DATAGRAMS, RATE), "topic-tm-kill");
                stream.start();
                assertThat(
                                FlowsTopicReader.await(
                                                config.kafkaBootstrap(),
                                                TOPIC,
                                                1,
                                                Duration.ofSeconds(120))
                                        .distinct())
                        .as("flows committed before the kill")
                        .isPositive();
                // Mid-stream, between checkpoints: the open transactions hold uncommitted flows.
                long before = number(flink + "/jobs/" + jobId + "/checkpoints");
                awaitNumber(flink + "/jobs/" + jobId + "/checkpoints", before + 1);
                Thread.sleep(700);

                OptionalLong tmPid = manager.pid(ServiceKind.FLINK_TASKMANAGER);
                assertThat(tmPid).isPresent();
                int sentAtKill = sender.sent();
                long killed = System.nanoTime();
                assertThat(manager.kill(ServiceKind.FLINK_TASKMANAGER)).isTrue();
                assertThat(ProcessHandle.of(tmPid.getAsLong()).filter(ProcessHandle::isAlive))
                        .isEmpty();
                ServiceStatus replacement = manager.start(ServiceKind.FLINK_TASKMANAGER);
                assertThat(replacement.answers()).as(replacement.toString()).isTrue();

                stream.join(180_000);
                assertThat(stream.isAlive()).isFalse();
                FlowsTopicReader.Count c =
                        FlowsTopicReader.await(
                                config.kafkaBootstrap(),
                                TOPIC,
                                sender.flows(),
                                Duration.ofSeconds(240));
                Duration exact = Duration.ofNanos(System.nanoTime() - killed);
                // Later checkpoints commit nothing new: a replayed copy would show up here.
                Thread.sleep(5_000);
                c = FlowsTopicReader.read(config.kafkaBootstrap(), TOPIC);
                assertThat(get(flink + "/jobs/" + jobId + "/exceptions"))
                        .as("the job's exception history names the lost TaskManager")
                        .contains("TaskManager");
                assertThat(rest.jobState(jobId)).isEqualTo("RUNNING");
                assertThat(agent.metricSum("flowhouse_agent_dropped_datagrams_total")).isZero();
                assertThat(c.distinct())
                        .as("distinct row ids (lost if fewer)")
                        .isEqualTo(sender.flows());
                assertThat(c.duplicates()).as("records beyond one per row id").isZero();
                assertThat(c.packets()).as("packets").isEqualTo(sender.packets());
                assertThat(c.bytes()).as("bytes").isEqualTo(sender.bytes());
                // The REST metrics are fetched every few seconds: wait for the restart to show.
                awaitNumber(flink + "/jobs/" + jobId + "/metrics?get=numRestarts", 1);
                long restarts = number(flink + "/jobs/" + jobId + "/metrics?get=numRestarts");
                hourAfterDrainedStop(config, jobId, state);
                System.out.printf(
                        java.util.Locale.ROOT,
                        "flows topic, TM kill: sent %d datagrams (%d before the kill), %d flows;"
                                + " topic (read_committed) %d records, %d row ids; restarts %d;"
                                + " exact %.1f s after the kill%n",
                        sender.sent(),
                        sentAtKill,
                        sender.flows(),
                        c.records(),
                        c.distinct(),
                        restarts,
                        exact.toMillis() / 1000.0);
                FaultSupport.row(
                        "flows topic: TaskManager kill -9 + new TM",
                        sender.sent(),
                        c.distinct() / FLOWS_PER_DATAGRAM,
                        0,
                        (sender.flows() - c.distinct()) / FLOWS_PER_DATAGRAM,
                        c.duplicates(),
                        exact,
                        "flows.decoded read_committed, by row_id; flows_1h after a drained stop");
            }
        } finally {
            if (jobId != null) {
                try {
                    if (!FlinkRestClient.isTerminal(rest.jobState(jobId))) {
                        rest.cancel(jobId);
                    }
                } catch (IOException e) {
                    // The cluster is stopped below anyway.
                }
            }
            manager.stopAll();
        }
    }

    /** The job writes ClickHouse too: its hour closes with a drained stop. */
    private static void hourAfterDrainedStop(ServicesConfig config, String jobId, Path state)
            throws IOException, InterruptedException {
        new ClusterProbe(config)
                .drainedStopThenHourExact(
                        jobId, "flowhouse_topic_tmkill", state.resolve("savepoints"));
    }

    private static String submit(FlinkRestClient rest, Path jar, ServicesConfig config)
            throws IOException, InterruptedException {
        String jarId = rest.uploadJar(jar);
        List<String> args =
                List.of(
                        "--kafka.bootstrap-servers",
                        config.kafkaBootstrap(),
                        "--kafka.group-id",
                        "flowhouse_topic_tmkill",
                        "--kafka.start",
                        "earliest",
                        "--job.parallelism",
                        "1",
                        "--job.checkpoint-interval",
                        "2 s",
                        "--clickhouse.url",
                        config.clickhouseUrl(),
                        "--clickhouse.password-file",
                        config.clickhousePasswordFile().toString(),
                        "--clickhouse.database",
                        "flowhouse_topic_tmkill",
                        "--flows-topic.enabled",
                        "true",
                        "--flows-topic.topic",
                        TOPIC,
                        "--flows-topic.partitions",
                        "2",
                        "--flows-topic.transactional-id-prefix",
                        "topic-tm-kill-it",
                        "--restart-strategy.type",
                        "fixed-delay",
                        "--restart-strategy.fixed-delay.attempts",
                        "30",
                        "--restart-strategy.fixed-delay.delay",
                        "2 s");
        return rest.runJar(
                jarId,
                new FlinkRestClient.RunRequest(
                        Optional.of("io.flowhouse.jobs.FlowPipelineJob"),
                        args,
                        Optional.empty(),
                        Optional.empty(),
                        false));
    }

    /** The newest {@code flink-jobs/target/flink-jobs-*-job.jar}. */
    private static Path jobJar(Path root) throws IOException {
        Path target = root.resolve("flink-jobs/target");
        List<Path> jars = new ArrayList<>();
        if (Files.isDirectory(target)) {
            try (DirectoryStream<Path> s =
                    Files.newDirectoryStream(target, "flink-jobs-*-job.jar")) {
                s.forEach(jars::add);
            }
        }
        jars.sort((a, b) -> Long.compare(b.toFile().lastModified(), a.toFile().lastModified()));
        return jars.isEmpty() ? target.resolve("flink-jobs-0.1.0-SNAPSHOT-job.jar") : jars.get(0);
    }

    private String get(String url) {
        try {
            HttpResponse<String> r =
                    http.send(
                            HttpRequest.newBuilder(URI.create(url))
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** The first number of a REST answer (a metric's value, completed checkpoints); -1 if none. */
    private long number(String url) {
        Matcher m = NUMBER.matcher(get(url));
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private void awaitNumber(String url, long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline && number(url) < atLeast) {
            Thread.sleep(250);
        }
        assertThat(number(url)).isGreaterThanOrEqualTo(atLeast);
    }

    private static int[] freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
    }
}
