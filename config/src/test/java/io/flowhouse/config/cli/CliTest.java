// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.HostPort;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;

class CliTest {

    static final Key<List<HostPort>> LISTEN =
            Key.of("listen", Types.list(Types.HOST_PORT))
                    .defaultValue(List.of(new HostPort("", 1)))
                    .doc("Addresses. More words.")
                    .flag("--listen", "HOST:PORT");
    static final Key<Boolean> QUIET =
            Key.of("quiet", Types.BOOLEAN).defaultValue(false).doc("Quiet.").flag("--quiet", null);
    static final Key<String> TOKEN = Key.of("token", Types.STRING).doc("Token.").secret();
    static final ConfigSchema SCHEMA =
            ConfigSchema.of("flowhouse.demo", "demo", List.of(LISTEN, QUIET, TOKEN));

    @Command(name = "demo", description = "A demo command.")
    static final class Demo implements Callable<Integer>, ConfiguredCommand {
        final ConfigFlags flags = new ConfigFlags(SCHEMA);
        final Map<String, String> env;
        final PrintStream out;
        Config config;

        Demo(Map<String, String> env, PrintStream out) {
            this.env = env;
            this.out = out;
        }

        @Override
        public ConfigFlags configFlags() {
            return flags;
        }

        @Override
        public Integer call() {
            config = flags.resolver(env).resolve();
            if (flags.printIfRequested(config, out)) {
                return Cli.OK;
            }
            if (config.get(QUIET)) {
                throw new IllegalStateException("boom");
            }
            return Cli.OK;
        }
    }

    private record Run(int code, String out, String err, Demo demo) {}

    private static Run run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Demo demo;
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            demo = new Demo(env, o);
            code = Cli.execute(demo, args, o, e);
        }
        return new Run(
                code,
                out.toString(StandardCharsets.UTF_8),
                err.toString(StandardCharsets.UTF_8),
                demo);
    }

    @Test
    void repeatedListFlagsAppendAndLaterFlagsWin() {
        Run r =
                run(
                        Map.of(),
                        "--listen",
                        ":1",
                        "--set",
                        "listen=:5",
                        "--listen",
                        ":2",
                        "--listen=:3");
        assertThat(r.code()).as(r.err()).isZero();
        // The named flag's values are one entry at its first position; --set came after it.
        assertThat(r.demo().config.get(LISTEN)).containsExactly(new HostPort("", 5));
        Run s = run(Map.of(), "--listen", ":1", "--listen", ":2");
        assertThat(s.demo().config.get(LISTEN))
                .containsExactly(new HostPort("", 1), new HostPort("", 2));
    }

    @Test
    void exitCodesAndOneLineMessages() {
        assertThat(run(Map.of(), "--help").code()).isZero();
        assertThat(run(Map.of(), "--help").out())
                .startsWith("usage: flowhouse demo [OPTIONS]")
                .contains("--listen=HOST:PORT   Addresses. Repeatable. Default: :1. Key listen.")
                .contains("--quiet")
                .doesNotContain("--token");
        Run usage = run(Map.of(), "stray");
        assertThat(usage.code()).isEqualTo(Cli.USAGE);
        assertThat(usage.err())
                .isEqualTo(
                        "flowhouse demo: unexpected argument stray (see ./flowhouse demo --help)"
                                + System.lineSeparator());
        Run secret = run(Map.of(), "--set", "token=abc");
        assertThat(secret.code()).isEqualTo(Cli.USAGE);
        assertThat(secret.err()).contains("token is a secret").doesNotContain("abc");
        Run noEquals = run(Map.of(), "--set", "quiet");
        assertThat(noEquals.code()).isEqualTo(Cli.USAGE);
        assertThat(noEquals.err()).contains("--set quiet (expected: KEY=VALUE)");
        Run failure = run(Map.of(), "--quiet");
        assertThat(failure.code()).isEqualTo(Cli.FAILURE);
        assertThat(failure.err()).contains("flowhouse demo: java.lang.IllegalStateException: boom");
    }

    @Test
    void printConfigMasksSecrets() {
        Run r = run(Map.of("FLOWHOUSE_DEMO_TOKEN", "hunter2"), "--print-config");
        assertThat(r.code()).isZero();
        assertThat(r.out())
                .contains("token = ******  # env FLOWHOUSE_DEMO_TOKEN")
                .doesNotContain("hunter2");
    }

    @Test
    void parseWithoutRunning() {
        Demo demo = new Demo(Map.of(), System.out);
        Cli.parse(demo, "--listen", "[::1]:9");
        assertThat(demo.flags.given("--listen")).isTrue();
        assertThatThrownBy(() -> Cli.parse(new Demo(Map.of(), System.out), "--help"))
                .isInstanceOf(Cli.HelpRequestedException.class)
                .hasMessageContaining("usage: flowhouse demo");
        assertThatThrownBy(() -> Cli.parse(new Demo(Map.of(), System.out), "--nope"))
                .hasMessage("unknown option --nope");
    }

    @Command(name = "job", description = "A command with --KEY VALUE flags.")
    static final class KeyFlagsDemo implements Callable<Integer>, ConfiguredCommand {
        final ConfigFlags flags = new ConfigFlags(SCHEMA).keyFlags().passThroughForeignKeys();
        Config config;

        @Override
        public ConfigFlags configFlags() {
            return flags;
        }

        @Override
        public Integer call() {
            config = flags.resolver(Map.of()).resolve();
            return Cli.OK;
        }
    }

    @Test
    void keyValueFlagsForAnyKeyAndForeignKeysPassedOn() {
        KeyFlagsDemo demo = new KeyFlagsDemo();
        int code =
                Cli.execute(
                        demo,
                        new String[] {
                            "--listen",
                            ":1",
                            "--flowhouse.demo.quiet",
                            "true",
                            "--execution.checkpointing.dir=file:///tmp/cp",
                            "--set",
                            "listen=:7",
                            "--state.backend.type",
                            "rocksdb"
                        },
                        System.out,
                        System.err);
        assertThat(code).isZero();
        assertThat(demo.config.get(QUIET)).isTrue();
        assertThat(demo.config.get(LISTEN)).containsExactly(new HostPort("", 7));
        assertThat(demo.config.foreign())
                .containsEntry("execution.checkpointing.dir", "file:///tmp/cp")
                .containsEntry("state.backend.type", "rocksdb");
        KeyFlagsDemo bare = new KeyFlagsDemo();
        Cli.parse(bare, "--flowhouse.demo.quiet");
        assertThatThrownBy(() -> bare.flags.resolver(Map.of()))
                .hasMessage("--flowhouse.demo.quiet has no value (expected: --KEY VALUE)");
        KeyFlagsDemo stray = new KeyFlagsDemo();
        Cli.parse(stray, "stray");
        assertThatThrownBy(() -> stray.flags.resolver(Map.of()))
                .hasMessage("unexpected argument stray (expected: --KEY VALUE)");
        KeyFlagsDemo typo = new KeyFlagsDemo();
        Cli.parse(typo, "--flowhouse.demo.listn", ":1");
        assertThatThrownBy(() -> typo.flags.resolver(Map.of()).resolve())
                .hasMessageContaining("unknown key flowhouse.demo.listn");
    }
}
