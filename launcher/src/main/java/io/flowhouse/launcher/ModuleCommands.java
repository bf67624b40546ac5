// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.agent.CaptureAgentMain;
import io.flowhouse.agent.cli.DecodeCommand;
import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.config.AgentConfigLoader;
import io.flowhouse.loadgen.LoadgenMain;
import io.flowhouse.loadgen.LoadgenOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * The commands of other modules: the launcher hands their flags to the module's own typed parser
 * (which also answers {@code --help}) and calls its typed entry point with the result. Their flags
 * are theirs until the modules move to the launcher's option model.
 */
final class ModuleCommands {

    private ModuleCommands() {}

    /**
     * {@code ./flowhouse agent}: {@link AgentConfigLoader} parses, {@link CaptureAgentMain} runs.
     */
    @Command(
            name = "agent",
            description =
                    "run the capture agent in the foreground (UDP NetFlow/IPFIX, pcap -> Kafka)")
    static final class Agent implements Callable<Integer> {
        private final LaunchContext ctx;

        @Unmatched List<String> args = new ArrayList<>();

        Agent(LaunchContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() {
            AgentConfig config;
            try {
                config = AgentConfigLoader.fromArgs(args.toArray(String[]::new));
            } catch (AgentConfigLoader.HelpRequestedException e) {
                ctx.out().println(e.getMessage());
                return ExitCode.OK;
            } catch (IllegalArgumentException | IOException e) {
                ctx.err().println("flowhouse agent: " + e.getMessage());
                return ExitCode.USAGE;
            }
            return CaptureAgentMain.run(config);
        }
    }

    /** {@code ./flowhouse decode}: the agent module's pcap decoder. */
    @Command(
            name = "decode",
            description = "decode the NetFlow/IPFIX datagrams of a pcap file and print the flows")
    static final class Decode implements Callable<Integer> {
        private final LaunchContext ctx;

        @Unmatched List<String> args = new ArrayList<>();

        Decode(LaunchContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() {
            return DecodeCommand.run(args.toArray(String[]::new), ctx.out(), ctx.err());
        }
    }

    /** {@code ./flowhouse loadgen}: {@link LoadgenOptions} parses, {@link LoadgenMain} sends. */
    @Command(
            name = "loadgen",
            description = "send generated NetFlow v5/v9/IPFIX traffic at a chosen rate")
    static final class Loadgen implements Callable<Integer> {
        private final LaunchContext ctx;

        @Unmatched List<String> args = new ArrayList<>();

        Loadgen(LaunchContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() {
            if (args.contains("-h") || args.contains("--help")) {
                ctx.out().println(LoadgenOptions.USAGE);
                return ExitCode.OK;
            }
            LoadgenOptions options;
            try {
                options =
                        LoadgenOptions.parse(
                                args.toArray(String[]::new), System.currentTimeMillis());
            } catch (IllegalArgumentException e) {
                ctx.err().println("flowhouse loadgen: " + e.getMessage());
                return ExitCode.USAGE;
            }
            return LoadgenMain.run(options, ctx.out(), ctx.err());
        }
    }
}
