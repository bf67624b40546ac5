// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The keys of one component under a root such as {@code flowhouse.agent}. Keys are written relative
 * to the root in the component's own file ({@code udp.listen}) and may also be written in full
 * ({@code flowhouse.agent.udp.listen}); the environment variable is the full name in upper case
 * with {@code .} and {@code -} as {@code _} ({@code FLOWHOUSE_AGENT_UDP_LISTEN}).
 */
public final class ConfigSchema {

    private final String root;
    private final String title;
    private final Map<String, Key<?>> keys = new LinkedHashMap<>();

    private ConfigSchema(String root, String title, List<Key<?>> keys) {
        this.root = root;
        this.title = title;
        for (Key<?> k : keys) {
            if (this.keys.put(k.name(), k) != null) {
                throw new IllegalArgumentException("key " + k.name() + " declared twice");
            }
        }
        Map<String, String> envNames = new LinkedHashMap<>();
        for (Key<?> k : keys) {
            String clash = envNames.put(envName(k), k.name());
            if (clash != null) {
                throw new IllegalArgumentException(
                        "keys " + clash + " and " + k.name() + " share " + envName(k));
            }
        }
        for (String name : this.keys.keySet()) {
            for (String other : this.keys.keySet()) {
                if (other.startsWith(name + ".")
                        && !(this.keys.get(name).type() instanceof Types.PropertiesType)) {
                    // A key cannot also be a section: a YAML value there could not be both.
                    throw new IllegalArgumentException(
                            "key " + name + " is also the section of " + other);
                }
            }
        }
    }

    /**
     * @param root the full-name prefix, such as {@code flowhouse.agent}
     * @param title what the keys configure, for help and docs ({@code capture agent})
     */
    public static ConfigSchema of(String root, String title, List<Key<?>> keys) {
        return new ConfigSchema(root, title, keys);
    }

    public String root() {
        return root;
    }

    public String title() {
        return title;
    }

    /** In declaration order. */
    public List<Key<?>> keys() {
        return List.copyOf(keys.values());
    }

    public String fullName(Key<?> key) {
        return root + "." + key.name();
    }

    /**
     * {@code FLOWHOUSE_AGENT_UDP_RECEIVE_BUFFER_BYTES} for {@code udp.receive-buffer-bytes}, or the
     * key's own {@link Key#env(String) variable}.
     */
    public String envName(Key<?> key) {
        if (key.envAlias() != null) {
            return key.envAlias();
        }
        return envPrefix()
                + key.name().replace('.', '_').replace('-', '_').toUpperCase(Locale.ROOT);
    }

    /** {@code FLOWHOUSE_AGENT_}. */
    public String envPrefix() {
        return root.replace('.', '_').replace('-', '_').toUpperCase(Locale.ROOT) + "_";
    }

    /** The key a relative or full name denotes, or null. */
    public Key<?> find(String name) {
        return keys.get(relative(name));
    }

    /** Whether {@code name} is a section that holds keys ({@code udp}, {@code flowhouse}). */
    boolean isSection(String name) {
        String rel = relative(name);
        if ((root + ".").startsWith(name + ".")) {
            return true;
        }
        for (String k : keys.keySet()) {
            if (k.startsWith(rel + ".")) {
                return true;
            }
        }
        return false;
    }

    /** The properties key that {@code name} lies under ({@code kafka.properties.client.rack}). */
    Key<?> propertiesOwner(String name) {
        String rel = relative(name);
        for (Key<?> k : keys.values()) {
            if (k.type() instanceof Types.PropertiesType && rel.startsWith(k.name() + ".")) {
                return k;
            }
        }
        return null;
    }

    /**
     * Whether {@code name} is this schema's to judge: it starts with the root, or its first segment
     * is the first segment of a declared key. Other names belong to someone else (Flink's own keys
     * in the job's file) when the resolver passes them through.
     */
    boolean owns(String name) {
        if (name.equals(root)
                || name.startsWith(root + ".")
                || (root + ".").startsWith(name + ".")) {
            return true;
        }
        String first = name.split("\\.", 2)[0];
        for (String k : keys.keySet()) {
            if (k.split("\\.", 2)[0].equals(first)) {
                return true;
            }
        }
        return false;
    }

    String relative(String name) {
        return name.startsWith(root + ".") ? name.substring(root.length() + 1) : name;
    }
}
