// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.cli;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.config.cli.Cli;
import io.flowhouse.config.cli.ConfigFlags;
import io.flowhouse.config.cli.ConfiguredCommand;
import io.flowhouse.jobs.config.JobKeys;
import java.io.PrintStream;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;

/**
 * The command line of the job's entry points ({@code FlowPipelineJob}, and with its own flags
 * {@code ReprocessJob}), with the shared rules ({@link Cli}): {@code --config FILE} (YAML, or a
 * {@code .properties} file), {@code --set KEY=VALUE}, {@code --print-config}, and {@code --KEY
 * VALUE} / {@code --KEY=VALUE} for any key ({@code --kafka.start earliest}). Keys that are not the
 * job's ({@code --execution.checkpointing.dir file:///cp}, {@code state.backend.type} in the file)
 * go to Flink's {@link Configuration} unchanged.
 *
 * <p>An entry point runs inside Flink's client or JobManager, so it never exits the process: a bad
 * flag is a {@link ConfigException}, {@code --help} and {@code --print-config} print and return.
 */
@Command(
        name = "job",
        description = {
            "The flow pipeline job (flink run -c io.flowhouse.jobs.FlowPipelineJob JAR ...,"
                    + " or ./flowhouse job submit -- ...).",
        },
        footer = {
            "Every key (flink-jobs/README.md, README-rollups.md, sinks/README-*.md) can also be"
                    + " set in the --config file or as FLOWHOUSE_<KEY> in the environment.",
            "Precedence: defaults < file < environment < flags."
        })
public class JobArgs implements ConfiguredCommand {

    private final ConfigFlags flags =
            new ConfigFlags(JobKeys.SCHEMA).keyFlags().passThroughForeignKeys();

    @Override
    public ConfigFlags configFlags() {
        return flags;
    }

    /**
     * Parses {@code args} and resolves the job's configuration over {@code env}; null when {@code
     * --help} or {@code --print-config} printed to {@code out} instead.
     *
     * @throws ConfigException for a bad flag, file or value
     */
    public static Config resolve(Map<String, String> env, PrintStream out, String... args) {
        JobArgs command = new JobArgs();
        return command.parse(env, out, args);
    }

    /** {@link #resolve(Map, PrintStream, String...)} for tests: nothing to print. */
    public static Config resolve(Map<String, String> env, String... args) {
        return resolve(env, System.out, args);
    }

    /** Parses into this command and resolves; null after printing the help or the configuration. */
    protected Config parse(Map<String, String> env, PrintStream out, String... args) {
        try {
            Cli.parse(this, args);
        } catch (Cli.HelpRequestedException help) {
            out.print(help.getMessage());
            out.flush();
            return null;
        }
        Config c = flags.resolver(env).resolve();
        return flags.printIfRequested(c, out) ? null : c;
    }

    /** Flink's own keys of the configuration, for the execution environment. */
    public static Configuration flinkConfiguration(Config c) {
        return Configuration.fromMap(c.foreign());
    }
}
