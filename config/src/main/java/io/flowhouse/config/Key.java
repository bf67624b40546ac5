// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * One configuration key, declared once: name, type, default, doc, validation, whether it is a
 * secret, and the named command-line flag if it has one. Immutable; each builder method returns a
 * copy, so keys are declared as constants:
 *
 * <pre>{@code
 * static final Key<Integer> SOCKETS =
 *         Key.of("udp.sockets-per-listener", Types.integer(1, 64))
 *                 .defaultValue(4)
 *                 .doc("Sockets bound to each address with SO_REUSEPORT.");
 * }</pre>
 *
 * <p>The name is relative to its {@link ConfigSchema}'s root and is hierarchical kebab-case. A key
 * without a default is optional: its value is {@code null} until a source sets it.
 *
 * @param <T> the value's Java type
 */
public final class Key<T> {

    private static final Pattern NAME =
            Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*(\\.[a-z0-9]+(-[a-z0-9]+)*)*");

    private final String name;
    private final ValueType<T> type;
    private final T defaultValue;
    private final Supplier<T> computedDefault;
    private final String defaultText;
    private final String doc;
    private final List<Check<T>> checks;
    private final boolean secret;
    private final String flag;
    private final String flagLabel;
    private final String env;

    private record Check<T>(Predicate<T> test, String expected) {}

    private Key(
            String name,
            ValueType<T> type,
            T defaultValue,
            Supplier<T> computedDefault,
            String defaultText,
            String doc,
            List<Check<T>> checks,
            boolean secret,
            String flag,
            String flagLabel,
            String env) {
        this.name = name;
        this.type = type;
        this.defaultValue = defaultValue;
        this.computedDefault = computedDefault;
        this.defaultText = defaultText;
        this.doc = doc;
        this.checks = List.copyOf(checks);
        this.secret = secret;
        this.flag = flag;
        this.flagLabel = flagLabel;
        this.env = env;
    }

    /** Declares a key with no default, doc or checks yet. */
    public static <T> Key<T> of(String name, ValueType<T> type) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "key " + name + " (expected: hierarchical kebab-case, a.b-c)");
        }
        return new Key<>(
                name,
                Objects.requireNonNull(type),
                null,
                null,
                null,
                "",
                List.of(),
                false,
                null,
                null,
                null);
    }

    /** The value when no source sets the key. */
    public Key<T> defaultValue(T value) {
        return new Key<>(name, type, value, null, null, doc, checks, secret, flag, flagLabel, env);
    }

    /**
     * A default computed when the configuration is resolved (host name, number of cores); {@code
     * text} is what the docs show for it.
     */
    public Key<T> defaultComputed(Supplier<T> value, String text) {
        return new Key<>(name, type, null, value, text, doc, checks, secret, flag, flagLabel, env);
    }

    /** Docs for an optional key's missing value ({@code "none: UDP only"}). */
    public Key<T> defaultText(String text) {
        return new Key<>(
                name,
                type,
                defaultValue,
                computedDefault,
                text,
                doc,
                checks,
                secret,
                flag,
                flagLabel,
                env);
    }

    /** What the key is for, in sentences; shown in help, the README table and the YAML file. */
    public Key<T> doc(String text) {
        return new Key<>(
                name,
                type,
                defaultValue,
                computedDefault,
                defaultText,
                text,
                checks,
                secret,
                flag,
                flagLabel,
                env);
    }

    /** A rule beyond the type's own; {@code expected} completes {@code "(expected: ...)"}. */
    public Key<T> check(Predicate<T> test, String expected) {
        List<Check<T>> more = new ArrayList<>(checks);
        more.add(new Check<>(test, expected));
        return new Key<>(
                name,
                type,
                defaultValue,
                computedDefault,
                defaultText,
                doc,
                more,
                secret,
                flag,
                flagLabel,
                env);
    }

    /**
     * Marks a secret: it is read only from the file and the environment (never a flag, which other
     * users see in the process list), and never logged or printed.
     */
    public Key<T> secret() {
        if (flag != null) {
            throw new IllegalStateException("secret key " + name + " cannot have a flag");
        }
        return new Key<>(
                name,
                type,
                defaultValue,
                computedDefault,
                defaultText,
                doc,
                checks,
                true,
                null,
                null,
                env);
    }

    /** A named command-line flag ({@code --listen}) that sets this key. */
    public Key<T> flag(String flagName, String label) {
        if (secret) {
            throw new IllegalStateException("secret key " + name + " cannot have a flag");
        }
        if (!flagName.startsWith("-")) {
            throw new IllegalArgumentException("flag " + flagName + " (expected: --name)");
        }
        return new Key<>(
                name,
                type,
                defaultValue,
                computedDefault,
                defaultText,
                doc,
                checks,
                secret,
                flagName,
                label,
                env);
    }

    /**
     * The environment variable that sets this key, instead of the one derived from its full name:
     * for names that predate the schema ({@code FLOWHOUSE_KAFKA_PORT}).
     */
    public Key<T> env(String variable) {
        if (!variable.matches("[A-Z][A-Z0-9_]*")) {
            throw new IllegalArgumentException("environment variable " + variable);
        }
        return new Key<>(
                name,
                type,
                defaultValue,
                computedDefault,
                defaultText,
                doc,
                checks,
                secret,
                flag,
                flagLabel,
                variable);
    }

    public String name() {
        return name;
    }

    /** The environment variable given by {@link #env(String)}, or null for the derived one. */
    public String envAlias() {
        return env;
    }

    public ValueType<T> type() {
        return type;
    }

    public String doc() {
        return doc;
    }

    public boolean isSecret() {
        return secret;
    }

    /** The named flag, or null. */
    public String flag() {
        return flag;
    }

    /** The flag's parameter label ({@code HOST:PORT}). */
    public String flagLabel() {
        return flagLabel == null ? "VALUE" : flagLabel;
    }

    /** The default: fixed, computed now, or null for an optional key. */
    public T defaultValue() {
        return computedDefault != null ? computedDefault.get() : defaultValue;
    }

    /** The default as the docs show it. */
    public String defaultText() {
        if (defaultText != null) {
            return defaultText;
        }
        if (defaultValue == null) {
            return "none";
        }
        if (secret) {
            return "(secret)";
        }
        String s = type.format(defaultValue);
        return s.isEmpty() ? "\"\"" : s;
    }

    /** Whether the default is a fixed value the YAML example can show. */
    public boolean hasFixedDefault() {
        return computedDefault == null && defaultValue != null;
    }

    /** Reads and checks a YAML node or text. */
    T read(Object node) {
        T value = node instanceof String s ? type.parse(s) : type.fromTree(node);
        for (Check<T> c : checks) {
            if (!c.test().test(value)) {
                throw new IllegalArgumentException("(expected: " + c.expected() + ")");
            }
        }
        return value;
    }

    @Override
    public String toString() {
        return name;
    }
}
