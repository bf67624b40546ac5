// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.bench.BenchCommand;
import io.flowhouse.services.FlowhouseHome;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The Java side of {@code ./flowhouse}: parses the command line (picocli) and dispatches to the
 * commands; every command answers {@code --help}, and every one ends with an {@link ExitCode}.
 */
@Command(
        name = "flowhouse",
        mixinStandardHelpOptions = true,
        versionProvider = FlowhouseMain.Version.class,
        description = {
            "Flowhouse: NetFlow v5/v9/IPFIX and packets -> capture agent -> Kafka -> Flink ->",
            "ClickHouse, ntopng ZMQ, IPFIX re-export."
        },
        synopsisHeading = "Usage: ",
        customSynopsis = "./flowhouse COMMAND [ARGS...]      ./flowhouse COMMAND --help",
        commandListHeading = "%nCommands:%n",
        footer = {
            "",
            "Start here:  ./flowhouse demo     the whole pipeline on sample traffic, then example"
                    + " queries",
            "             ./flowhouse test     every test against real services",
            "",
            "Exit codes: 0 ok, 1 failure, 2 usage, 3 a check did not hold (services status: a",
            "service is down), 4 not built yet, 130 interrupted."
        })
public final class FlowhouseMain implements Callable<Integer> {

    @Spec CommandSpec spec;

    private final LaunchContext ctx;

    public FlowhouseMain(FlowhouseHome home, Map<String, String> env, InputStream stdin) {
        this(new LaunchContext(home, env, stdin, System.out, System.err));
    }

    private FlowhouseMain(LaunchContext ctx) {
        this.ctx = ctx;
    }

    public static void main(String[] args) {
        FlowhouseMain main = new FlowhouseMain(FlowhouseHome.detect(), System.getenv(), System.in);
        int code = main.run(List.of(args), System.out, System.err);
        System.out.flush();
        System.exit(code);
    }

    /** Runs one command line; returns the exit code. */
    public int run(List<String> args, PrintStream out, PrintStream err) {
        LaunchContext run = new LaunchContext(ctx.home(), ctx.env(), ctx.stdin(), out, err);
        return commandLine(run).execute(args.toArray(String[]::new));
    }

    /** The command tree, writing to the context's streams. */
    static CommandLine commandLine(LaunchContext ctx) {
        CommandLine cl = new CommandLine(new FlowhouseMain(ctx));
        cl.addSubcommand(new DemoCommand(ctx));
        cl.addSubcommand(new ServicesCommand(ctx));
        cl.addSubcommand(new PipelineCommand.Up(ctx));
        cl.addSubcommand(new PipelineCommand.Down(ctx));
        cl.addSubcommand(new QueryCommand(ctx));
        cl.addSubcommand(new TailCommand(ctx));
        cl.addSubcommand(new ModuleCommands.Agent(ctx));
        cl.addSubcommand(new ModuleCommands.Decode(ctx));
        cl.addSubcommand(new ModuleCommands.Loadgen(ctx));
        cl.addSubcommand(new ModuleCommands.Console(ctx));
        cl.addSubcommand(new ModuleCommands.SnmpProbe(ctx));
        JobCommand jobCommand = new JobCommand(ctx);
        CommandLine job = new CommandLine(jobCommand);
        jobCommand.subcommands().forEach(job::addSubcommand);
        cl.addSubcommand(job);
        EnrichCommand enrichCommand = new EnrichCommand(ctx);
        CommandLine enrich = new CommandLine(enrichCommand);
        enrichCommand.subcommands().forEach(enrich::addSubcommand);
        cl.addSubcommand(enrich);
        cl.addSubcommand(new BenchCommand(ctx.out(), ctx.err()));
        cl.addSubcommand(new TestCommand(ctx));
        cl.addSubcommand(new CommandLine.HelpCommand());
        // Their flags are the modules' own: everything after the command name goes to them.
        for (String module : List.of("agent", "decode", "loadgen", "console", "snmp-probe")) {
            cl.getSubcommands().get(module).setStopAtUnmatched(true);
        }
        addServicesFlags(cl);
        abbreviateSynopses(cl);
        cl.setExpandAtFiles(false);
        cl.setUsageHelpWidth(100);
        cl.setOut(new PrintWriter(ctx.out(), true));
        cl.setErr(new PrintWriter(ctx.err(), true));
        cl.setParameterExceptionHandler(FlowhouseMain::usageError);
        cl.setExecutionExceptionHandler((e, command, parsed) -> failure(e, command, ctx.err()));
        return cl;
    }

    /** The services' keys as flags of every command that holds {@link ServicesOptions}. */
    private static void addServicesFlags(CommandLine cl) {
        CommandSpec spec = cl.getCommandSpec();
        ServicesOptions services = servicesOptions(spec);
        if (services != null) {
            spec.addMixin("services-keys", services.flags().mixin());
        }
        cl.getSubcommands().values().forEach(FlowhouseMain::addServicesFlags);
    }

    private static ServicesOptions servicesOptions(CommandSpec spec) {
        for (CommandSpec mixin : spec.mixins().values()) {
            if (mixin.userObject() instanceof ServicesOptions s) {
                return s;
            }
            ServicesOptions nested = servicesOptions(mixin);
            if (nested != null) {
                return nested;
            }
        }
        return null;
    }

    /** Synopses say [OPTIONS]: the options are listed below them, one a line. */
    private static void abbreviateSynopses(CommandLine cl) {
        cl.getCommandSpec().usageMessage().abbreviateSynopsis(true);
        cl.getSubcommands().values().forEach(FlowhouseMain::abbreviateSynopses);
    }

    /** No command: the list of commands, as a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(ctx.err());
        return ExitCode.USAGE;
    }

    private static int usageError(ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        PrintWriter err = command.getErr();
        boolean root = command.getCommandSpec().parent() == null;
        if (root
                && e instanceof UnmatchedArgumentException u
                && !u.getUnmatched().isEmpty()
                && !u.getUnmatched().get(0).startsWith("-")) {
            err.println("flowhouse: unknown command '" + u.getUnmatched().get(0) + "'");
            command.usage(err);
            return ExitCode.USAGE;
        }
        printUsageError(command, e.getMessage(), err);
        return ExitCode.USAGE;
    }

    private static void printUsageError(CommandLine command, String message, PrintWriter err) {
        String name = command.getCommandSpec().qualifiedName();
        err.println(name + ": " + message);
        err.println("see ./" + name + " --help");
    }

    private static int failure(Exception e, CommandLine command, PrintStream err) {
        if (e instanceof UsageError) {
            printUsageError(command, e.getMessage(), command.getErr());
            return ExitCode.USAGE;
        }
        String name = command.getCommandSpec().qualifiedName();
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            err.println(name + ": interrupted");
            return ExitCode.INTERRUPTED;
        }
        err.println(name + ": " + e);
        e.printStackTrace(err);
        return ExitCode.FAILURE;
    }

    /** {@code --version}: the build's version from the jar manifest, when there is one. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = FlowhouseMain.class.getPackage().getImplementationVersion();
            return new String[] {"flowhouse " + (v == null ? "(development build)" : v)};
        }
    }
}
