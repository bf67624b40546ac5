// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.ServicesConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A small GNU-style argument parser for the launcher's sub-commands: {@code --name value}, {@code
 * --name=value}, boolean {@code --flag}, positional arguments, and everything after {@code --} kept
 * verbatim for the program being launched.
 */
public final class CommandLine {

    private final Map<String, String> options;
    private final List<String> positional;
    private final List<String> passThrough;

    private CommandLine(
            Map<String, String> options, List<String> positional, List<String> passThrough) {
        this.options = options;
        this.positional = positional;
        this.passThrough = passThrough;
    }

    /**
     * Parses {@code args}.
     *
     * @param booleanFlags names (without {@code --}) that take no value
     * @param valueOptions names that take a value; any other {@code --name} is an error
     */
    public static CommandLine parse(
            List<String> args, Set<String> booleanFlags, Set<String> valueOptions) {
        Map<String, String> options = new LinkedHashMap<>();
        List<String> positional = new ArrayList<>();
        List<String> passThrough = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--")) {
                passThrough.addAll(args.subList(i + 1, args.size()));
                break;
            }
            if (arg.equals("-h") || arg.equals("--help")) {
                options.put("help", "true");
                continue;
            }
            if (!arg.startsWith("--") || arg.length() == 2) {
                positional.add(arg);
                continue;
            }
            String name = arg.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (booleanFlags.contains(name)) {
                options.put(name, value == null ? "true" : value);
            } else if (valueOptions.contains(name)) {
                if (value == null) {
                    if (i + 1 >= args.size()) {
                        throw new UsageException("option --" + name + " needs a value");
                    }
                    value = args.get(++i);
                }
                options.put(name, value);
            } else {
                throw new UsageException("unknown option --" + name);
            }
        }
        return new CommandLine(options, List.copyOf(positional), List.copyOf(passThrough));
    }

    public boolean helpRequested() {
        return flag("help");
    }

    public boolean flag(String name) {
        return Boolean.parseBoolean(options.getOrDefault(name, "false"));
    }

    public Optional<String> value(String name) {
        return Optional.ofNullable(options.get(name));
    }

    public String value(String name, String fallback) {
        return options.getOrDefault(name, fallback);
    }

    /** An integer option in a range, or {@code fallback} when absent. */
    public int intValue(String name, int fallback, int min, int max) {
        String raw = options.get(name);
        if (raw == null) {
            return fallback;
        }
        return parseInt("--" + name, raw, min, max);
    }

    /**
     * The local services' settings: defaults, then {@code env}, then the ports saved by the last
     * {@code services up} (when {@code useSaved}), then these flags.
     */
    public ServicesConfig servicesConfig(
            FlowhouseHome home, Map<String, String> env, boolean useSaved) {
        try {
            return ServicesConfig.resolve(home.root(), home.stateDir(), env, options, useSaved);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    public List<String> positional() {
        return positional;
    }

    /** Arguments after {@code --}. */
    public List<String> passThrough() {
        return passThrough;
    }

    /** Parses an integer setting; the message names where it came from. */
    public static int parseInt(String source, String raw, int min, int max) {
        int value;
        try {
            value = Integer.parseInt(raw.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(source + ": '" + raw + "' is not a number");
        }
        if (value < min || value > max) {
            throw new UsageException(
                    source + ": " + value + " (expected: " + min + ".." + max + ")");
        }
        return value;
    }

    /** A command-line mistake: printed with the usage hint, exit code 64 (EX_USAGE). */
    public static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public UsageException(String message) {
            super(message);
        }
    }
}
