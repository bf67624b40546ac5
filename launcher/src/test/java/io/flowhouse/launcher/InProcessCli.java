// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.services.FlowhouseHome;
import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The command line run in the test's JVM, as {@code ./flowhouse} would run it. */
final class InProcessCli {

    private InProcessCli() {}

    /**
     * Runs {@code args} with {@code dir} as the checkout (state in {@code dir/.flowhouse}), an
     * empty environment and no input; what it prints goes to {@code out} and {@code err}.
     *
     * @return the exit code
     */
    static int run(Path dir, List<String> args, OutputStream out, OutputStream err) {
        FlowhouseMain main =
                new FlowhouseMain(
                        new FlowhouseHome(dir, dir.resolve(".flowhouse")),
                        Map.of(),
                        new ByteArrayInputStream(new byte[0]));
        return main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }
}
