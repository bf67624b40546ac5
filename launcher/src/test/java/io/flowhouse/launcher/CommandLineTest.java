// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CommandLineTest {

    private static final Set<String> FLAGS = Set.of("no-wait");
    private static final Set<String> VALUES = Set.of("jar", "parallelism");

    @Test
    void parsesValuesFlagsPositionalsAndPassThrough() {
        CommandLine cl =
                CommandLine.parse(
                        List.of(
                                "submit",
                                "--jar",
                                "a.jar",
                                "--parallelism=4",
                                "--no-wait",
                                "--",
                                "--x",
                                "1"),
                        FLAGS,
                        VALUES);

        assertThat(cl.positional()).containsExactly("submit");
        assertThat(cl.value("jar")).contains("a.jar");
        assertThat(cl.intValue("parallelism", 1, 1, 10)).isEqualTo(4);
        assertThat(cl.flag("no-wait")).isTrue();
        assertThat(cl.passThrough()).containsExactly("--x", "1");
        assertThat(cl.helpRequested()).isFalse();
    }

    @Test
    void recognisesHelpAnywhere() {
        assertThat(CommandLine.parse(List.of("up", "-h"), FLAGS, VALUES).helpRequested()).isTrue();
        assertThat(CommandLine.parse(List.of("--help"), FLAGS, VALUES).helpRequested()).isTrue();
    }

    @Test
    void rejectsUnknownOptionsMissingValuesAndOutOfRangeNumbers() {
        assertThatThrownBy(() -> CommandLine.parse(List.of("--nope"), FLAGS, VALUES))
                .isInstanceOf(CommandLine.UsageException.class)
                .hasMessageContaining("--nope");
        assertThatThrownBy(() -> CommandLine.parse(List.of("--jar"), FLAGS, VALUES))
                .hasMessageContaining("needs a value");
        CommandLine cl = CommandLine.parse(List.of("--parallelism", "0"), FLAGS, VALUES);
        assertThatThrownBy(() -> cl.intValue("parallelism", 1, 1, 10))
                .hasMessage("--parallelism: 0 (expected: 1..10)");
        assertThatThrownBy(() -> CommandLine.parseInt("--port", "http", 1, 2))
                .hasMessage("--port: 'http' is not a number");
    }
}
