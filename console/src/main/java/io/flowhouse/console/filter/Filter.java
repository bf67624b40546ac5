// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.filter;

import io.flowhouse.console.model.Field;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * A parsed filter: typed values only (numbers, 16-byte addresses with a prefix length, text), and
 * fields from the field table. {@link FilterSql} turns it into SQL.
 */
public sealed interface Filter {

    /** Matches everything (an empty filter). */
    record All() implements Filter {}

    record And(List<Filter> terms) implements Filter {
        public And {
            terms = List.copyOf(terms);
        }
    }

    record Or(List<Filter> terms) implements Filter {
        public Or {
            terms = List.copyOf(terms);
        }
    }

    record Not(Filter term) implements Filter {}

    /** {@code field op value}. */
    record Compare(Field field, Op op, Value value) implements Filter {}

    /** {@code field [NOT] IN (values)}. */
    record In(Field field, boolean negated, List<Value> values) implements Filter {
        public In {
            values = List.copyOf(values);
        }
    }

    /** Comparison operators. */
    enum Op {
        EQ("="),
        NE("!="),
        LT("<"),
        LE("<="),
        GT(">"),
        GE(">=");

        private final String sql;

        Op(String sql) {
            this.sql = sql;
        }

        public String sql() {
            return sql;
        }
    }

    /** A typed value. */
    sealed interface Value {}

    record IntValue(long value) implements Value {}

    /**
     * An address or prefix: 16 bytes (IPv4 mapped into {@code ::ffff:0:0/96}) and the prefix length
     * over those 16 bytes (128 for one address).
     */
    record AddressValue(byte[] bytes, int prefix) implements Value {
        public AddressValue {
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }
    }

    record TextValue(String text) implements Value {}

    /** The fields this filter reads. */
    default Set<Field> fields() {
        Set<Field> out = new LinkedHashSet<>();
        visit(this, f -> out.add(f));
        return out;
    }

    /** The names of {@link #fields()}. */
    default Set<String> fieldNames() {
        return fields().stream().map(Field::name).collect(Collectors.toCollection(TreeSet::new));
    }

    private static void visit(Filter f, Consumer<Field> out) {
        if (f instanceof And a) {
            a.terms().forEach(t -> visit(t, out));
        } else if (f instanceof Or o) {
            o.terms().forEach(t -> visit(t, out));
        } else if (f instanceof Not n) {
            visit(n.term(), out);
        } else if (f instanceof Compare c) {
            out.accept(c.field());
        } else if (f instanceof In i) {
            out.accept(i.field());
        }
    }
}
