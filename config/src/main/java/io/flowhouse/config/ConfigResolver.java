// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Resolves a {@link ConfigSchema} from layered sources. Whatever order the sources are added in,
 * they apply as: defaults, then files (in the order given), then the environment (a blank variable
 * counts as unset), then {@link #recorded} values, then flags (in command-line order). A later
 * source replaces a key's value, except properties maps, which merge by property name.
 *
 * <p>Every mistake fails with a {@link ConfigException} that names the key and the source: an
 * unknown key in a file (a typo must not silently leave a default in place), a value of the wrong
 * type or out of range, a secret given as a flag. Unknown environment variables are ignored: the
 * environment is shared with everything else on the host.
 */
public final class ConfigResolver {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private record Raw(Key<?> key, String entry, Object node, String origin) {}

    private final ConfigSchema schema;
    private final List<Raw> files = new ArrayList<>();
    private final List<Raw> recorded = new ArrayList<>();
    private final List<Raw> flags = new ArrayList<>();
    private Map<String, String> env = Map.of();
    private final Map<String, String> foreign = new LinkedHashMap<>();
    private boolean passThrough;

    private ConfigResolver(ConfigSchema schema) {
        this.schema = schema;
    }

    public static ConfigResolver of(ConfigSchema schema) {
        return new ConfigResolver(schema);
    }

    public ConfigSchema schema() {
        return schema;
    }

    /**
     * Keeps keys that are not this schema's (see {@link ConfigSchema#owns}) as text in {@link
     * Config#foreign()} instead of failing: the job's file and flags also carry Flink's own keys
     * ({@code execution.checkpointing.dir}), which go to Flink's {@code Configuration} unchanged.
     * Unknown keys under the schema's own names still fail.
     */
    public ConfigResolver passThroughForeignKeys() {
        this.passThrough = true;
        return this;
    }

    /**
     * Adds a YAML file (nested or flat dotted keys, relative to the root or in full), or a Java
     * properties file when its name ends in {@code .properties} (dotted keys; lists separated by
     * {@code ,} or {@code ;}).
     */
    public ConfigResolver file(Path path) {
        String text;
        try {
            text = Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + path + ": " + e, e);
        }
        if (path.getFileName() != null && path.getFileName().toString().endsWith(".properties")) {
            return properties(text, path.toString());
        }
        return yaml(text, path.toString());
    }

    /** Adds the text of a Java properties file; {@code origin} names it in messages. */
    public ConfigResolver properties(String text, String origin) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException("config " + origin + ": not a properties file: " + e, e);
        }
        Map<String, Object> flat = new TreeMap<>();
        for (String name : p.stringPropertyNames()) {
            flat.put(name, p.getProperty(name));
        }
        walk("", flat, origin);
        return this;
    }

    /** Adds a YAML document; {@code origin} names it in messages. */
    public ConfigResolver yaml(String text, String origin) {
        Object root;
        try {
            root = YAML.readValue(text, Object.class);
        } catch (JsonProcessingException e) {
            throw new ConfigException(
                    "config " + origin + ": not YAML: " + e.getOriginalMessage(), e);
        }
        if (root == null) {
            return this;
        }
        if (!(root instanceof Map<?, ?> top)) {
            throw new ConfigException("config " + origin + ": expected a mapping at the top level");
        }
        walk("", top, origin);
        return this;
    }

    private void walk(String prefix, Map<?, ?> map, String origin) {
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String name = prefix + e.getKey();
            Object node = e.getValue();
            Key<?> key = schema.find(name);
            if (key != null) {
                if (node != null) {
                    files.add(new Raw(key, null, node, origin));
                }
            } else if (schema.propertiesOwner(name) != null) {
                Key<?> owner = schema.propertiesOwner(name);
                String entry = schema.relative(name).substring(owner.name().length() + 1);
                if (node instanceof Map<?, ?> m) {
                    files.add(new Raw(owner, null, Map.of(entry, m), origin));
                } else if (node != null) {
                    files.add(new Raw(owner, entry, node, origin));
                }
            } else if (passThrough && !schema.owns(name)) {
                if (node instanceof Map<?, ?> m) {
                    Map<String, String> flat = Types.PROPERTIES.fromTree(m);
                    flat.forEach((k, v) -> foreign.put(name + "." + k, v));
                } else if (node instanceof List<?> l) {
                    // Flink's own list syntax.
                    foreign.put(name, String.join(";", l.stream().map(String::valueOf).toList()));
                } else if (node != null) {
                    foreign.put(name, String.valueOf(node));
                }
            } else if (schema.isSection(name)) {
                if (node instanceof Map<?, ?> m) {
                    walk(name + ".", m, origin);
                } else if (node != null) {
                    throw new ConfigException(
                            "config " + name + ": expected a mapping, in " + origin);
                }
            } else {
                throw new ConfigException(
                        "config: unknown key "
                                + name
                                + " in "
                                + origin
                                + " (expected: a key of "
                                + schema.root()
                                + ")");
            }
        }
    }

    /** The environment to read {@link ConfigSchema#envName} variables from. */
    public ConfigResolver env(Map<String, String> environment) {
        this.env = Map.copyOf(environment);
        return this;
    }

    /**
     * Adds a command-line value for a key by name ({@code --set name=value}); {@code value} is text
     * or, for a repeated list flag, a list of texts.
     */
    public ConfigResolver flag(String name, Object value, String origin) {
        Key<?> key = schema.find(name);
        if (key == null) {
            if (passThrough && !schema.owns(name)) {
                foreign.put(name, String.valueOf(value));
                return this;
            }
            Key<?> owner = schema.propertiesOwner(name);
            if (owner != null) {
                String entry = schema.relative(name).substring(owner.name().length() + 1);
                flags.add(new Raw(owner, entry, value, origin));
                return this;
            }
            throw new ConfigException(
                    origin
                            + ": unknown key "
                            + name
                            + " (expected: a key of "
                            + schema.root()
                            + ")");
        }
        return flag(key, value, origin);
    }

    /** Adds a command-line value for a key. */
    public ConfigResolver flag(Key<?> key, Object value, String origin) {
        if (key.isSecret()) {
            throw new ConfigException(
                    origin
                            + ": "
                            + key.name()
                            + " is a secret (expected: in the config file or the environment as "
                            + schema.envName(key)
                            + ", never on the command line)");
        }
        if (schema.find(key.name()) != key) {
            throw new IllegalArgumentException("key " + key + " is not in " + schema.root());
        }
        flags.add(new Raw(key, null, value, origin));
        return this;
    }

    /**
     * Adds a value that a running component recorded for those that come after it (the ports of the
     * local services that {@code up} started): over the environment, under flags.
     */
    public ConfigResolver recorded(Key<?> key, Object value, String origin) {
        if (schema.find(key.name()) != key) {
            throw new IllegalArgumentException("key " + key + " is not in " + schema.root());
        }
        recorded.add(new Raw(key, null, value, origin));
        return this;
    }

    /** Applies the layers. */
    public Config resolve() {
        Map<Key<?>, Config.Setting> settings = new LinkedHashMap<>();
        for (Key<?> k : schema.keys()) {
            settings.put(k, new Config.Setting(k.defaultValue(), "default"));
        }
        for (Raw r : files) {
            apply(settings, r);
        }
        for (Key<?> k : schema.keys()) {
            String name = schema.envName(k);
            String text = env.get(name);
            if ((text == null || text.isBlank())
                    && k.isSecret()
                    && env.get(name + "_FILE") != null
                    && !env.get(name + "_FILE").isBlank()) {
                Path file = Path.of(env.get(name + "_FILE"));
                try {
                    text = Files.readString(file, StandardCharsets.UTF_8).strip();
                } catch (IOException e) {
                    throw new ConfigException(
                            k.name() + ": cannot read " + file + " (from env " + name + "_FILE)",
                            e);
                }
                name = name + "_FILE";
            }
            if (text != null && !text.isBlank()) {
                apply(settings, new Raw(k, null, text, "env " + name));
            }
        }
        for (Raw r : recorded) {
            apply(settings, r);
        }
        for (Raw r : flags) {
            apply(settings, r);
        }
        return new Config(schema, settings, foreign);
    }

    @SuppressWarnings("unchecked")
    private void apply(Map<Key<?>, Config.Setting> settings, Raw raw) {
        Key<?> key = raw.key();
        Object value;
        try {
            value = raw.entry() == null ? key.read(raw.node()) : String.valueOf(raw.node());
        } catch (IllegalArgumentException e) {
            String fragment =
                    e.getMessage() == null
                            ? "(expected: " + key.type().describe() + ")"
                            : e.getMessage();
            String shown =
                    key.isSecret()
                            ? "******"
                            : raw.node() instanceof List<?> l && raw.origin().startsWith("-")
                                    ? String.join(" ", l.stream().map(String::valueOf).toList())
                                    : String.valueOf(raw.node());
            String detail = (fragment.startsWith("(") ? " " : ": ") + fragment;
            String message;
            if (raw.origin().equals("--set")) {
                message = "--set " + key.name() + "=" + shown + detail;
            } else if (raw.origin().startsWith("-")) {
                // Echo the flag as the user wrote it, then name the key it sets.
                message = raw.origin() + " " + shown + detail + ", key " + key.name();
            } else {
                message =
                        "config " + key.name() + " = " + shown + detail + ", from " + raw.origin();
            }
            throw new ConfigException(message, e);
        }
        if (key.type() instanceof Types.PropertiesType) {
            Map<String, String> merged = new LinkedHashMap<>();
            Config.Setting before = settings.get(key);
            if (before.value() != null) {
                merged.putAll((Map<String, String>) before.value());
            }
            if (raw.entry() != null) {
                merged.put(raw.entry(), (String) value);
            } else {
                merged.putAll((Map<String, String>) value);
            }
            value = Map.copyOf(merged);
        }
        settings.put(key, new Config.Setting(value, raw.origin()));
    }
}
