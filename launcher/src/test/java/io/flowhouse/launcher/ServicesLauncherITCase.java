// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.Http;
import io.flowhouse.services.ServiceKind;
import io.flowhouse.services.ServiceStatus;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.ServicesManager;
import io.flowhouse.services.clickhouse.ClickHousePassword;
import io.flowhouse.testkit.ServiceRequirement;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./flowhouse services up|status|down} and {@code ./flowhouse job} against the real
 * services: a Kafka broker JVM, clickhouse-server and a Flink standalone cluster, on free ports in
 * a temporary state directory so a developer's own services are left alone.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServicesLauncherITCase {

    private static final Pattern JOB_ID = Pattern.compile("as job ([0-9a-f]{32})");

    @TempDir static Path stateDir;

    private static Path root;
    private static Map<String, String> env;
    private static ServicesManager manager;
    private static final List<Long> PIDS = new ArrayList<>();

    @BeforeAll
    static void locate() throws IOException {
        root = Path.of(System.getProperty("flowhouse.root.dir", "..")).toAbsolutePath().normalize();
        ServiceRequirement.requireFile(
                root.resolve("dist/kafka/target/lib"),
                "the Kafka class path (mvn package -pl dist/kafka)");
        ServiceRequirement.requireFile(
                root.resolve("dist/flink/target/lib"),
                "the Flink class path (mvn package -pl dist/flink)");
        ServiceRequirement.require(
                Files.isExecutable(ServicesConfig.defaults(root).clickhouseBinary()),
                "clickhouse-server (apt-get install -y clickhouse-server)");
        int[] ports = freePorts(6);
        env = new HashMap<>();
        env.put("FLOWHOUSE_KAFKA_PORT", Integer.toString(ports[0]));
        env.put("FLOWHOUSE_KAFKA_CONTROLLER_PORT", Integer.toString(ports[1]));
        env.put("FLOWHOUSE_CLICKHOUSE_HTTP_PORT", Integer.toString(ports[2]));
        env.put("FLOWHOUSE_CLICKHOUSE_NATIVE_PORT", Integer.toString(ports[3]));
        env.put("FLOWHOUSE_FLINK_REST_PORT", Integer.toString(ports[4]));
        env.put("FLOWHOUSE_FLINK_RPC_PORT", Integer.toString(ports[5]));
        env.put("FLOWHOUSE_FLINK_PROMETHEUS_PORTS", "none");
    }

    @AfterAll
    static void stopEverything() {
        if (manager != null) {
            manager.stopAll();
        }
    }

    @Test
    @Order(1)
    void upStartsEveryServiceAndStatusShowsThemAnswering() {
        Result up = flowhouse("services", "up");

        assertThat(up.code()).as(up.toString()).isZero();
        assertThat(up.out()).contains("answers after");

        manager = new ServicesManager(config());
        for (ServiceStatus status : manager.status()) {
            assertThat(status.running()).as(status.toString()).isTrue();
            assertThat(status.answers()).as(status.toString()).isTrue();
            PIDS.add(status.pid().getAsLong());
        }
        Result status = flowhouse("services", "status");
        assertThat(status.code()).as(status.toString()).isZero();
        assertThat(status.out())
                .contains("kafka", "clickhouse", "flink-jobmanager", "flink-taskmanager")
                .contains("127.0.0.1:" + env.get("FLOWHOUSE_KAFKA_PORT"))
                .contains("version 18.")
                .contains("1 TaskManager(s)");
    }

    @Test
    @Order(2)
    void upAgainIsANoOp() {
        Result up = flowhouse("services", "up");

        assertThat(up.code()).as(up.toString()).isZero();
        assertThat(manager.status())
                .extracting(s -> s.pid().getAsLong())
                .containsExactlyElementsOf(PIDS);
    }

    @Test
    @Order(3)
    void queryRunsSqlOnTheLocalClickHouse() {
        Result query =
                flowhouse(
                        "query",
                        "--format",
                        "TSV",
                        "SELECT sum(number) FROM (SELECT number FROM system.numbers LIMIT 1000)");

        assertThat(query.code()).as(query.toString()).isZero();
        assertThat(query.out().trim()).isEqualTo("499500");
    }

    @Test
    @Order(3)
    void clickHouseWantsTheGeneratedPasswordWhichIsNeverLogged() throws Exception {
        ServicesConfig config = config();
        Path file = config.clickhousePasswordFile();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        String password = ClickHousePassword.read(file);
        String url = config.clickhouseUrl() + "/?query=SELECT%201";
        Duration t = Duration.ofSeconds(10);
        assertThat(Http.get(url, t).ok()).as("without a password").isFalse();
        assertThat(Http.get(url, t, ClickHousePassword.basicAuth("default", "wrong")).ok())
                .as("with a wrong one")
                .isFalse();
        Http.Response ok = Http.get(url, t, ClickHousePassword.headersFor(file));
        assertThat(ok.ok()).as(ok.toString()).isTrue();
        assertThat(Files.readString(config.stateDir().resolve("clickhouse/users.xml")))
                .doesNotContain(password)
                .contains(ClickHousePassword.sha256Hex(password));
        try (Stream<Path> logs = Files.walk(config.logDir())) {
            for (Path log : logs.filter(Files::isRegularFile).toList()) {
                assertThat(Files.readString(log, StandardCharsets.ISO_8859_1))
                        .as(log.toString())
                        .doesNotContain(password);
            }
        }
    }

    @Test
    @Order(4)
    void submitsABoundedJobThatRunsToTheEnd() throws Exception {
        Path jar = TestJobJar.build(stateDir);

        Result submit = flowhouse("job", "submit", "--jar", jar.toString(), "--", "5000");

        assertThat(submit.code()).as(submit.toString()).isZero();
        String jobId = jobId(submit);
        FlinkRestClient rest = new FlinkRestClient(config().flinkRestUrl());
        assertThat(rest.awaitState(jobId, Duration.ofSeconds(120), "FINISHED"))
                .isEqualTo("FINISHED");
        Result list = flowhouse("job", "list");
        assertThat(list.out())
                .contains(jobId)
                .contains("FINISHED")
                .contains("flowhouse-it-sequence-5000");
    }

    @Test
    @Order(5)
    void cancelsAnUnboundedJobWithASavepoint() throws Exception {
        Path jar = TestJobJar.build(stateDir);
        Result submit = flowhouse("job", "submit", "--jar", jar.toString(), "--", "0");
        assertThat(submit.code()).as(submit.toString()).isZero();
        assertThat(submit.out()).contains("is RUNNING");
        String jobId = jobId(submit);
        FlinkRestClient rest = new FlinkRestClient(config().flinkRestUrl());
        awaitAllTasksRunning(rest, jobId);

        Path savepoints = stateDir.resolve("savepoints");
        Result cancel = flowhouse("job", "cancel", jobId, "--savepoint", savepoints.toString());

        assertThat(cancel.code()).as(cancel.toString()).isZero();
        assertThat(cancel.out()).contains("with savepoint");
        assertThat(rest.awaitState(jobId, Duration.ofSeconds(60), "FINISHED"))
                .isEqualTo("FINISHED");
        try (var listing = Files.list(savepoints)) {
            assertThat(listing.map(p -> p.getFileName().toString()))
                    .anyMatch(name -> name.startsWith("savepoint-"));
        }
    }

    @Test
    @Order(6)
    void aKilledTaskManagerIsReplacedByAFreshOne() {
        OptionalLong before = manager.pid(ServiceKind.FLINK_TASKMANAGER);
        assertThat(manager.kill(ServiceKind.FLINK_TASKMANAGER)).isTrue();
        assertThat(ProcessHandle.of(before.getAsLong()).filter(ProcessHandle::isAlive)).isEmpty();

        ServiceStatus restarted = manager.start(ServiceKind.FLINK_TASKMANAGER);

        assertThat(restarted.answers()).as(restarted.toString()).isTrue();
        assertThat(restarted.pid().getAsLong()).isNotEqualTo(before.getAsLong());
        PIDS.add(restarted.pid().getAsLong());
    }

    @Test
    @Order(7)
    void downStopsEverythingAndLeavesNoProcessBehind() {
        Result down = flowhouse("services", "down");

        assertThat(down.code()).as(down.toString()).isZero();
        assertThat(down.out())
                .contains("stopped kafka", "stopped clickhouse", "stopped flink-taskmanager");
        for (long pid : PIDS) {
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
                    .as("pid %d", pid)
                    .isEmpty();
        }
        try (var pidFiles = Files.list(stateDir.resolve("pids"))) {
            assertThat(pidFiles).isEmpty();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        Result status = flowhouse("services", "status");
        assertThat(status.code()).isEqualTo(3);
        assertThat(status.out()).doesNotContain("answers ");
    }

    private static void awaitAllTasksRunning(FlinkRestClient rest, String jobId) throws Exception {
        // A savepoint needs every task running, not only the job.
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Result status = flowhouse("job", "status", jobId);
            if (status.out().contains("RUNNING")) {
                Thread.sleep(2_000);
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("job " + jobId + " did not run: " + rest.jobState(jobId));
    }

    private static String jobId(Result submit) {
        Matcher matcher = JOB_ID.matcher(submit.out());
        assertThat(matcher.find()).as(submit.toString()).isTrue();
        return matcher.group(1);
    }

    private static ServicesConfig config() {
        return ServicesConfig.resolve(root, stateDir, env, java.util.Map.of(), true);
    }

    private record Result(int code, String out, String err) {}

    private static Result flowhouse(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        FlowhouseMain main =
                new FlowhouseMain(
                        new FlowhouseHome(root, stateDir),
                        env,
                        new ByteArrayInputStream(new byte[0]));
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = main.run(List.of(args), o, e);
        }
        return new Result(
                code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
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
