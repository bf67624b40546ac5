// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.services.FlowhouseHome;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/** The launcher's command line, as picocli parses it: values, flags, pass-through, mistakes. */
class CommandLineParsingTest {

    @TempDir Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private LaunchContext context() {
        return new LaunchContext(
                new FlowhouseHome(dir, dir.resolve(".flowhouse")),
                Map.of(),
                new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private int run(String... args) {
        return FlowhouseMain.commandLine(context()).execute(args);
    }

    @Test
    void parsesValuesFlagsPositionalsAndPassThrough() {
        CommandLine cl = FlowhouseMain.commandLine(context());
        ParseResult parsed =
                cl.parseArgs(
                        "job",
                        "submit",
                        "--jar",
                        "a.jar",
                        "--parallelism=4",
                        "--no-wait",
                        "--",
                        "--x",
                        "1");

        ParseResult submitResult = parsed.subcommand().subcommand();
        JobCommand.Submit submit = (JobCommand.Submit) submitResult.commandSpec().userObject();
        assertThat(submitResult.commandSpec().name()).isEqualTo("submit");
        assertThat(submit.jar).isEqualTo(Path.of("a.jar"));
        assertThat(submit.parallelism).isEqualTo(4);
        assertThat(submit.noWait).isTrue();
        assertThat(submit.jobArgs).containsExactly("--x", "1");
        assertThat(submitResult.isUsageHelpRequested()).isFalse();
    }

    @Test
    void recognisesHelpOnEveryLevel() {
        assertThat(run("up", "-h")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Usage:").contains("--ipfix-to");
        out.reset();
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Commands:");
    }

    @Test
    void rejectsUnknownOptionsMissingValuesAndOutOfRangeNumbers() {
        assertThat(run("job", "list", "--nope")).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("flowhouse job list: ")
                .contains("--nope")
                .contains("see ./flowhouse job list --help");
        err.reset();

        assertThat(run("job", "submit", "--jar")).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--jar");
        err.reset();

        assertThat(run("demo", "--seconds", "0")).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("flowhouse demo: --seconds: 0 (expected: 5..3600)");
        err.reset();

        assertThat(run("up", "--netflow-port", "http")).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("--netflow-port")
                .contains("http");
    }
}
