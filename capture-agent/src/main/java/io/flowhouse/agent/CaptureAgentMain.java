// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent;

import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.config.cli.Cli;
import java.io.PrintStream;

/**
 * Entry points of {@code ./flowhouse agent}: {@link #run(String[])} parses flags with the shared
 * command-line rules and returns the exit code; {@link #run(AgentConfig)} runs a config record the
 * caller built; {@link #main(String[])} exits with the code.
 */
public final class CaptureAgentMain {

    private CaptureAgentMain() {}

    /**
     * Runs the agent until it is stopped (SIGTERM/SIGINT) or, for a packet file without UDP
     * listeners, until the file is read and delivered.
     *
     * @return 0 on success, 2 for a usage or configuration error, 1 for a failure at run time
     */
    public static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    /** As {@link #run(String[])}, with the output streams given. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return Cli.execute(new AgentCommand(System.getenv(), out, err), args, out, err);
    }

    /** Runs a resolved configuration; returns 0, or 1 for a failure at run time. */
    public static int run(AgentConfig config) {
        return AgentCommand.run(config, System.out, System.err);
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }
}
