// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.services.FlowhouseHome;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlowhouseMainTest {

    private static final List<String> COMMANDS =
            List.of(
                    "services",
                    "up",
                    "down",
                    "query",
                    "demo",
                    "agent",
                    "decode",
                    "loadgen",
                    "console",
                    "snmp-probe",
                    "job",
                    "bench",
                    "test");

    @TempDir Path state;

    @Test
    void helpListsEveryCommand() {
        Run run = run("--help");

        assertThat(run.code).isZero();
        for (String command : COMMANDS) {
            assertThat(run.out).containsPattern("(?m)^  " + command + " +\\S");
        }
    }

    /** Commands implemented in other modules; until those are built they say so (exit 2). */
    private static final List<String> EXTERNAL = List.of("agent", "decode", "loadgen", "bench");

    @Test
    void everyCommandAnswersHelp() {
        for (String command : COMMANDS) {
            Run run = run(command, "--help");

            if (EXTERNAL.contains(command)) {
                // Their --help is theirs: exit 0, or usage (maybe on their own System.out/err),
                // or the launcher's "not built yet".
                if (run.code != 0) {
                    assertThat(run.out + run.err)
                            .as(command)
                            .containsPattern("(?i)usage|not built yet");
                }
                continue;
            }
            assertThat(run.code).as(command + ": " + run.err).isZero();
            assertThat(run.out).as(command).containsIgnoringCase("Usage");
        }
    }

    @Test
    void unknownCommandIsAUsageError() {
        Run run = run("frobnicate");

        assertThat(run.code).isEqualTo(ExitCode.USAGE);
        assertThat(run.err).contains("unknown command 'frobnicate'");
    }

    @Test
    void badOptionIsAUsageErrorNamingTheCommand() {
        Run run = run("services", "status", "--kafka-port", "99999");

        assertThat(run.code).isEqualTo(ExitCode.USAGE);
        // The configuration model's one-line form: the flag as written, the rule, the key.
        assertThat(run.err)
                .contains(
                        "flowhouse services: --kafka-port 99999 (expected: 1..65535), key"
                                + " kafka-port");
    }

    @Test
    void statusWithNothingRunningSaysStoppedAndExits3() {
        Run run =
                run(
                        "services",
                        "status",
                        "--kafka-port",
                        "1",
                        "--clickhouse-http-port",
                        "2",
                        "--flink-rest-port",
                        "3");

        assertThat(run.code).isEqualTo(3);
        assertThat(run.out).contains("kafka").contains("stopped").doesNotContain("answers ");
    }

    private Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        FlowhouseMain main =
                new FlowhouseMain(
                        new FlowhouseHome(state, state.resolve(".flowhouse")),
                        Map.of(),
                        new ByteArrayInputStream(new byte[0]));
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = main.run(List.of(args), o, e);
        }
        return new Run(
                code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private record Run(int code, String out, String err) {}
}
