// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * How a key's value is read from text (flags, environment) or from a YAML node, and written back
 * for documentation. Parse failures throw {@link IllegalArgumentException} with a fragment in the
 * codec's style, {@code "(expected: 1..64)"}; {@link ConfigResolver} adds the key and the source.
 *
 * @param <T> the Java type the component's record holds
 */
public interface ValueType<T> {

    /** What the docs' type column shows, such as {@code integer 1..64} or {@code duration}. */
    String describe();

    /** Parses text from a flag, an environment variable or a YAML scalar. */
    T parse(String text);

    /** Reads a YAML node (scalar, list or mapping); scalars go through {@link #parse}. */
    default T fromTree(Object node) {
        if (node instanceof Map<?, ?> || node instanceof List<?>) {
            throw new IllegalArgumentException("(expected: " + describe() + ")");
        }
        return parse(String.valueOf(node));
    }

    /** Text that {@link #parse} reads back to {@code value}: help, docs and --print-config. */
    default String format(T value) {
        return String.valueOf(value);
    }

    /** A YAML value that reads back to {@code value}, for the generated example file. */
    default Object toTree(T value) {
        return format(value);
    }

    /** Whether a repeated named flag appends (lists) rather than replaces. */
    default boolean repeatable() {
        return false;
    }

    /** A type from a parser and a formatter, for values only one component has. */
    static <T> ValueType<T> of(
            String describe, Function<String, T> parse, Function<T, String> format) {
        return new ValueType<>() {
            @Override
            public String describe() {
                return describe;
            }

            @Override
            public T parse(String text) {
                return parse.apply(text);
            }

            @Override
            public String format(T value) {
                return format.apply(value);
            }
        };
    }
}
