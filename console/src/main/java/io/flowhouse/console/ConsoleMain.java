// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console;

import io.flowhouse.config.ConfigResolver;
import io.flowhouse.config.cli.Cli;
import io.flowhouse.console.config.ConsoleConfig;
import io.flowhouse.console.config.ConsoleKeys;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Entry points of {@code ./flowhouse console}: {@link #run(String[], Map, PrintStream,
 * PrintStream)} parses flags with the shared command-line rules and returns the exit code; {@link
 * #run(ConsoleConfig)} serves a config record the caller built; {@link #main} exits with the code.
 */
public final class ConsoleMain {

    private ConsoleMain() {}

    /** 0 after a stop, 2 for a usage or configuration error, 1 when it cannot start. */
    public static int run(
            String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        return Cli.execute(new ConsoleCommand(env, out, err), args, out, err);
    }

    /**
     * The environment with the local services filled in where it names nothing: their ClickHouse
     * URL, state directory (the console's user and password live there) and Kafka.
     */
    public static Map<String, String> localEnvironment(
            Map<String, String> env, String clickhouseUrl, Path stateDir, String kafka) {
        Map<String, String> out = new HashMap<>(env);
        out.putIfAbsent("FLOWHOUSE_CONSOLE_CLICKHOUSE_URL", clickhouseUrl);
        out.putIfAbsent(
                "FLOWHOUSE_CONSOLE_LOCAL_USER_STATE_DIR", stateDir.toAbsolutePath().toString());
        out.putIfAbsent("FLOWHOUSE_CONSOLE_KAFKA_BOOTSTRAP_SERVERS", kafka);
        return out;
    }

    /** The console's configuration from an environment alone (the demo). */
    public static ConsoleConfig config(Map<String, String> env) {
        return ConsoleKeys.config(ConfigResolver.of(ConsoleKeys.SCHEMA).env(env).resolve());
    }

    public static int run(ConsoleConfig config) {
        return ConsoleCommand.run(config, System.out, System.err);
    }

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }
}
