// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import java.io.PrintStream;
import java.util.List;

/** One {@code ./flowhouse} sub-command. */
public interface Command {

    /** Exit code for a command-line mistake (sysexits EX_USAGE). */
    int EXIT_USAGE = 64;

    /** Exit code when a part the command needs has not been built (yet). */
    int EXIT_NOT_BUILT = 2;

    String name();

    /** One line for {@code ./flowhouse --help}. */
    String summary();

    /** Runs the command; {@code args} exclude the command name. Returns the exit code. */
    int run(List<String> args, PrintStream out, PrintStream err) throws Exception;
}
