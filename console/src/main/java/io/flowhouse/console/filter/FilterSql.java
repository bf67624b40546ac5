// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.filter;

import io.flowhouse.console.model.Field;
import io.flowhouse.console.model.Source;
import io.flowhouse.console.sql.SqlLiteral;
import io.flowhouse.console.sql.SqlLiteral.AddressForm;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Filter} as a SQL condition on one source: the field's expression from the field table,
 * the operator from its enum, the value through {@link SqlLiteral}. A prefix becomes a {@code
 * BETWEEN} of its first and last address (byte order is address order in both column forms).
 */
public final class FilterSql {

    private FilterSql() {}

    /** The condition, {@code 1} for {@link Filter.All}. */
    public static String where(Filter f, Source source, AddressForm form) {
        if (f instanceof Filter.All) {
            return "1";
        }
        if (f instanceof Filter.And a) {
            return join(a.terms(), " AND ", source, form);
        }
        if (f instanceof Filter.Or o) {
            return join(o.terms(), " OR ", source, form);
        }
        if (f instanceof Filter.Not n) {
            return "NOT (" + where(n.term(), source, form) + ")";
        }
        if (f instanceof Filter.Compare c) {
            String column = column(c.field(), source);
            if (c.value() instanceof Filter.AddressValue a) {
                String match = address(column, a, form);
                return c.op() == Filter.Op.EQ ? match : "NOT " + match;
            }
            return "(" + column + ") " + c.op().sql() + " " + literal(c.value());
        }
        if (f instanceof Filter.In in) {
            String column = column(in.field(), source);
            List<String> parts = new ArrayList<>();
            List<String> plain = new ArrayList<>();
            for (Filter.Value v : in.values()) {
                if (v instanceof Filter.AddressValue a && a.prefix() < 128) {
                    parts.add(address(column, a, form));
                } else if (v instanceof Filter.AddressValue a) {
                    plain.add(SqlLiteral.address(a.bytes(), form));
                } else {
                    plain.add(literal(v));
                }
            }
            if (!plain.isEmpty()) {
                parts.add(0, "(" + column + ") IN (" + String.join(", ", plain) + ")");
            }
            String any = parts.size() == 1 ? parts.get(0) : "(" + String.join(" OR ", parts) + ")";
            return in.negated() ? "NOT " + any : any;
        }
        throw new IllegalStateException("unknown filter node " + f);
    }

    private static String join(List<Filter> terms, String op, Source source, AddressForm form) {
        List<String> parts = new ArrayList<>();
        for (Filter t : terms) {
            parts.add("(" + where(t, source, form) + ")");
        }
        return String.join(op, parts);
    }

    private static String column(Field field, Source source) {
        return field.column(source)
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        field.name() + " is not in source " + source));
    }

    private static String literal(Filter.Value v) {
        if (v instanceof Filter.IntValue i) {
            return SqlLiteral.integer(i.value());
        }
        if (v instanceof Filter.TextValue t) {
            return SqlLiteral.string(t.text());
        }
        throw new IllegalStateException("no literal for " + v);
    }

    /** {@code (column = addr)} or {@code (column BETWEEN first AND last)} for a prefix. */
    static String address(String column, Filter.AddressValue a, AddressForm form) {
        byte[] bytes = a.bytes();
        if (a.prefix() >= 128) {
            return "((" + column + ") = " + SqlLiteral.address(bytes, form) + ")";
        }
        byte[] first = bytes.clone();
        byte[] last = bytes.clone();
        for (int bit = a.prefix(); bit < 128; bit++) {
            int i = bit / 8;
            int mask = 0x80 >>> (bit % 8);
            first[i] = (byte) (first[i] & ~mask);
            last[i] = (byte) (last[i] | mask);
        }
        return "(("
                + column
                + ") BETWEEN "
                + SqlLiteral.address(first, form)
                + " AND "
                + SqlLiteral.address(last, form)
                + ")";
    }
}
