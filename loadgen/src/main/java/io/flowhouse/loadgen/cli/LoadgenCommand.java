// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.cli;

import io.flowhouse.config.Config;
import io.flowhouse.config.cli.Cli;
import io.flowhouse.config.cli.ConfigFlags;
import io.flowhouse.config.cli.ConfiguredCommand;
import io.flowhouse.loadgen.LoadgenKeys;
import io.flowhouse.loadgen.LoadgenMain;
import io.flowhouse.loadgen.LoadgenOptions;
import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** The {@code loadgen} command: resolves {@link LoadgenKeys} and runs {@link LoadgenMain}. */
@Command(
        name = "loadgen",
        description = {
            "Sends NetFlow v5/v9/IPFIX from N simulated exporters at a target rate, for a duration"
                    + " or a count, with a live progress line on stderr and exact totals at the"
                    + " end; or writes the datagrams (or synthetic packets) to a pcap.",
            "",
            "  ./flowhouse loadgen --to 127.0.0.1:4739 --exporters 8 --rate 50000 --duration 60s",
            "  ./flowhouse loadgen --pcap-out /tmp/v9.pcap --protocol v9 --count 20000"
        },
        footer = {
            "Every key (loadgen/README.md) can also be set with --set KEY=VALUE, in the --config"
                    + " file, or as FLOWHOUSE_LOADGEN_<KEY> in the environment.",
            "Exit code 3: the target rate was not held (with --require-rate)."
        })
public final class LoadgenCommand implements Callable<Integer>, ConfiguredCommand {

    private final ConfigFlags flags =
            new ConfigFlags(LoadgenKeys.SCHEMA)
                    .option(
                            "--rate",
                            "N",
                            "Target flows/s (default 10000; 0 = flat out).",
                            (f, v) -> {
                                f.set(LoadgenKeys.RATE, v, "--rate");
                                f.set(LoadgenKeys.RATE_UNIT, "flows", "--rate");
                            })
                    .option(
                            "--dps",
                            "N",
                            "Target datagrams/s instead of flows/s.",
                            (f, v) -> {
                                f.set(LoadgenKeys.RATE, v, "--dps");
                                f.set(LoadgenKeys.RATE_UNIT, "datagrams", "--dps");
                            });
    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;

    public LoadgenCommand(Map<String, String> env, PrintStream out, PrintStream err) {
        this.env = env;
        this.out = out;
        this.err = err;
    }

    @Override
    public ConfigFlags configFlags() {
        return flags;
    }

    /**
     * Parses {@code args} with the shared rules and resolves the options (environment included).
     */
    public static LoadgenOptions options(String[] args, long nowMillis) {
        LoadgenCommand command = new LoadgenCommand(System.getenv(), System.out, System.err);
        Cli.parse(command, args);
        return LoadgenKeys.options(command.flags.resolver(command.env).resolve(), nowMillis);
    }

    @Override
    public Integer call() {
        Config c = flags.resolver(env).resolve();
        LoadgenOptions o = LoadgenKeys.options(c, System.currentTimeMillis());
        if (flags.printIfRequested(c, out)) {
            return Cli.OK;
        }
        return LoadgenMain.run(o, out, err);
    }
}
