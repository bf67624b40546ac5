// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config.cli;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.config.ConfigResolver;
import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.IGetter;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The flags of a configured command, each mapped to declared keys:
 *
 * <ul>
 *   <li>{@code --config FILE}: a YAML file;
 *   <li>{@code --set KEY=VALUE}, repeatable: any declared key (relative or full name), the one
 *       generic form;
 *   <li>the named flags that keys declare ({@link Key#flag}); a named flag on a list key may be
 *       repeated and appends;
 *   <li>toggles and custom flags a command adds for what is not one key's value ({@code --no-udp});
 *   <li>{@code --print-config}: print the resolved configuration (secrets masked) and exit.
 * </ul>
 *
 * Values are kept as text in command-line order and checked by {@link ConfigResolver}, so a bad
 * flag value fails like a bad file value, naming the key and the flag.
 */
public final class ConfigFlags {

    private record Given(Key<?> key, String name, Object value, String origin) {}

    private final ConfigSchema schema;
    private final List<OptionSpec> extra = new ArrayList<>();
    private final List<Given> given = new ArrayList<>();
    private final Set<String> seen = new HashSet<>();
    private final List<String> keyArgs = new ArrayList<>();
    private Path configFile;
    private boolean printConfig;
    private boolean keyFlags;
    private boolean passThrough;

    public ConfigFlags(ConfigSchema schema) {
        this.schema = schema;
    }

    public ConfigSchema schema() {
        return schema;
    }

    /**
     * Also accepts {@code --KEY VALUE} and {@code --KEY=VALUE} for any key, by its relative or full
     * name ({@code --kafka.start earliest}): the job's command line before the schema, kept for the
     * files and scripts that use it. A named flag or {@code --set} is preferred.
     */
    public ConfigFlags keyFlags() {
        this.keyFlags = true;
        return this;
    }

    /**
     * Keys that are not the schema's, in the file and as {@code --KEY VALUE}, are kept for someone
     * else ({@link ConfigResolver#passThroughForeignKeys()}): the job's Flink keys.
     */
    public ConfigFlags passThroughForeignKeys() {
        this.passThrough = true;
        return this;
    }

    /** Whether {@link #keyFlags()} was asked for. */
    boolean acceptsKeyFlags() {
        return keyFlags;
    }

    /** A flag without a value that sets {@code key} to {@code value} ({@code --no-udp}). */
    public ConfigFlags toggle(String flag, String description, Key<?> key, String value) {
        extra.add(
                OptionSpec.builder(flag)
                        .arity("0")
                        .type(boolean.class)
                        .description(escape(description))
                        .setter(
                                setter(
                                        v -> {
                                            if (Boolean.TRUE.equals(v)) {
                                                seen.add(flag);
                                                set(key, value, flag);
                                            }
                                        }))
                        .build());
        return this;
    }

    /**
     * A flag without a value whose meaning the command applies itself after parsing, through {@link
     * #given} and {@link #set} (when it depends on other flags).
     */
    public ConfigFlags marker(String flag, String description) {
        extra.add(
                OptionSpec.builder(flag)
                        .arity("0")
                        .type(boolean.class)
                        .description(escape(description))
                        .setter(
                                setter(
                                        v -> {
                                            if (Boolean.TRUE.equals(v)) {
                                                seen.add(flag);
                                            }
                                        }))
                        .build());
        return this;
    }

    /** A flag whose value the command maps itself, through {@link #set}. */
    public ConfigFlags option(
            String flag, String label, String description, BiConsumer<ConfigFlags, String> action) {
        extra.add(
                OptionSpec.builder(flag)
                        .arity("1")
                        .paramLabel(label)
                        .type(String.class)
                        .description(escape(description))
                        .setter(
                                setter(
                                        v -> {
                                            seen.add(flag);
                                            action.accept(this, (String) v);
                                        }))
                        .build());
        return this;
    }

    /** Sets a key from a flag; {@code origin} is the flag as the user wrote it. */
    public void set(Key<?> key, String value, String origin) {
        given.add(new Given(key, null, value, origin));
    }

    /** Whether the named flag was on the command line. */
    public boolean given(String flag) {
        return seen.contains(flag);
    }

    /** The {@code --config} file, or null. */
    public Path configFile() {
        return configFile;
    }

    /** A resolver with the file, {@code env} and these flags. */
    public ConfigResolver resolver(Map<String, String> env) {
        ConfigResolver r = ConfigResolver.of(schema);
        if (passThrough) {
            r.passThroughForeignKeys();
        }
        if (configFile != null) {
            r.file(configFile);
        }
        r.env(env);
        for (Given g : given) {
            if (g.value() == null) {
                throw new ConfigException("--set " + g.name() + " (expected: KEY=VALUE)");
            } else if (g.key() != null) {
                r.flag(g.key(), g.value(), g.origin());
            } else {
                r.flag(g.name(), g.value(), g.origin());
            }
        }
        addKeyArgs(r);
        return r;
    }

    /** The {@code --KEY VALUE} and {@code --KEY=VALUE} pairs, in command-line order. */
    private void addKeyArgs(ConfigResolver r) {
        for (int i = 0; i < keyArgs.size(); i++) {
            String a = keyArgs.get(i);
            if (!a.startsWith("--") || a.length() == 2) {
                throw new ConfigException("unexpected argument " + a + " (expected: --KEY VALUE)");
            }
            String name = a.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq > 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < keyArgs.size()) {
                value = keyArgs.get(++i);
            } else {
                throw new ConfigException("--" + name + " has no value (expected: --KEY VALUE)");
            }
            r.flag(name, value, "--" + name);
        }
    }

    /** Resolves with the file, the process environment and the flags. */
    public Config resolve() {
        return resolver(System.getenv()).resolve();
    }

    /** With {@code --print-config}, prints {@code config} (secrets masked) and returns true. */
    public boolean printIfRequested(Config config, PrintStream out) {
        if (printConfig) {
            config.describe().forEach(out::println);
        }
        return printConfig;
    }

    /**
     * The keys' named flags (and the custom ones) alone, as a picocli mixin for commands that take
     * a few settings among flags of their own ({@code spec.addMixin("services", flags.mixin())}):
     * no {@code --config}, {@code --set} or {@code --print-config}.
     */
    public CommandSpec mixin() {
        CommandSpec spec = CommandSpec.create();
        for (Key<?> k : schema.keys()) {
            if (k.flag() != null) {
                spec.addOption(keyFlag(k));
            }
        }
        extra.forEach(spec::addOption);
        return spec;
    }

    void addTo(CommandSpec spec) {
        spec.addOption(
                OptionSpec.builder("--config")
                        .arity("1")
                        .paramLabel("FILE")
                        .type(String.class)
                        .description(
                                "YAML file with any of the keys (nested or dotted; a .properties"
                                        + " file also works; unknown keys are errors).")
                        .setter(setter(v -> configFile = Path.of((String) v)))
                        .build());
        for (Key<?> k : schema.keys()) {
            if (k.flag() != null) {
                spec.addOption(keyFlag(k));
            }
        }
        extra.forEach(spec::addOption);
        spec.addOption(
                OptionSpec.builder("--set")
                        .arity("1")
                        .paramLabel("KEY=VALUE")
                        .type(String.class)
                        .description(
                                "Set any key of the README table (repeatable; lists"
                                        + " comma-separated).")
                        .setter(setter(v -> setPair((String) v)))
                        .build());
        if (keyFlags) {
            spec.addPositional(
                    PositionalParamSpec.builder()
                            .arity("0..*")
                            .paramLabel("--KEY VALUE")
                            .type(List.class)
                            .auxiliaryTypes(String.class)
                            .description(
                                    "Any key, as --KEY VALUE or --KEY=VALUE (the same as --set"
                                            + " KEY=VALUE)"
                                            + (passThrough
                                                    ? "; keys that are not "
                                                            + schema.root()
                                                            + " keys are passed on."
                                                    : "."))
                            .getter(
                                    new IGetter() {
                                        @Override
                                        @SuppressWarnings("unchecked")
                                        public <T> T get() {
                                            return (T) keyArgs;
                                        }
                                    })
                            .setter(
                                    setter(
                                            v -> {
                                                // picocli adds to the list it got and sets it
                                                // back; a fresh list replaces what is kept.
                                                if (v != keyArgs) {
                                                    keyArgs.clear();
                                                    for (Object o : (List<?>) v) {
                                                        keyArgs.add(String.valueOf(o));
                                                    }
                                                }
                                            }))
                            .build());
        }
        spec.addOption(
                OptionSpec.builder("--print-config")
                        .arity("0")
                        .type(boolean.class)
                        .description("Print every key's resolved value and its source, then exit.")
                        .setter(setter(v -> printConfig |= Boolean.TRUE.equals(v)))
                        .build());
    }

    private OptionSpec keyFlag(Key<?> k) {
        String flag = k.flag();
        if (k.type() == Types.BOOLEAN) {
            // A boolean key's flag is a switch that sets it to true.
            return OptionSpec.builder(flag)
                    .arity("0")
                    .type(boolean.class)
                    .description(escape(firstSentence(k.doc()) + " Key " + k.name() + "."))
                    .setter(
                            setter(
                                    v -> {
                                        if (Boolean.TRUE.equals(v)) {
                                            seen.add(flag);
                                            set(k, "true", flag);
                                        }
                                    }))
                    .build();
        }
        boolean list = k.type().repeatable();
        String doc = firstSentence(k.doc());
        String description =
                doc
                        + (list ? " Repeatable." : "")
                        + " Default: "
                        + k.defaultText()
                        + "."
                        + (k.envAlias() == null ? "" : " Environment " + k.envAlias() + ".")
                        + " Key "
                        + k.name()
                        + ".";
        return OptionSpec.builder(flag)
                .arity("1")
                .paramLabel(k.flagLabel())
                .type(String.class)
                .description(escape(description))
                .setter(
                        setter(
                                v -> {
                                    seen.add(flag);
                                    if (list) {
                                        appendTo(k, flag, (String) v);
                                    } else {
                                        set(k, (String) v, flag);
                                    }
                                }))
                .build();
    }

    @SuppressWarnings("unchecked")
    private void appendTo(Key<?> key, String flag, String value) {
        for (Given g : given) {
            if (g.key() == key && g.origin().equals(flag) && g.value() instanceof List<?> l) {
                ((List<String>) l).add(value);
                return;
            }
        }
        List<String> values = new ArrayList<>();
        values.add(value);
        given.add(new Given(key, null, values, flag));
    }

    private void setPair(String pair) {
        int eq = pair.indexOf('=');
        if (eq <= 0) {
            // Reported by resolver(): picocli would wrap an exception thrown here.
            given.add(new Given(null, pair, null, "--set"));
            return;
        }
        given.add(new Given(null, pair.substring(0, eq).trim(), pair.substring(eq + 1), "--set"));
    }

    private static ISetter setter(java.util.function.Consumer<Object> action) {
        return new ISetter() {
            @Override
            public <T> T set(T value) {
                // picocli resets options to their initial value (null, false) before parsing.
                if (value != null && !Boolean.FALSE.equals(value)) {
                    action.accept(value);
                }
                return null;
            }
        };
    }

    private static String firstSentence(String doc) {
        // A sentence ends at a full stop before a capital letter ("e.g. 10.0.0.0/8" goes on).
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("\\.\\s+(?=[A-Z])").matcher(doc);
        return m.find() ? doc.substring(0, m.start() + 1) : doc;
    }

    private static String escape(String text) {
        return text.replace("%", "%%");
    }
}
