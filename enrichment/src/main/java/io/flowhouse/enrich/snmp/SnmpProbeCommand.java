// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.config.cli.Cli;
import io.flowhouse.config.cli.ConfigFlags;
import io.flowhouse.config.cli.ConfiguredCommand;
import io.flowhouse.enrich.InterfaceInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code ./flowhouse snmp-probe EXPORTER}: polls one exporter's agent once, with the same keys and
 * credentials file as the job, and prints what the SNMP directory learns.
 */
@Command(
        name = "snmp-probe",
        description = {
            "Poll one exporter's SNMP agent once, as the job's SNMP enrichment would, and print"
                    + " what it learns: sysName, and by ifIndex the speed, ifName and description"
                    + " (ifAlias, else ifDescr).",
            "",
            "  ./flowhouse snmp-probe 192.0.2.1 --set enrich.snmp.credentials-file=snmp.yaml",
            "  ./flowhouse snmp-probe 192.0.2.1 --config job.yaml --set"
                    + " enrich.snmp.agents=192.0.2.1=198.51.100.1"
        },
        footer = {
            "Credentials come from the file (enrich.snmp.credentials-file; format in"
                    + " enrichment/README.md), never from a flag. Every enrich.snmp.* key can also"
                    + " be set with --set KEY=VALUE, in the --config file, or as"
                    + " FLOWHOUSE_ENRICH_SNMP_<KEY>.",
            "Exit code 1: the agent did not answer, or refused."
        })
public final class SnmpProbeCommand implements Callable<Integer>, ConfiguredCommand {

    @Parameters(paramLabel = "EXPORTER", description = "The exporter's address (numeric).")
    String exporter;

    private final ConfigFlags flags = new ConfigFlags(SnmpKeys.SCHEMA).passThroughForeignKeys();
    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;

    public SnmpProbeCommand(Map<String, String> env, PrintStream out, PrintStream err) {
        this.env = env;
        this.out = out;
        this.err = err;
    }

    public static int run(
            String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        return Cli.execute(new SnmpProbeCommand(env, out, err), args, out, err);
    }

    @Override
    public ConfigFlags configFlags() {
        return flags;
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        Config c = flags.resolver(env).resolve();
        if (flags.printIfRequested(c, out)) {
            return Cli.OK;
        }
        byte[] address = Cidr.literal(exporter);
        if (address == null) {
            throw new ConfigException(
                    "EXPORTER " + exporter + " (expected: a numeric IPv4 or IPv6 address)");
        }
        SnmpOptions options = SnmpKeys.options(c);
        if (options == null) {
            throw new ConfigException(
                    "no credentials: set "
                            + SnmpKeys.CREDENTIALS_FILE.name()
                            + " (--set, --config or FLOWHOUSE_ENRICH_SNMP_CREDENTIALS_FILE)");
        }
        InetAddress e = InetAddress.getByAddress(address);
        SnmpCredential credential = options.credentials().forExporter(e);
        if (credential == null) {
            err.println("snmp-probe: no credentials entry covers " + e.getHostAddress());
            return Cli.FAILURE;
        }
        var agent = options.agentOf(e);
        out.printf(
                Locale.ROOT,
                "exporter %s, agent %s, %s%n",
                e.getHostAddress(),
                SnmpOptions.hostPort(agent),
                credential.describe());
        try (SnmpInterfaceDirectory directory = SnmpInterfaceDirectory.start(options)) {
            directory.observe(e);
            SnmpCounters n = directory.counters();
            // Every poll ends: by an answer, a timeout, or the directory's own poll deadline.
            while (n.pollsOk() + n.pollsFailed() + n.pollsTimedOut() == 0) {
                Thread.sleep(20);
            }
            if (n.pollsOk() == 0) {
                err.println("snmp-probe: " + directory.lastError(e).orElse("failed"));
                return Cli.FAILURE;
            }
            print(directory, e);
            out.println(n);
            return Cli.OK;
        }
    }

    private void print(SnmpInterfaceDirectory directory, InetAddress e) {
        out.println("sysName: " + directory.exporterName(e).orElse(""));
        Map<Long, InterfaceInfo> interfaces = directory.interfaces(e);
        int width = 4;
        for (InterfaceInfo i : interfaces.values()) {
            width = Math.max(width, i.name().length());
        }
        String row = "%10s  %12s  %-" + width + "s  %s%n";
        out.printf(Locale.ROOT, row, "ifIndex", "speed Mbit/s", "name", "description");
        for (Map.Entry<Long, InterfaceInfo> i : interfaces.entrySet()) {
            out.printf(
                    Locale.ROOT,
                    row,
                    i.getKey(),
                    i.getValue().speedMbps(),
                    i.getValue().name(),
                    i.getValue().description());
        }
    }
}
