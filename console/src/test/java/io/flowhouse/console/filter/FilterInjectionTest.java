// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.console.model.Field;
import io.flowhouse.console.model.FieldType;
import io.flowhouse.console.model.Fields;
import io.flowhouse.console.model.Source;
import io.flowhouse.console.sql.SqlLiteral.AddressForm;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever a request holds reaches SQL only as one escaped literal. A text value of any content
 * comes back out of ClickHouse's string-literal rules unchanged, and the SQL around it is always
 * the same; and any filter text either fails to parse or compiles to SQL whose text outside
 * literals is built only from the field table, operators, numbers and hex.
 */
class FilterInjectionTest {

    static final Fields FIELDS =
            new Fields(
                    List.of(
                            Field.of("Name", "a text field", FieldType.STRING)
                                    .raw("in_if_name")
                                    .build(),
                            Field.of("Proto", "protocol", FieldType.INTEGER)
                                    .range(0, 255)
                                    .words(Fields.PROTOCOLS)
                                    .raw("proto")
                                    .build(),
                            Field.of("SrcAddr", "source", FieldType.ADDRESS)
                                    .raw("src_addr")
                                    .build()),
                    List.of());

    static final FilterParser PARSER = new FilterParser(FIELDS, FilterParser.Limits.DEFAULT);

    @Provide
    Arbitrary<String> hostile() {
        return Arbitraries.oneOf(
                Arbitraries.strings().all().ofMaxLength(60),
                Arbitraries.strings().withChars("'\"\\;`-/*#()=,\u0000\n xX0OR1").ofMaxLength(40),
                Arbitraries.of(
                        "' OR 1=1 --",
                        "\\' OR 1=1 --",
                        "'; DROP TABLE flows; --",
                        "\\",
                        "\\\\'",
                        "x'/*",
                        "') UNION SELECT * FROM system.users --"));
    }

    @Property(tries = 2000)
    void aTextValueIsOneLiteralThatDecodesToItself(@ForAll("hostile") String value) {
        String quoted = "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
        Filter f = PARSER.parse("Name = " + quoted);
        assertThat(f)
                .isEqualTo(
                        new Filter.Compare(
                                FIELDS.field("Name").orElseThrow(),
                                Filter.Op.EQ,
                                new Filter.TextValue(value)));
        String sql = FilterSql.where(f, Source.RAW, AddressForm.FIXED_STRING);
        Literals l = Literals.split(sql);
        assertThat(l.skeleton()).isEqualTo("(in_if_name) = ?");
        assertThat(l.values()).containsExactly(value);
    }

    @Property(tries = 3000)
    void anyTextEitherFailsOrCompilesToKnownSql(@ForAll("hostile") String text) {
        Filter f;
        try {
            f = PARSER.parse("Proto = 6 AND " + text);
        } catch (FilterException e) {
            return;
        }
        Literals l = Literals.split(FilterSql.where(f, Source.RAW, AddressForm.FIXED_STRING));
        // Outside literals: field expressions, keywords, operators, digits, hex, parentheses.
        assertThat(l.skeleton())
                .matches("[()a-z_ 0-9=!<>,?A-Z-]*")
                .doesNotContain("--")
                .doesNotContain(";");
        for (String word : l.skeleton().split("[^A-Za-z_]+")) {
            assertThat(word)
                    .isIn(
                            "",
                            "AND",
                            "OR",
                            "NOT",
                            "IN",
                            "BETWEEN",
                            "proto",
                            "src_addr",
                            "in_if_name",
                            "toFixedString",
                            "unhex");
        }
    }

    /**
     * Splits SQL into its text outside string literals (each one a '?') and the literals' values.
     */
    record Literals(String skeleton, List<String> values) {
        static Literals split(String sql) {
            StringBuilder skeleton = new StringBuilder();
            java.util.List<String> values = new java.util.ArrayList<>();
            int i = 0;
            while (i < sql.length()) {
                char c = sql.charAt(i);
                if (c != '\'') {
                    skeleton.append(c);
                    i++;
                    continue;
                }
                StringBuilder v = new StringBuilder();
                i++;
                while (true) {
                    char d = sql.charAt(i++);
                    if (d == '\\') {
                        char e = sql.charAt(i++);
                        if (e == 'x') {
                            v.append((char) Integer.parseInt(sql.substring(i, i + 2), 16));
                            i += 2;
                        } else {
                            v.append(e);
                        }
                    } else if (d == '\'') {
                        break;
                    } else {
                        v.append(d);
                    }
                }
                // unhex('...') holds hex digits only: keep it visible as such.
                String value = v.toString();
                if (value.matches("[0-9a-f]{32}")) {
                    skeleton.append("HEX");
                } else {
                    skeleton.append('?');
                    values.add(value);
                }
            }
            return new Literals(skeleton.toString().replace("HEX", ""), values);
        }
    }
}
