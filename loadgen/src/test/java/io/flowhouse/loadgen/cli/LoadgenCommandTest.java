// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.config.cli.Cli;
import io.flowhouse.config.docs.ConfigDocs;
import io.flowhouse.loadgen.LoadgenKeys;
import io.flowhouse.loadgen.LoadgenMain;
import io.flowhouse.loadgen.LoadgenOptions;
import io.flowhouse.loadgen.emit.DatagramEmitter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadgenCommandTest {

    private record Run(int code, String out, String err) {}

    private static Run run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = Cli.execute(new LoadgenCommand(env, o, e), args, o, e);
        }
        return new Run(
                code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void flagsMapToKeys() {
        LoadgenOptions o =
                LoadgenOptions.parse(
                        new String[] {
                            "--to",
                            "127.0.0.1:4739",
                            "--rate",
                            "5",
                            "--dps",
                            "2000",
                            "--count",
                            "100",
                            "--sampling",
                            "64",
                            "--quiet",
                            "--sndbuf",
                            "1MiB"
                        },
                        42L);
        assertThat(o.unit()).isEqualTo(DatagramEmitter.Unit.DATAGRAMS);
        assertThat(o.rate()).isEqualTo(2000.0);
        assertThat(o.count()).isEqualTo(100);
        assertThat(o.duration()).isNull();
        assertThat(o.profile().samplingInterval()).isEqualTo(64);
        assertThat(o.quiet()).isTrue();
        assertThat(o.requireRate()).isFalse();
        assertThat(o.sendBufferBytes()).isEqualTo(1 << 20);
        assertThat(o.startMillis()).isEqualTo(42L);
        assertThat(o.bindAddress()).isEqualTo("127.0.0.1");
        LoadgenOptions d = LoadgenOptions.parse(new String[] {"--to", "[::1]:4739"}, 0);
        assertThat(d.duration()).isEqualTo(Duration.ofSeconds(10));
        assertThat(d.unit()).isEqualTo(DatagramEmitter.Unit.FLOWS);
        assertThat(d.rate()).isEqualTo(10_000.0);
        assertThat(d.bindAddress()).isEqualTo("::1");
        assertThat(d.exporters()).isEqualTo(4);
    }

    @Test
    void mistakesAreUsageErrors() {
        assertThatThrownBy(() -> LoadgenOptions.parse(new String[] {"--rate", "1"}, 0))
                .hasMessageContaining("--to HOST:PORT");
        assertThatThrownBy(
                        () ->
                                LoadgenOptions.parse(
                                        new String[] {
                                            "--to",
                                            "127.0.0.1:1",
                                            "--count",
                                            "5",
                                            "--duration",
                                            "1s"
                                        },
                                        0))
                .hasMessageContaining("not both");
        Run bad = run(Map.of(), "--to", "127.0.0.1:2055", "--gap-ratio", "2");
        assertThat(bad.code()).isEqualTo(LoadgenMain.EXIT_USAGE);
        assertThat(bad.err().lines())
                .containsExactly(
                        "flowhouse loadgen: --gap-ratio 2 (expected: 0..1), key gap-ratio");
        Run unknown = run(Map.of(), "--frobnicate");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("unknown option --frobnicate");
    }

    @Test
    void helpAndEnvironment() {
        Run help = run(Map.of(), "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out())
                .contains("usage: flowhouse loadgen")
                .contains("--to=HOST:PORT", "--dps=N", "--require-rate", "--set=KEY=VALUE")
                .contains("Exit code 3");
        Run env =
                run(
                        Map.of("FLOWHOUSE_LOADGEN_EXPORTERS", "9"),
                        "--to",
                        "127.0.0.1:2055",
                        "--print-config");
        assertThat(env.code()).as(env.err()).isZero();
        assertThat(env.out())
                .contains("exporters = 9  # env FLOWHOUSE_LOADGEN_EXPORTERS")
                .contains("target = 127.0.0.1:2055  # --to");
    }

    @Test
    void readmeKeyTableMatchesTheDeclarations() {
        // Regenerate: mvn test -pl loadgen -Dtest=LoadgenCommandTest -Dconfig.docs.update=true
        assertThat(ConfigDocs.checkReadme(Path.of("README.md"), LoadgenKeys.SCHEMA)).isNull();
    }
}
