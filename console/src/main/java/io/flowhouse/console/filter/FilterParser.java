// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.filter;

import io.flowhouse.console.model.Field;
import io.flowhouse.console.model.FieldType;
import io.flowhouse.console.model.Fields;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The filter language, parsed by recursive descent into a {@link Filter}:
 *
 * <pre>
 * filter  := or
 * or      := and ( OR and )*
 * and     := unary ( AND unary )*
 * unary   := NOT unary | '(' or ')' | FIELD op value | FIELD [NOT] IN '(' value ( ',' value )* ')'
 * op      := = | != | &lt;&gt; | &lt; | &lt;= | &gt; | &gt;=
 * value   := number | word | address[/len] | 'text' | "text"
 * </pre>
 *
 * Keywords and field names are case-insensitive. Each value is parsed for its field's type at once
 * (a number in the field's range or one of its words, an address or prefix, text), so a value that
 * is not of the field's type is an error here, never SQL. Bounded: {@link Limits}.
 */
public final class FilterParser {

    /**
     * Bounds on one filter.
     *
     * @param maxLength characters
     * @param maxTerms comparisons plus values in IN lists
     * @param maxDepth nesting of parentheses and NOT
     */
    public record Limits(int maxLength, int maxTerms, int maxDepth) {
        public static final Limits DEFAULT = new Limits(2_000, 200, 16);
    }

    private final Fields fields;
    private final Limits limits;
    private List<FilterLexer.Token> tokens;
    private int pos;
    private int terms;

    public FilterParser(Fields fields, Limits limits) {
        this.fields = fields;
        this.limits = limits;
    }

    /** Parses a filter; blank text is {@link Filter.All}. */
    public Filter parse(String text) {
        if (text == null || text.isBlank()) {
            return new Filter.All();
        }
        if (text.length() > limits.maxLength()) {
            throw new FilterException(
                    "filter too long: "
                            + text.length()
                            + " characters (at most "
                            + limits.maxLength()
                            + ")",
                    limits.maxLength());
        }
        tokens = FilterLexer.tokens(text);
        pos = 0;
        terms = 0;
        Filter f = or(0);
        FilterLexer.Token t = peek();
        if (t.kind() != FilterLexer.Kind.END) {
            throw new FilterException(
                    "unexpected " + t.describe() + ": expected AND, OR or the end", t.position());
        }
        return f;
    }

    private Filter or(int depth) {
        List<Filter> terms = new ArrayList<>();
        terms.add(and(depth));
        while (keyword("OR")) {
            pos++;
            terms.add(and(depth));
        }
        return terms.size() == 1 ? terms.get(0) : new Filter.Or(terms);
    }

    private Filter and(int depth) {
        List<Filter> terms = new ArrayList<>();
        terms.add(unary(depth));
        while (keyword("AND")) {
            pos++;
            terms.add(unary(depth));
        }
        return terms.size() == 1 ? terms.get(0) : new Filter.And(terms);
    }

    private Filter unary(int depth) {
        if (depth >= limits.maxDepth()) {
            throw new FilterException(
                    "filter nested too deep (at most " + limits.maxDepth() + " levels)",
                    peek().position());
        }
        if (keyword("NOT")) {
            pos++;
            return new Filter.Not(unary(depth + 1));
        }
        FilterLexer.Token t = peek();
        if (t.kind() == FilterLexer.Kind.LPAREN) {
            pos++;
            Filter inner = or(depth + 1);
            expect(FilterLexer.Kind.RPAREN, "')'");
            return inner;
        }
        return comparison();
    }

    private Filter comparison() {
        FilterLexer.Token name = peek();
        if (name.kind() != FilterLexer.Kind.WORD) {
            throw new FilterException(
                    "expected a field name, found " + name.describe(), name.position());
        }
        Field field =
                fields.field(name.text())
                        .orElseThrow(
                                () ->
                                        new FilterException(
                                                "unknown field '"
                                                        + FilterLexer.shorten(name.text())
                                                        + "' (fields: "
                                                        + fieldList()
                                                        + ")",
                                                name.position()));
        pos++;
        boolean negated = false;
        if (keyword("NOT")) {
            negated = true;
            pos++;
            if (!keyword("IN")) {
                throw new FilterException(
                        "expected IN after " + field.name() + " NOT", peek().position());
            }
        }
        if (keyword("IN")) {
            pos++;
            expect(FilterLexer.Kind.LPAREN, "'(' after IN");
            List<Filter.Value> values = new ArrayList<>();
            values.add(value(field));
            while (peek().kind() == FilterLexer.Kind.COMMA) {
                pos++;
                values.add(value(field));
            }
            expect(FilterLexer.Kind.RPAREN, "')' or ','");
            return new Filter.In(field, negated, values);
        }
        FilterLexer.Token op = peek();
        if (op.kind() != FilterLexer.Kind.OP) {
            throw new FilterException(
                    "expected an operator (=, !=, <, <=, >, >=, IN) after "
                            + field.name()
                            + ", found "
                            + op.describe(),
                    op.position());
        }
        pos++;
        Filter.Op o = operator(op);
        if (field.type() != FieldType.INTEGER && o != Filter.Op.EQ && o != Filter.Op.NE) {
            throw new FilterException(
                    field.name() + " takes =, != and IN, not " + op.text(), op.position());
        }
        return new Filter.Compare(field, o, value(field));
    }

    private Filter.Value value(Field field) {
        FilterLexer.Token t = peek();
        if (t.kind() != FilterLexer.Kind.WORD && t.kind() != FilterLexer.Kind.TEXT) {
            throw new FilterException(
                    "expected a value for " + field.name() + ", found " + t.describe(),
                    t.position());
        }
        if (++terms > limits.maxTerms()) {
            throw new FilterException(
                    "filter too large: more than " + limits.maxTerms() + " values", t.position());
        }
        pos++;
        return FilterValues.parse(field, t.text(), t.position());
    }

    private static Filter.Op operator(FilterLexer.Token t) {
        return switch (t.text()) {
            case "=", "==" -> Filter.Op.EQ;
            case "!=", "<>" -> Filter.Op.NE;
            case "<" -> Filter.Op.LT;
            case "<=" -> Filter.Op.LE;
            case ">" -> Filter.Op.GT;
            case ">=" -> Filter.Op.GE;
            default -> throw new FilterException("unknown operator " + t.text(), t.position());
        };
    }

    private boolean keyword(String word) {
        FilterLexer.Token t = peek();
        return t.kind() == FilterLexer.Kind.WORD && t.text().toUpperCase(Locale.ROOT).equals(word);
    }

    private void expect(FilterLexer.Kind kind, String what) {
        FilterLexer.Token t = peek();
        if (t.kind() != kind) {
            throw new FilterException("expected " + what + ", found " + t.describe(), t.position());
        }
        pos++;
    }

    private FilterLexer.Token peek() {
        return tokens.get(pos);
    }

    private String fieldList() {
        return String.join(", ", fields.fields().stream().map(Field::name).toList());
    }
}
