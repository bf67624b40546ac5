// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.query;

import com.fasterxml.jackson.databind.JsonNode;
import io.flowhouse.console.filter.Filter;
import io.flowhouse.console.filter.FilterValues;
import io.flowhouse.console.model.Dimension;
import io.flowhouse.console.model.Field;
import io.flowhouse.console.model.FieldType;
import io.flowhouse.console.model.Source;
import io.flowhouse.console.sql.SqlLiteral;
import io.flowhouse.console.sql.SqlLiteral.AddressForm;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The key columns of one or more dimensions on a source: what to select and group by, how a key
 * read back becomes typed literals again (for {@code IN}), its label and its filter text (for
 * drill-down links).
 */
final class Keys {

    private final List<Field> fields = new ArrayList<>();
    private final List<String> aliases = new ArrayList<>();
    private final Source source;
    private final AddressForm form;
    private Map<Long, String> asNames = Map.of();

    Keys(List<Dimension> dims, Source source, AddressForm form) {
        this.source = source;
        this.form = form;
        int i = 0;
        for (Dimension d : dims) {
            for (Field f : d.fields()) {
                fields.add(f);
                aliases.add("k" + i++);
            }
        }
    }

    int size() {
        return fields.size();
    }

    Field field(int i) {
        return fields.get(i);
    }

    /** {@code expr AS k0, expr AS k1}: addresses as text. */
    String select() {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < fields.size(); i++) {
            parts.add(display(fields.get(i)) + " AS " + aliases.get(i));
        }
        return String.join(", ", parts);
    }

    /** {@code k0, k1}. */
    String groupBy() {
        return String.join(", ", aliases);
    }

    private String column(Field f) {
        return f.column(source).orElseThrow();
    }

    private String display(Field f) {
        String c = column(f);
        if (f.type() == FieldType.ADDRESS) {
            return form == AddressForm.FIXED_STRING
                    ? "IPv6NumToString(" + c + ")"
                    : "toString(" + c + ")";
        }
        return c;
    }

    /** {@code (c0, c1) IN ((v, v), ...)} for keys read back from {@link #select()}. */
    String in(List<JsonNode> rows) {
        List<String> tuples = new ArrayList<>();
        for (JsonNode row : rows) {
            List<String> values = new ArrayList<>();
            for (int i = 0; i < fields.size(); i++) {
                values.add(literal(fields.get(i), row.get(i)));
            }
            tuples.add(values.size() == 1 ? values.get(0) : "(" + String.join(", ", values) + ")");
        }
        List<String> columns = new ArrayList<>();
        for (Field f : fields) {
            columns.add(column(f));
        }
        String lhs = columns.size() == 1 ? columns.get(0) : "(" + String.join(", ", columns) + ")";
        return lhs + " IN (" + String.join(", ", tuples) + ")";
    }

    /** A value the server returned, as a literal of the field's type (never spliced as text). */
    String literal(Field f, JsonNode value) {
        return switch (f.type()) {
            case INTEGER -> SqlLiteral.integer(Long.parseLong(value.asText()));
            case STRING -> SqlLiteral.string(value.asText());
            case ADDRESS -> {
                Filter.Value v = FilterValues.address(f, value.asText(), 0);
                yield SqlLiteral.address(((Filter.AddressValue) v).bytes(), form);
            }
        };
    }

    /** The key of a row as JSON-friendly text values. */
    List<String> values(JsonNode row, int offset) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < fields.size(); i++) {
            out.add(text(fields.get(i), row.get(offset + i)));
        }
        return out;
    }

    static String text(Field f, JsonNode value) {
        String t = value.asText();
        if (f.type() == FieldType.ADDRESS && t.startsWith("::ffff:") && t.indexOf('.') > 0) {
            return t.substring(7);
        }
        return t;
    }

    /** The AS numbers in these keys' AS fields (0 is no AS and has no name). */
    Set<Long> asNumbers(Collection<List<String>> keyValues) {
        Set<Long> out = new TreeSet<>();
        for (List<String> values : keyValues) {
            for (int i = 0; i < fields.size(); i++) {
                String name = fields.get(i).name();
                if ((name.equals("SrcAS") || name.equals("DstAS")) && !values.get(i).equals("0")) {
                    out.add(Long.parseLong(values.get(i)));
                }
            }
        }
        return out;
    }

    /** Names for the labels of AS numbers ({@code as_names}). */
    void asNames(Map<Long, String> names) {
        this.asNames = Map.copyOf(names);
    }

    /** What the page shows for a key: {@code 10.0.0.1 · if 3}, {@code tcp/443}. */
    String label(List<String> values, int from, int to) {
        List<String> parts = new ArrayList<>();
        boolean service = to - from == 2 && fields.get(from).name().equals("Proto");
        for (int i = from; i < to; i++) {
            Field f = fields.get(i);
            String v = values.get(i);
            String word =
                    f.type() == FieldType.INTEGER && !f.words().isEmpty()
                            ? f.wordOf(Long.parseLong(v)).orElse(v)
                            : v;
            switch (f.name()) {
                case "InIf", "OutIf" -> parts.add("if " + v);
                case "SrcAS", "DstAS" -> {
                    String name = asNames.get(Long.parseLong(v));
                    parts.add(name == null || name.isEmpty() ? "AS" + v : "AS" + v + " " + name);
                }
                default -> parts.add(word);
            }
        }
        return String.join(service ? "/" : " · ", parts);
    }

    /** The filter that selects a key: {@code Exporter = 10.0.0.1 AND InIf = 3}. */
    String filter(List<String> values, int from, int to) {
        List<String> parts = new ArrayList<>();
        for (int i = from; i < to; i++) {
            Field f = fields.get(i);
            String v = values.get(i);
            parts.add(
                    f.name()
                            + " = "
                            + (f.type() == FieldType.STRING
                                    ? "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
                                    : v));
        }
        return String.join(" AND ", parts);
    }
}
