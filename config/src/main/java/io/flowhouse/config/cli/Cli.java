// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config.cli;

import io.flowhouse.config.ConfigException;
import java.io.PrintStream;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The house rules for every command line: picocli with one help style and one set of exit codes.
 *
 * <ul>
 *   <li>{@value #OK}: done;
 *   <li>{@value #FAILURE}: failed at run time (I/O, a peer away);
 *   <li>{@value #USAGE}: bad usage or configuration, reported on one line that names the flag or
 *       key, before anything starts.
 * </ul>
 *
 * A command is a picocli {@code @Command} that implements {@code Callable<Integer>}; a {@link
 * ConfiguredCommand} also gets its {@link ConfigFlags}. {@code -h}/{@code --help} prints the usage
 * to {@code out} and returns 0. Repeating a single-valued flag keeps the last value.
 */
public final class Cli {

    public static final int OK = 0;
    public static final int FAILURE = 1;
    public static final int USAGE = 2;

    private static final String EXIT_CODES =
            "Exit codes: 0 ok, 1 failure, 2 usage or configuration error.";

    private Cli() {}

    /** Parses {@code args}, runs the command and returns its exit code. */
    public static int execute(Object command, String[] args, PrintStream out, PrintStream err) {
        return commandLine(command, out, err).execute(args);
    }

    /** The command line with the house style, for callers that need more than {@link #execute}. */
    public static CommandLine commandLine(Object command, PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(command);
        CommandSpec spec = cl.getCommandSpec();
        spec.addOption(
                OptionSpec.builder("-h", "--help")
                        .usageHelp(true)
                        .description("Show this help and exit.")
                        .build());
        boolean keyFlags = false;
        if (command instanceof ConfiguredCommand c) {
            c.configFlags().addTo(spec);
            keyFlags = c.configFlags().acceptsKeyFlags();
        }
        String footer = String.join("%n", spec.usageMessage().footer());
        spec.usageMessage()
                .footer((footer.isEmpty() ? "" : footer + "%n") + EXIT_CODES)
                .footerHeading("%n")
                .synopsisHeading("usage: flowhouse ")
                .descriptionHeading("%n")
                .optionListHeading("%nOptions:%n")
                .parameterListHeading("%nArguments:%n")
                .abbreviateSynopsis(true)
                .sortOptions(false)
                .autoWidth(false)
                .width(100);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setOverwrittenOptionsAllowed(true);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        // --KEY VALUE for any key: an unknown --x is then a key's name, not an error.
        cl.setUnmatchedOptionsArePositionalParams(keyFlags);
        cl.setParameterExceptionHandler(
                (e, args) -> {
                    err.println(prefix(e.getCommandLine()) + oneLine(describe(e)) + hint(cl));
                    err.flush();
                    return USAGE;
                });
        cl.setExecutionExceptionHandler(
                (e, c, parsed) -> {
                    if (e instanceof ConfigException) {
                        err.println(prefix(c) + oneLine(e.getMessage()));
                        err.flush();
                        return USAGE;
                    }
                    err.println(prefix(c) + e);
                    err.flush();
                    return FAILURE;
                });
        return cl;
    }

    /**
     * Parses {@code args} into {@code command} without running it, for tests and for callers that
     * want the parsed command (its typed config) rather than an exit code.
     *
     * @throws HelpRequestedException for {@code --help}; the message is the usage text
     * @throws ConfigException for a bad flag, with the one-line message {@link #execute} prints
     */
    public static void parse(Object command, String... args) {
        java.io.ByteArrayOutputStream sink = new java.io.ByteArrayOutputStream();
        PrintStream none = new PrintStream(sink, true, java.nio.charset.StandardCharsets.UTF_8);
        CommandLine cl = commandLine(command, none, none);
        CommandLine.ParseResult parsed;
        try {
            parsed = cl.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new ConfigException(describe(e), e);
        }
        if (parsed.isUsageHelpRequested()) {
            throw new HelpRequestedException(cl.getUsageMessage());
        }
    }

    /** Thrown by {@link #parse} for {@code --help}: the message is the usage text. */
    public static final class HelpRequestedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HelpRequestedException(String usage) {
            super(usage);
        }
    }

    /** {@code unknown option --x} rather than picocli's wording, as the old parsers said. */
    private static String describe(CommandLine.ParameterException e) {
        if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String first = u.getUnmatched().get(0);
            return first.startsWith("-")
                    ? "unknown option " + first
                    : "unexpected argument " + first;
        }
        return e.getMessage();
    }

    private static String prefix(CommandLine c) {
        return "flowhouse " + c.getCommandName() + ": ";
    }

    private static String hint(CommandLine c) {
        return " (see ./flowhouse " + c.getCommandName() + " --help)";
    }

    private static String oneLine(String message) {
        return String.valueOf(message).replace('\n', ' ').strip();
    }
}
