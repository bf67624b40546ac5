// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A resolved configuration: every key of a schema with its value and the source that set it.
 * Components turn it into their own immutable record right away; nothing else holds a {@code
 * Config}.
 */
public final class Config {

    /** Where a value came from: {@code default}, a file, an environment variable or a flag. */
    public record Setting(Object value, String origin) {}

    private final ConfigSchema schema;
    private final Map<Key<?>, Setting> settings;
    private final Map<String, String> foreign;

    Config(ConfigSchema schema, Map<Key<?>, Setting> settings, Map<String, String> foreign) {
        this.schema = schema;
        this.settings = Collections.unmodifiableMap(settings);
        this.foreign = Map.copyOf(foreign);
    }

    /**
     * Keys that belong to someone else, passed through as text when the resolver was asked to
     * ({@link ConfigResolver#passThroughForeignKeys}); empty otherwise.
     */
    public Map<String, String> foreign() {
        return foreign;
    }

    public ConfigSchema schema() {
        return schema;
    }

    /** The value, or null for an optional key that no source set. */
    @SuppressWarnings("unchecked")
    public <T> T get(Key<T> key) {
        Setting s = settings.get(key);
        if (s == null) {
            throw new IllegalArgumentException("key " + key.name() + " is not in " + schema.root());
        }
        return (T) s.value();
    }

    /** Whether a file, the environment or a flag set the key. */
    public boolean isSet(Key<?> key) {
        return !"default".equals(origin(key));
    }

    /** {@code default}, {@code file agent.yaml}, {@code env FLOWHOUSE_...} or {@code flag --x}. */
    public String origin(Key<?> key) {
        return settings.get(key).origin();
    }

    /**
     * One line per key, {@code name = value # origin}, secrets masked: what {@code --print-config}
     * shows.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        for (Key<?> k : schema.keys()) {
            Setting s = settings.get(k);
            String value;
            if (s.value() == null) {
                value = "(none)";
            } else if (k.isSecret()) {
                value = "******";
            } else {
                value = ((ValueType) k.type()).format(s.value());
            }
            lines.add(k.name() + " = " + value + "  # " + s.origin());
        }
        return lines;
    }
}
