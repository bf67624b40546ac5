// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The other modules' commands: their flags reach the module's own parser unchanged, and what is not
 * built yet (the job jar, outside the launcher's class path) is reported as such.
 */
class ModuleCommandsTest {

    @TempDir Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return InProcessCli.run(dir, List.of(args), out, err);
    }

    @Test
    void decodeGetsItsArgumentsInOrder() {
        int code = run("decode", "--limit", "1", "--format", "nope", dir.toString());

        assertThat(code).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("unknown format 'nope' (expected: jsonl or table)");
    }

    @Test
    void loadgenAndAgentAnswerHelpWithTheirOwnUsage() {
        assertThat(run("loadgen", "--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).containsIgnoringCase("usage");
        out.reset();
        assertThat(run("agent", "--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).containsIgnoringCase("usage");
    }

    @Test
    void snmpProbeWithoutCredentialsIsAUsageErrorNamingTheKey() {
        assertThat(run("snmp-probe", "192.0.2.1")).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .startsWith("flowhouse snmp-probe: ")
                .contains("no credentials: set enrich.snmp.credentials-file");
        err.reset();
        assertThat(run("snmp-probe", "router.example")).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("EXPORTER router.example (expected: a numeric IPv4 or IPv6 address)");
    }

    @Test
    void aBadLoadgenFlagIsAUsageError() {
        assertThat(run("loadgen", "--rate", "fast")).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("flowhouse loadgen: ");
    }

    @Test
    void upWithoutTheJobJarIsReportedAsNotBuilt() {
        int code = run("up");

        assertThat(code).isEqualTo(ExitCode.NOT_BUILT);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("not built yet")
                .contains("module flink-jobs");
    }
}
