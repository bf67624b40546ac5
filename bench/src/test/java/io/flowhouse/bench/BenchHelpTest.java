// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchHelpTest {

    /**
     * picocli formats the footer with {@code String.format}: a bare percent sign made it print a
     * warning and the footer unformatted.
     */
    @Test
    void theHelpFormatsEveryLine() {
        String usage = new CommandLine(new BenchCommand()).getUsageMessage();

        assertThat(usage).contains("bisected to 3 %; JOB_ARGS").doesNotContain("%n");
    }
}
