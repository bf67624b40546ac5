// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.CaptureAgentMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentCommandTest {

    private record Run(int code, String out, String err) {}

    private static Run run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = io.flowhouse.config.cli.Cli.execute(new AgentCommand(env, o, e), args, o, e);
        }
        return new Run(
                code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void helpListsTheFlagsAndExitCodes() {
        Run r = run(Map.of(), "--help");
        assertThat(r.code()).isZero();
        assertThat(r.out())
                .contains("usage: flowhouse agent")
                .contains("--listen=HOST:PORT", "--allow=CIDR", "--pcap=FILE", "--with-udp")
                .contains("--set=KEY=VALUE", "--config=FILE", "--print-config")
                .contains("Exit codes: 0 ok, 1 failure, 2 usage or configuration error.");
    }

    @Test
    void badFlagsExitTwoWithOneLine() {
        Run unknown = run(Map.of(), "--nope");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err().lines())
                .containsExactly(
                        "flowhouse agent: unknown option --nope (see ./flowhouse agent --help)");
        Run bad = run(Map.of(), "--listen", "nowhere");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err().lines()).hasSize(1);
        assertThat(bad.err()).contains("udp.listen", "--listen", "(expected: HOST:PORT");
        Run secretless = run(Map.of(), "--set", "udp.nope=1");
        assertThat(secretless.code()).isEqualTo(2);
        assertThat(secretless.err()).contains("unknown key udp.nope");
    }

    @Test
    void unknownFileKeyIsNamed(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("agent.yaml");
        Files.writeString(yaml, "kafka:\n  bootstrap-server: x:1\n");
        Run r = run(Map.of(), "--config", yaml.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("unknown key kafka.bootstrap-server in " + yaml);
    }

    @Test
    void layersApplyFileThenEnvironmentThenFlags(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("agent.yaml");
        Files.writeString(
                yaml,
                "kafka:\n  bootstrap-servers: file:9092\n  linger-ms: 50\nudp.datagrams-per-read: 4\n");
        Run r =
                run(
                        Map.of(
                                "FLOWHOUSE_AGENT_KAFKA_LINGER_MS", "20ms",
                                "FLOWHOUSE_AGENT_UDP_DATAGRAMS_PER_READ", "8"),
                        "--config",
                        yaml.toString(),
                        "--set",
                        "udp.datagrams-per-read=2",
                        "--metrics-port",
                        "0",
                        "--print-config");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("kafka.bootstrap-servers = file:9092  # " + yaml)
                .contains("kafka.linger-ms = 20ms  # env FLOWHOUSE_AGENT_KAFKA_LINGER_MS")
                .contains("udp.datagrams-per-read = 2  # --set")
                .contains("metrics.port = 0  # --metrics-port")
                .contains("metrics.enabled = true  # --metrics-port")
                .contains("udp.receive-buffer-bytes = 32MiB  # default");
    }

    @Test
    void mainRunReturnsUsageForNothingToDo() {
        assertThat(CaptureAgentMain.run(new String[] {"--no-udp"}, nullStream(), nullStream()))
                .isEqualTo(2);
    }

    private static PrintStream nullStream() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }
}
