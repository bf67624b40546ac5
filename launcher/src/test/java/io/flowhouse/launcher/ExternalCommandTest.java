// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExternalCommandTest {

    /** A command with the three-argument entry point. */
    public static final class Echo {
        private Echo() {}

        public static int run(String[] args, PrintStream out, PrintStream err) {
            out.print(String.join(",", args));
            return args.length;
        }
    }

    /** A command with the one-argument entry point. */
    public static final class Count {
        private Count() {}

        public static int run(String[] args) {
            return 40 + args.length;
        }
    }

    @Test
    void callsTheThreeArgumentEntryPoint() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ExternalCommand command = new ExternalCommand("echo", "", Echo.class.getName(), "launcher");

        int code =
                command.run(
                        List.of("a", "b"),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        System.err);

        assertThat(command.isAvailable()).isTrue();
        assertThat(code).isEqualTo(2);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("a,b");
    }

    @Test
    void callsTheOneArgumentEntryPoint() throws Exception {
        ExternalCommand command =
                new ExternalCommand("count", "", Count.class.getName(), "launcher");

        assertThat(command.run(List.of("x", "y"), System.out, System.err)).isEqualTo(42);
    }

    @Test
    void aMissingClassIsReportedAsNotBuiltWithExitCode2() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ExternalCommand command =
                new ExternalCommand("agent", "", "io.flowhouse.nowhere.Missing", "capture-agent");

        int code =
                command.run(
                        List.of(), System.out, new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(command.isAvailable()).isFalse();
        assertThat(code).isEqualTo(Command.EXIT_NOT_BUILT);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("not built yet")
                .contains("io.flowhouse.nowhere.Missing")
                .contains("-pl capture-agent");
    }
}
