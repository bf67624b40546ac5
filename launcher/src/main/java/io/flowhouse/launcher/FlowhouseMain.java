// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.services.FlowhouseHome;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Java side of {@code ./flowhouse}: dispatches sub-commands. Each one answers {@code --help};
 * {@code ./flowhouse --help} lists them.
 */
public final class FlowhouseMain {

    private final Map<String, Command> commands = new LinkedHashMap<>();

    public FlowhouseMain(FlowhouseHome home, Map<String, String> env, InputStream stdin) {
        add(new DemoCommand(home, env));
        add(new ServicesCommand(home, env));
        add(new PipelineCommand(home, env, true));
        add(new PipelineCommand(home, env, false));
        add(new QueryCommand(home, env, stdin));
        add(
                new ExternalCommand(
                        "agent",
                        "run the capture agent in the foreground (UDP NetFlow/IPFIX, pcap -> Kafka)",
                        "io.flowhouse.agent.CaptureAgentMain",
                        "capture-agent"));
        add(
                new ExternalCommand(
                        "decode",
                        "decode the NetFlow/IPFIX datagrams of a pcap file and print the flows",
                        "io.flowhouse.agent.cli.DecodeCommand",
                        "capture-agent"));
        add(
                new ExternalCommand(
                        "loadgen",
                        "send generated NetFlow v5/v9/IPFIX traffic at a chosen rate",
                        "io.flowhouse.loadgen.LoadgenMain",
                        "loadgen"));
        add(new JobCommand(home, env));
        add(
                new ExternalCommand(
                        "bench",
                        "run the benchmarks and write bench/results",
                        "io.flowhouse.bench.BenchCommand",
                        "bench"));
        add(new TestCommand());
    }

    private void add(Command command) {
        commands.put(command.name(), command);
    }

    public static void main(String[] args) {
        FlowhouseMain main = new FlowhouseMain(FlowhouseHome.detect(), System.getenv(), System.in);
        int code = main.run(Arrays.asList(args), System.out, System.err);
        System.out.flush();
        System.exit(code);
    }

    /** Runs one command line; returns the exit code. */
    public int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.isEmpty()
                || args.get(0).equals("--help")
                || args.get(0).equals("-h")
                || args.get(0).equals("help")) {
            if (args.size() > 1 && commands.containsKey(args.get(1))) {
                return dispatch(commands.get(args.get(1)), List.of("--help"), out, err);
            }
            out.print(usage());
            return args.isEmpty() ? Command.EXIT_USAGE : 0;
        }
        Command command = commands.get(args.get(0));
        if (command == null) {
            err.println("flowhouse: unknown command '" + args.get(0) + "'");
            err.print(usage());
            return Command.EXIT_USAGE;
        }
        return dispatch(command, args.subList(1, args.size()), out, err);
    }

    private static int dispatch(
            Command command, List<String> args, PrintStream out, PrintStream err) {
        try {
            return command.run(args, out, err);
        } catch (CommandLine.UsageException e) {
            err.println("flowhouse " + command.name() + ": " + e.getMessage());
            err.println("see ./flowhouse " + command.name() + " --help");
            return Command.EXIT_USAGE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("flowhouse " + command.name() + ": interrupted");
            return 130;
        } catch (Exception | Error e) {
            err.println("flowhouse " + command.name() + ": " + e);
            e.printStackTrace(err);
            return 1;
        }
    }

    String usage() {
        StringBuilder text = new StringBuilder();
        text.append(
                """
                Flowhouse: NetFlow v5/v9/IPFIX and packets -> capture agent -> Kafka -> Flink ->
                ClickHouse, ntopng ZMQ, IPFIX re-export.

                Usage: ./flowhouse COMMAND [ARGS...]      ./flowhouse COMMAND --help

                Commands:
                """);
        for (Command command : commands.values()) {
            text.append(
                    String.format(Locale.ROOT, "  %-9s %s%n", command.name(), command.summary()));
        }
        text.append(
                """

                Start here:  ./flowhouse demo     the whole pipeline on sample traffic, then example queries
                             ./flowhouse test     every test against real services
                """);
        return text.toString();
    }
}
