// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console;

import io.flowhouse.config.Config;
import io.flowhouse.config.cli.Cli;
import io.flowhouse.config.cli.ConfigFlags;
import io.flowhouse.config.cli.ConfiguredCommand;
import io.flowhouse.console.config.ConsoleConfig;
import io.flowhouse.console.config.ConsoleKeys;
import io.flowhouse.console.server.ConsoleServer;
import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;

/**
 * {@code ./flowhouse console}: resolves the console's keys from {@code --config FILE}, the
 * environment ({@code FLOWHOUSE_CONSOLE_*}) and flags, and serves until stopped.
 */
@Command(
        name = "console",
        description = {
            "Serves the web console: traffic over time, top-N, Sankey and exporters over the job's"
                    + " ClickHouse tables, with a filter bar and a JSON API (console/README.md).",
            "",
            "  ./flowhouse console                      http://127.0.0.1:8090/ on the local services",
            "  ./flowhouse console --port 9000          another port",
            "  FLOWHOUSE_CONSOLE_AUTH_TOKEN_FILE=F ./flowhouse console --host 0.0.0.0",
            "                                           any address but loopback needs auth"
        },
        footer = {
            "Every key (console/README.md) can also be set with --set KEY=VALUE, in the --config"
                    + " file, or as FLOWHOUSE_CONSOLE_<KEY> in the environment.",
            "Precedence: defaults < file < environment < flags."
        })
public final class ConsoleCommand implements Callable<Integer>, ConfiguredCommand {

    private final ConfigFlags flags = new ConfigFlags(ConsoleKeys.SCHEMA);
    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;

    public ConsoleCommand(Map<String, String> env, PrintStream out, PrintStream err) {
        this.env = env;
        this.out = out;
        this.err = err;
    }

    @Override
    public ConfigFlags configFlags() {
        return flags;
    }

    @Override
    public Integer call() {
        Config resolved = flags.resolver(env).resolve();
        if (flags.printIfRequested(resolved, out)) {
            return Cli.OK;
        }
        return run(ConsoleKeys.config(resolved), out, err);
    }

    /** Serves until SIGTERM/SIGINT; 1 when it cannot start. */
    public static int run(ConsoleConfig config, PrintStream out, PrintStream err) {
        ConsoleServer server;
        try {
            server = Console.start(config);
        } catch (Exception e) {
            err.println("flowhouse console: could not start: " + e.getMessage());
            return Cli.FAILURE;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook =
                new Thread(
                        () -> {
                            server.close();
                            stopped.countDown();
                        },
                        "flowhouse-console-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        out.println(
                "flowhouse console: "
                        + server.url()
                        + " (ClickHouse "
                        + config.clickhouse().url()
                        + ")");
        out.flush();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            server.close();
        }
        return Cli.OK;
    }
}
