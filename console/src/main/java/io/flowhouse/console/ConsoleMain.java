// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console;

import io.flowhouse.config.cli.Cli;
import io.flowhouse.console.config.ConsoleConfig;
import java.io.PrintStream;
import java.util.Map;

/**
 * Entry points of {@code ./flowhouse console}: {@link #run(String[], Map, PrintStream,
 * PrintStream)} parses flags with the shared command-line rules and returns the exit code; {@link
 * #run(ConsoleConfig)} serves a config record the caller built; {@link #main} exits with the code.
 */
public final class ConsoleMain {

    private ConsoleMain() {}

    /** 0 after a stop, 2 for a usage or configuration error, 1 when it cannot start. */
    public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        return Cli.execute(new ConsoleCommand(env, out, err), args, out, err);
    }

    public static int run(ConsoleConfig config) {
        return ConsoleCommand.run(config, System.out, System.err);
    }

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }
}
