// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent;

import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.agent.config.AgentConfig;

/**
 * Entry point of {@code ./flowhouse agent}: {@link #run(String[])} returns the exit code (the
 * launcher calls it); {@link #main(String[])} exits with it.
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
        return new AgentCommand().run(args);
    }

    /** Runs the agent with a parsed configuration ({@code AgentConfigLoader}); the exit code. */
    public static int run(AgentConfig config) {
        return new AgentCommand().run(config);
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }
}
