// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.rules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads the static rules file (YAML, the format in {@code enrichment/README.md}). Strict: an
 * unknown key, a bad prefix, regular expression or value is an error naming where it is, e.g.
 * {@code exporters[1].interfaces[0].boundary: ...}.
 */
public final class StaticRulesParser {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Set<String> TOP = Set.of("exporters", "networks");
    private static final Set<String> ATTRIBUTES =
            Set.of("prefix", "name", "role", "site", "region", "tenant");
    private static final Set<String> EXPORTER = union(ATTRIBUTES, Set.of("interfaces"));
    private static final Set<String> RULE =
            Set.of(
                    "if-index",
                    "description-match",
                    "name",
                    "description",
                    "speed",
                    "boundary",
                    "provider",
                    "connectivity");

    private StaticRulesParser() {}

    /** Parses {@code path}; an empty file is empty rules. */
    public static StaticRules read(Path path) throws IOException {
        return parse(Files.readString(path));
    }

    /**
     * @throws IllegalArgumentException naming the place of the first error
     */
    public static StaticRules parse(String yaml) throws IOException {
        JsonNode root = YAML.readTree(yaml);
        if (root == null || root.isMissingNode() || root.isNull()) {
            return StaticRules.EMPTY;
        }
        if (!root.isObject()) {
            throw new IllegalArgumentException("top level: a map with exporters, networks");
        }
        keys(root, TOP, "top level");
        List<Map.Entry<Prefix, ExporterEntry>> exporters = new ArrayList<>();
        int i = 0;
        for (JsonNode e : list(root, "exporters")) {
            String where = "exporters[" + i++ + "]";
            keys(e, EXPORTER, where);
            List<InterfaceRule> rules = new ArrayList<>();
            int j = 0;
            for (JsonNode r : list(e, "interfaces")) {
                rules.add(rule(r, where + ".interfaces[" + j++ + "]"));
            }
            exporters.add(
                    new SimpleEntry<>(prefix(e, where), new ExporterEntry(attributes(e), rules)));
        }
        List<Map.Entry<Prefix, Attributes>> networks = new ArrayList<>();
        i = 0;
        for (JsonNode n : list(root, "networks")) {
            String where = "networks[" + i++ + "]";
            keys(n, ATTRIBUTES, where);
            networks.add(new SimpleEntry<>(prefix(n, where), attributes(n)));
        }
        return StaticRules.of(exporters, networks);
    }

    private static InterfaceRule rule(JsonNode r, String where) {
        keys(r, RULE, where);
        long ifIndex = -1;
        if (r.has("if-index")) {
            ifIndex = number(r.get("if-index"), where + ".if-index", 0, 0xFFFF_FFFFL);
        }
        Pattern match = null;
        if (r.has("description-match")) {
            try {
                match = Pattern.compile(text(r, "description-match"));
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException(
                        where + ".description-match: " + e.getDescription(), e);
            }
        }
        long speed = r.has("speed") ? number(r.get("speed"), where + ".speed", 0, 1L << 40) : -1;
        Boundary boundary = null;
        if (r.has("boundary")) {
            try {
                boundary = Boundary.of(text(r, "boundary"));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + "." + e.getMessage(), e);
            }
        }
        return new InterfaceRule(
                ifIndex,
                match,
                text(r, "name"),
                text(r, "description"),
                speed,
                boundary,
                text(r, "provider"),
                text(r, "connectivity"));
    }

    private static Attributes attributes(JsonNode n) {
        return new Attributes(
                text(n, "name"),
                text(n, "role"),
                text(n, "site"),
                text(n, "region"),
                text(n, "tenant"));
    }

    private static Prefix prefix(JsonNode n, String where) {
        if (!n.has("prefix")) {
            throw new IllegalArgumentException(where + ": prefix missing (e.g. 192.0.2.0/24)");
        }
        try {
            return Prefix.parse(n.get("prefix").asText());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ".prefix: " + e.getMessage(), e);
        }
    }

    private static Iterable<JsonNode> list(JsonNode n, String key) {
        JsonNode v = n.get(key);
        if (v == null || v.isNull()) {
            return List.of();
        }
        if (!v.isArray()) {
            throw new IllegalArgumentException(key + ": a list");
        }
        return v;
    }

    private static String text(JsonNode n, String key) {
        JsonNode v = n.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isValueNode()) {
            throw new IllegalArgumentException(key + ": a text value");
        }
        return v.asText();
    }

    private static long number(JsonNode v, String where, long min, long max) {
        if (!v.canConvertToLong() || !v.isIntegralNumber()) {
            throw new IllegalArgumentException(where + ": a whole number: " + v.asText());
        }
        long x = v.asLong();
        if (x < min || x > max) {
            throw new IllegalArgumentException(
                    where + ": " + x + " (expected: " + min + ".." + max + ")");
        }
        return x;
    }

    private static void keys(JsonNode n, Set<String> allowed, String where) {
        if (!n.isObject()) {
            throw new IllegalArgumentException(where + ": a map");
        }
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!allowed.contains(k)) {
                throw new IllegalArgumentException(
                        where
                                + ": unknown key "
                                + k
                                + " (expected: "
                                + new java.util.TreeSet<>(allowed)
                                + ")");
            }
        }
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        java.util.Set<String> u = new java.util.HashSet<>(a);
        u.addAll(b);
        return Set.copyOf(u);
    }
}
