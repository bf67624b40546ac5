// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config.docs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.Key;
import io.flowhouse.config.ValueType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders a schema's documentation from its declarations, so that docs cannot drift from code: a
 * Markdown key table between markers in a README, and an example YAML file with every key.
 *
 * <p>Each module has a test that calls {@link #check}; it fails when a generated block differs from
 * the declarations. To regenerate, run that test with {@code -Dconfig.docs.update=true}, for
 * example {@code mvn test -pl capture-agent -Dtest=ConfigDocsTest -Dconfig.docs.update=true}.
 */
public final class ConfigDocs {

    /** System property that makes {@link #check} rewrite the files instead of failing. */
    public static final String UPDATE_PROPERTY = "config.docs.update";

    private static final ObjectMapper JSON = new ObjectMapper();

    private ConfigDocs() {}

    /** The opening marker of a schema's table: {@code <!-- config-keys:flowhouse.agent -->}. */
    public static String beginMarker(ConfigSchema schema) {
        return "<!-- config-keys:" + schema.root() + " -->";
    }

    public static String endMarker(ConfigSchema schema) {
        return "<!-- /config-keys:" + schema.root() + " -->";
    }

    /** The Markdown table (key, type, default, description) with a line on the other sources. */
    public static String markdownTable(ConfigSchema schema) {
        return markdownTable(schema, schema.keys());
    }

    /**
     * The table of some of a schema's keys, for a README that documents one part of a component
     * (the job's rollup keys in the rollups README).
     */
    public static String markdownTable(ConfigSchema schema, List<Key<?>> keys) {
        StringBuilder sb = new StringBuilder();
        if (!keys.isEmpty() && keys.stream().allMatch(k -> k.envAlias() != null)) {
            sb.append("Generated from the key declarations; do not edit by hand. Each key is also")
                    .append(" read from its environment\nvariable (below).")
                    .append(" Precedence: defaults < file < environment < flags.\n\n");
        } else {
            sb.append("Generated from the key declarations; do not edit by hand. Every key can")
                    .append(" also be set with `--set KEY=VALUE`\nor the environment variable `")
                    .append(schema.envPrefix())
                    .append("` + the key in upper case with `.` and `-` as `_`\n(`")
                    .append(schema.envName(example(schema, keys)))
                    .append("`). Precedence: defaults < file < environment < flags.\n\n");
        }
        sb.append("| key | type | default | description |\n|---|---|---|---|\n");
        for (Key<?> k : keys) {
            String doc = k.doc();
            if (k.flag() != null) {
                doc += " Flag `" + k.flag() + "`.";
            }
            if (k.envAlias() != null) {
                doc += " Environment `" + k.envAlias() + "`.";
            }
            if (k.isSecret()) {
                doc += " Secret: file or environment only, never printed.";
            }
            sb.append("| `")
                    .append(k.name())
                    .append("` | ")
                    .append(cell(k.type().describe()))
                    .append(" | ")
                    .append(cell("`" + k.defaultText() + "`"))
                    .append(" | ")
                    .append(cell(doc))
                    .append(" |\n");
        }
        return sb.toString();
    }

    /**
     * An example YAML file with every key, nested by section, each with its doc as a comment. Keys
     * whose default is computed at start (host name, cores) or absent are commented out.
     */
    public static String yamlExample(ConfigSchema schema, String header) {
        StringBuilder sb = new StringBuilder(header);
        List<String> open = new ArrayList<>();
        for (Key<?> k : schema.keys()) {
            String[] parts = k.name().split("\\.");
            int common = 0;
            while (common < open.size()
                    && common < parts.length - 1
                    && open.get(common).equals(parts[common])) {
                common++;
            }
            while (open.size() > common) {
                open.remove(open.size() - 1);
            }
            for (int i = common; i < parts.length - 1; i++) {
                sb.append("  ".repeat(i)).append(parts[i]).append(":\n");
                open.add(parts[i]);
            }
            String indent = "  ".repeat(parts.length - 1);
            for (String line :
                    wrap(k.doc() + " Default: " + k.defaultText() + ".", 96 - indent.length())) {
                sb.append(indent).append("# ").append(line).append('\n');
            }
            String leaf = parts[parts.length - 1];
            if (k.hasFixedDefault() && !k.isSecret()) {
                sb.append(indent).append(leaf).append(": ").append(yamlValue(k)).append('\n');
            } else {
                sb.append(indent).append("# ").append(leaf).append(":\n");
            }
        }
        return sb.toString();
    }

    private static final java.util.regex.Pattern PLAIN =
            java.util.regex.Pattern.compile("[A-Za-z0-9_./@][A-Za-z0-9_./:@-]*");

    private static final java.util.regex.Pattern YAML_SPECIAL =
            java.util.regex.Pattern.compile(
                    "(?i)true|false|yes|no|on|off|null|~|[-+]?[0-9][0-9_.:eE+-]*");

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static String yamlValue(Key<?> k) {
        Object tree = ((ValueType) k.type()).toTree(k.defaultValue());
        if (tree instanceof Number || tree instanceof Boolean) {
            return tree.toString();
        }
        String s = String.valueOf(tree);
        if (tree instanceof String
                && PLAIN.matcher(s).matches()
                && (!YAML_SPECIAL.matcher(s).matches() || s.matches("[0-9.]+[a-zA-Z]+"))) {
            return s;
        }
        try {
            // JSON is YAML: quoted strings, and lists and maps in flow style on one line.
            return JSON.writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Compares {@code file}'s generated content with {@code expected} and returns null when equal.
     * With {@code -Dconfig.docs.update=true} it rewrites the file instead and returns null.
     *
     * @param expected the whole file's expected content (see {@link #withTable})
     * @return a message saying what is stale and how to regenerate
     */
    public static String check(Path file, String expected) {
        String actual;
        try {
            actual = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
            if (actual.equals(expected)) {
                return null;
            }
            if (Boolean.parseBoolean(System.getProperty(UPDATE_PROPERTY))) {
                Files.writeString(file, expected, StandardCharsets.UTF_8);
                return null;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file
                + " differs from the key declarations; regenerate it with -D"
                + UPDATE_PROPERTY
                + "=true (see the config module's README)";
    }

    /** {@code readme} with the text between the schema's markers replaced by its table. */
    public static String withTable(String readme, ConfigSchema schema) {
        return withTable(
                readme,
                beginMarker(schema),
                endMarker(schema),
                markdownTable(schema, schema.keys()));
    }

    /**
     * {@code readme} with the text between the markers of one part of a schema ({@code <!--
     * config-keys:flowhouse:rollup -->}) replaced by the table of {@code keys}.
     */
    public static String withTable(
            String readme, ConfigSchema schema, String part, List<Key<?>> keys) {
        String id = schema.root() + ":" + part;
        return withTable(
                readme,
                "<!-- config-keys:" + id + " -->",
                "<!-- /config-keys:" + id + " -->",
                markdownTable(schema, keys));
    }

    private static String withTable(String readme, String begin, String end, String table) {
        int b = readme.indexOf(begin);
        int e = readme.indexOf(end);
        if (b < 0 || e < b) {
            throw new IllegalArgumentException(
                    "README has no " + begin + " ... " + end + " block for the key table");
        }
        return readme.substring(0, b + begin.length()) + "\n" + table + readme.substring(e);
    }

    /** Checks (or with the update property, rewrites) the README's table for {@code schema}. */
    public static String checkReadme(Path readme, ConfigSchema schema) {
        return check(readme, withTable(read(readme), schema));
    }

    /**
     * Checks (or rewrites) the README's table of one part of {@code schema}, between {@code <!--
     * config-keys:ROOT:PART -->} and {@code <!-- /config-keys:ROOT:PART -->}.
     */
    public static String checkReadme(
            Path readme, ConfigSchema schema, String part, List<Key<?>> keys) {
        return check(readme, withTable(read(readme), schema, part, keys));
    }

    private static String read(Path readme) {
        try {
            return Files.readString(readme, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Key<?> example(ConfigSchema schema, List<Key<?>> keys) {
        return keys.stream()
                .filter(k -> k.name().contains("-") && k.envAlias() == null)
                .findFirst()
                .orElse(keys.isEmpty() ? schema.keys().get(0) : keys.get(0));
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    private static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }
}
