// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.agent.CaptureAgentMain;
import io.flowhouse.agent.cli.DecodeCommand;
import io.flowhouse.console.ConsoleMain;
import io.flowhouse.enrich.snmp.SnmpProbeCommand;
import io.flowhouse.loadgen.LoadgenMain;
import io.flowhouse.services.ServicesConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * The commands of other modules: the launcher hands their flags to the module's own command (the
 * shared configuration model's picocli rules: same help style and exit codes), which resolves its
 * config record and runs it.
 */
final class ModuleCommands {

    private ModuleCommands() {}

    /** {@code ./flowhouse agent}: the agent's command resolves its keys and runs it. */
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
            return CaptureAgentMain.run(args.toArray(String[]::new), ctx.out(), ctx.err());
        }
    }

    /** {@code ./flowhouse decode}: the agent module's pcap decoder. */
    @Command(
            name = "decode",
            description =
                    "decode the NetFlow/IPFIX/sFlow datagrams of a pcap file and print the flows")
    static final class Decode implements Callable<Integer> {
        private final LaunchContext ctx;

        @Unmatched List<String> args = new ArrayList<>();

        Decode(LaunchContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() {
            return DecodeCommand.run(
                    args.toArray(String[]::new),
                    ctx.out(),
                    ctx.err(),
                    config -> DecodeEnrichment.open(config, ctx.env(), ctx.err()));
        }
    }

    /** {@code ./flowhouse loadgen}: loadgen's command resolves its keys and sends. */
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
            return LoadgenMain.run(args.toArray(String[]::new), ctx.out(), ctx.err());
        }
    }

    /**
     * {@code ./flowhouse console}: the console's command resolves its keys and serves; the local
     * services' ClickHouse, state directory and Kafka are its defaults.
     */
    @Command(
            name = "console",
            description =
                    "serve the web console (traffic, top-N, Sankey, exporters) on 127.0.0.1:8090")
    static final class Console implements Callable<Integer> {
        private final LaunchContext ctx;

        @Unmatched List<String> args = new ArrayList<>();

        Console(LaunchContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() {
            ServicesConfig services = new ServicesOptions().config(ctx, true);
            return ConsoleMain.run(
                    args.toArray(String[]::new),
                    ConsoleMain.localEnvironment(
                            ctx.env(),
                            services.clickhouseUrl(),
                            services.stateDir(),
                            services.kafkaBootstrap()),
                    ctx.out(),
                    ctx.err());
        }
    }

    /** {@code ./flowhouse snmp-probe}: the SNMP enrichment source, once, on one exporter. */
    @Command(
            name = "snmp-probe",
            description = "poll one exporter's SNMP agent once and print the names it learns")
    static final class SnmpProbe implements Callable<Integer> {
        private final LaunchContext ctx;

        @Unmatched List<String> args = new ArrayList<>();

        SnmpProbe(LaunchContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() {
            return SnmpProbeCommand.run(
                    args.toArray(String[]::new), ctx.env(), ctx.out(), ctx.err());
        }
    }
}
