// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowhouse.launcher.FlowhouseMain;
import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.ServiceKind;
import io.flowhouse.services.ServiceStatus;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.ServicesManager;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ./flowhouse services up --taskmanagers 2} (two TaskManager processes of 2 slots each,
 * shown by {@code services status}) runs the job at parallelism 4, so that both TaskManagers hold
 * its tasks. While {@link MixedExporters} stream through an agent JVM, the second TaskManager is
 * killed with SIGKILL and a replacement started: the job restarts from its last checkpoint on the
 * surviving TaskManager plus the replacement, and every table holds exactly what was sent.
 */
class TwoTaskManagersKillITCase {

    private static final int RATE = 200;
    private static final String DATABASE = "flowhouse_two_tms";
    private static final Pattern SUBMITTED = Pattern.compile("as job ([0-9a-f]{32})");
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @Timeout(value = 12, unit = TimeUnit.MINUTES)
    void secondTaskManagerKilledJobRecoversOnTheOtherPlusAReplacement() throws Exception {
        Path root = ClusterProbe.root();
        Path jar = ClusterProbe.requireCluster(root);
        Path state =
                Path.of("target", "faults-two-tms-" + System.currentTimeMillis()).toAbsolutePath();
        int[] ports = ClusterProbe.freePorts(6);
        Map<String, String> env = new HashMap<>();
        env.put("FLOWHOUSE_STATE_DIR", state.toString());
        env.put("FLOWHOUSE_KAFKA_PORT", Integer.toString(ports[0]));
        env.put("FLOWHOUSE_KAFKA_CONTROLLER_PORT", Integer.toString(ports[1]));
        env.put("FLOWHOUSE_CLICKHOUSE_HTTP_PORT", Integer.toString(ports[2]));
        env.put("FLOWHOUSE_CLICKHOUSE_NATIVE_PORT", Integer.toString(ports[3]));
        env.put("FLOWHOUSE_FLINK_REST_PORT", Integer.toString(ports[4]));
        env.put("FLOWHOUSE_FLINK_RPC_PORT", Integer.toString(ports[5]));
        env.put("FLOWHOUSE_FLINK_PROMETHEUS_PORTS", "none");
        FlowhouseMain launcher =
                new FlowhouseMain(
                        new FlowhouseHome(root, state), env, new ByteArrayInputStream(new byte[0]));
        ServicesConfig config =
                ServicesConfig.resolve(root, state, env, Map.of(), false).withTaskManagers(2, 2);
        ServicesManager manager = new ServicesManager(config);
        ClusterProbe probe = new ClusterProbe(config);
        String rest = config.flinkRestUrl();
        String jobId = null;
        AtomicBoolean sending = new AtomicBoolean(true);
        try {
            String up =
                    run(launcher, "services", "up", "--taskmanagers", "2", "--flink-slots", "2");
            assertThat(up).contains("flink-taskmanager-2", "2 TaskManager(s) x 2 slot(s)");
            String status = run(launcher, "services", "status");
            assertThat(status).contains("flink-taskmanager-2", "2 TaskManager(s) x 2 slot(s)");
            assertThat(manager.instances(ServiceKind.FLINK_TASKMANAGER)).isEqualTo(2);
            OptionalLong first = manager.pid(ServiceKind.FLINK_TASKMANAGER, 0);
            OptionalLong second = manager.pid(ServiceKind.FLINK_TASKMANAGER, 1);
            assertThat(first).isPresent();
            assertThat(second).isPresent();
            assertThat(first.getAsLong()).isNotEqualTo(second.getAsLong());

            List<String> submit = new ArrayList<>();
            submit.addAll(
                    List.of(
                            "job",
                            "submit",
                            "--jar",
                            jar.toString(),
                            "--parallelism",
                            "4",
                            "--timeout",
                            "180",
                            "--"));
            submit.addAll(jobArgs(config));
            Matcher m = SUBMITTED.matcher(run(launcher, submit.toArray(String[]::new)));
            assertThat(m.find()).isTrue();
            jobId = m.group(1);
            probe.awaitAllRunning(jobId, 0, Duration.ofSeconds(180));
            Map<String, Integer> before = busySlots(rest);
            assertThat(before).as("busy slots per TaskManager").hasSize(2);
            assertThat(before.values()).containsOnly(2);

            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            Path yaml =
                    ClusterProbe.agentYaml(
                            state, "two-tms-it", config.kafkaBootstrap(), udpPort, metricsPort);
            try (AgentProcess agent =
                            new AgentProcess(yaml, state.resolve("agent.log"), metricsPort)
                                    .start();
                    MixedExporters sender = new MixedExporters(udpPort)) {
                Thread stream = ClusterProbe.stream(sender, sending, RATE);
                String table = DATABASE + ".flows";
                probe.awaitScalar("SELECT count() FROM " + table, 1, Duration.ofSeconds(120));
                probe.awaitCompletedCheckpoints(jobId, 2, Duration.ofSeconds(120));

                int sentAtKill = sender.sent();
                long killed = System.nanoTime();
                assertThat(manager.kill(ServiceKind.FLINK_TASKMANAGER, 1)).isTrue();
                assertThat(ProcessHandle.of(second.getAsLong()).filter(ProcessHandle::isAlive))
                        .isEmpty();
                ServiceStatus replacement = manager.start(ServiceKind.FLINK_TASKMANAGER, 1);
                assertThat(replacement.answers()).as(replacement.toString()).isTrue();
                assertThat(replacement.name()).isEqualTo("flink-taskmanager-2");
                assertThat(replacement.pid().getAsLong()).isNotEqualTo(second.getAsLong());
                probe.awaitAllRunning(jobId, 1, Duration.ofSeconds(180));
                Duration recovery = Duration.ofNanos(System.nanoTime() - killed);
                // The job's four tasks need every slot: two on the survivor, two on the new one.
                assertThat(manager.pid(ServiceKind.FLINK_TASKMANAGER, 0)).isEqualTo(first);
                // (The JobManager lists the killed one, idle, until its heartbeat times out.)
                Map<String, Integer> busy = busySlots(rest);
                busy.values().removeIf(n -> n == 0);
                assertThat(busy).as("busy slots per TaskManager after the kill").hasSize(2);
                assertThat(busy.values()).containsOnly(2);
                List<String> survivors = new ArrayList<>(before.keySet());
                survivors.retainAll(busy.keySet());
                assertThat(survivors).as("TaskManagers from before the kill still busy").hasSize(1);

                Thread.sleep(10_000); // stream on under the recovered job
                long lastMinute = ClusterProbe.endStream(stream, sending, sender, RATE);

                assertThat(agent.metricSum("flowhouse_agent_dropped_datagrams_total"))
                        .as("agent drops")
                        .isZero();
                ClusterProbe.Totals totals = probe.assertTablesExact(DATABASE, sender, lastMinute);
                long[] sent = totals.sent();
                long plain = totals.plainRows();
                long statsDatagrams = totals.statsDatagrams();
                Duration exact = Duration.ofNanos(System.nanoTime() - killed);
                long restarts = probe.numRestarts(jobId);
                assertThat(restarts).as("numRestarts").isGreaterThanOrEqualTo(1);
                probe.drainedStopThenHourExact(jobId, DATABASE, state.resolve("savepoints"));

                System.out.printf(
                        Locale.ROOT,
                        "TWO TMS: sent %d datagrams (%d before the kill), %d flows %d packets %d"
                                + " bytes; restarts %d; all tasks running %.1f s after the kill,"
                                + " every table exact %.1f s after; %d rows before merges%n",
                        sender.sent(),
                        sentAtKill,
                        sent[0],
                        sent[1],
                        sent[2],
                        restarts,
                        recovery.toMillis() / 1000.0,
                        exact.toMillis() / 1000.0,
                        plain);
                FaultSupport.row(
                        "e2e: 2 TaskManagers, one kill -9 + replacement",
                        sender.sent(),
                        statsDatagrams,
                        0,
                        sender.sent() - statsDatagrams,
                        plain - sent[0],
                        recovery,
                        "flows FINAL + pre-merge, flows_1m, exporter_stats, flows_1h after a drained"
                                + " stop; p=4 on 2x2 slots");
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

    /** Slots in use per registered TaskManager id. */
    private static Map<String, Integer> busySlots(String rest) throws Exception {
        HttpResponse<String> r =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(URI.create(rest + "/taskmanagers"))
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
        Map<String, Integer> busy = new HashMap<>();
        for (JsonNode tm : JSON.readTree(r.body()).path("taskmanagers")) {
            busy.put(
                    tm.path("id").asText(),
                    tm.path("slotsNumber").asInt() - tm.path("freeSlots").asInt());
        }
        return busy;
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
