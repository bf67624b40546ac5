// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.cli;

import io.flowhouse.agent.CaptureAgent;
import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.config.AgentKeys;
import io.flowhouse.codec.packet.ParseResult;
import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.config.cli.Cli;
import io.flowhouse.config.cli.ConfigFlags;
import io.flowhouse.config.cli.ConfiguredCommand;
import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;

/**
 * The {@code agent} command: resolves the agent's keys from {@code --config FILE}, the environment
 * and flags, runs a {@link CaptureAgent} and reports at the end. {@link #run(AgentConfig,
 * PrintStream, PrintStream)} is the typed entry point for callers that hold a config record.
 */
@Command(
        name = "agent",
        description = {
            "Runs the capture agent in the foreground: UDP NetFlow/IPFIX and packet capture into"
                    + " Kafka, with an on-disk spool while Kafka is away.",
            "",
            "  ./flowhouse agent [--config FILE]                  UDP 2055 + 4739 -> Kafka",
            "  ./flowhouse agent --pcap FILE [--speed max|1x|Nx]  packet file -> packets.raw, exit",
            "  ./flowhouse agent --interface IF [--filter BPF]    live capture -> packets.raw",
            "  ./flowhouse agent --interface IF --with-udp        both"
        },
        footer = {
            "Every key (capture-agent/README.md) can also be set with --set KEY=VALUE, in the"
                    + " --config file, or as FLOWHOUSE_AGENT_<KEY> in the environment.",
            "Precedence: defaults < file < environment < flags."
        })
public final class AgentCommand implements Callable<Integer>, ConfiguredCommand {

    private static final String WITH_UDP = "--with-udp";
    private static final String NO_UDP = "--no-udp";
    private static final String NO_METRICS = "--no-metrics";

    private final ConfigFlags flags =
            new ConfigFlags(AgentKeys.SCHEMA)
                    .marker(WITH_UDP, "Keep the UDP listeners when capturing packets.")
                    .marker(NO_UDP, "No UDP listeners.")
                    .marker(NO_METRICS, "No metrics endpoint.");
    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;

    public AgentCommand(Map<String, String> env, PrintStream out, PrintStream err) {
        this.env = env;
        this.out = out;
        this.err = err;
    }

    @Override
    public ConfigFlags configFlags() {
        return flags;
    }

    /**
     * Parses {@code args} with the shared command-line rules and resolves the config record
     * (process environment included).
     *
     * @throws Cli.HelpRequestedException for {@code --help}
     * @throws ConfigException for a bad flag, file or value
     */
    public static AgentConfig configFrom(String... args) {
        AgentCommand command = new AgentCommand(System.getenv(), System.out, System.err);
        Cli.parse(command, args);
        return AgentKeys.config(command.resolve());
    }

    @Override
    public Integer call() {
        Config resolved = resolve();
        if (flags.printIfRequested(resolved, out)) {
            return Cli.OK;
        }
        return run(AgentKeys.config(resolved), out, err);
    }

    private Config resolve() {
        // The packet path on the command line runs alone unless asked otherwise.
        Boolean udp = null;
        if (flags.given("--pcap") || flags.given("--interface")) {
            udp = flags.given(WITH_UDP);
        }
        if (flags.given(NO_UDP)) {
            udp = false;
        }
        if (flags.given(WITH_UDP)) {
            udp = true;
        }
        if (udp != null) {
            flags.set(AgentKeys.UDP_ENABLED, udp.toString(), udp ? WITH_UDP : NO_UDP);
        }
        if (flags.given(NO_METRICS)) {
            flags.set(AgentKeys.METRICS_ENABLED, "false", NO_METRICS);
        } else if (flags.given("--metrics-port")) {
            flags.set(AgentKeys.METRICS_ENABLED, "true", "--metrics-port");
        }
        Config c = flags.resolver(env).resolve();
        if (!c.get(AgentKeys.UDP_ENABLED)
                && c.get(AgentKeys.PACKETS_FILE) == null
                && c.get(AgentKeys.PACKETS_INTERFACE) == null) {
            throw new ConfigException(
                    "nothing to do: UDP listeners are off and no --pcap or --interface given");
        }
        return c;
    }

    /**
     * Runs the agent until it is stopped (SIGTERM/SIGINT) or, for a packet file without UDP
     * listeners, until the file is read and delivered.
     *
     * @return 0 on success, 1 for a failure at run time
     */
    public static int run(AgentConfig config, PrintStream out, PrintStream err) {
        CaptureAgent agent;
        try {
            agent = CaptureAgent.start(config);
        } catch (Exception e) {
            // Start-up failures carry their own explanation (which address, which holder).
            err.println(
                    "flowhouse agent: could not start: "
                            + (e instanceof java.io.IOException && e.getMessage() != null
                                    ? e.getMessage()
                                    : e.toString()));
            return Cli.FAILURE;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook =
                new Thread(
                        () -> {
                            agent.close();
                            stopped.countDown();
                        },
                        "flowhouse-agent-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        int code = Cli.OK;
        try {
            if (!config.udp().enabled() && config.packets().file() != null) {
                // A file alone: read it, deliver everything, stop.
                long packets = agent.packetsDone().get();
                agent.close();
                out.printf(
                        "flowhouse agent: %s: %d packets, %d parsed, %d batches,"
                                + " %d records acknowledged by kafka, %d spooled, %d dropped%n",
                        config.packets().file(),
                        packets,
                        agent.metrics().packetCount(ParseResult.OK),
                        agent.metrics().packetBatches(),
                        agent.metrics().sentCount(config.kafka().packetsTopic()),
                        agent.metrics().spooledCount(),
                        agent.metrics().droppedCount());
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // already shutting down
                }
            } else {
                stopped.await();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            err.println("flowhouse agent: packet capture failed: " + e.getCause());
            agent.close();
            code = Cli.FAILURE;
        }
        return code;
    }
}
