// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.console.model.Fields;
import io.flowhouse.console.model.Source;
import io.flowhouse.console.sql.SqlLiteral.AddressForm;
import org.junit.jupiter.api.Test;

class FilterParserTest {

    private final FilterParser parser =
            new FilterParser(Fields.standard(), FilterParser.Limits.DEFAULT);

    private String raw(String filter) {
        return FilterSql.where(parser.parse(filter), Source.RAW, AddressForm.FIXED_STRING);
    }

    @Test
    void theIssuesExampleParses() {
        Filter f = parser.parse("SrcAS IN (15169, 13335) AND Proto = 6 AND InIf != 3");
        assertThat(f.fieldNames()).containsExactly("InIf", "Proto", "SrcAS");
        assertThat(raw("SrcAS IN (15169, 13335) AND Proto = 6"))
                .isEqualTo("((src_as) IN (15169, 13335)) AND ((proto) = 6)");
    }

    @Test
    void keywordsAndFieldsAreCaseInsensitiveAndWordsAreNumbers() {
        assertThat(raw("proto = TCP or not (dstport >= 1024)"))
                .isEqualTo("((proto) = 6) OR (NOT ((dst_port) >= 1024))");
        assertThat(raw("Direction = egress")).isEqualTo("(direction) = 1");
        assertThat(raw("Direction = -1")).isEqualTo("(direction) = -1");
    }

    @Test
    void addressesAndPrefixesBecomeByteRanges() {
        assertThat(raw("Exporter = 10.0.0.1"))
                .isEqualTo(
                        "((exporter) = toFixedString(unhex('00000000000000000000ffff0a000001'),"
                                + " 16))");
        assertThat(raw("SrcAddr = 10.1.0.0/16"))
                .isEqualTo(
                        "((src_addr) BETWEEN"
                                + " toFixedString(unhex('00000000000000000000ffff0a010000'), 16)"
                                + " AND toFixedString(unhex('00000000000000000000ffff0a01ffff'),"
                                + " 16))");
        assertThat(raw("DstAddr != 2001:db8::/32"))
                .isEqualTo(
                        "NOT ((dst_addr) BETWEEN"
                                + " toFixedString(unhex('20010db8000000000000000000000000'), 16)"
                                + " AND toFixedString(unhex('20010db8ffffffffffffffffffffffff'),"
                                + " 16))");
        assertThat(raw("SrcAddr NOT IN (10.0.0.1, 10.2.0.0/16)"))
                .startsWith("NOT ((src_addr) IN (toFixedString(unhex(")
                .contains(" OR ((src_addr) BETWEEN ");
        assertThat(raw("Exporter = ::ffff:10.0.0.1")).isEqualTo(raw("Exporter = 10.0.0.1"));
    }

    @Test
    void badFiltersSayWhatAndWhere() {
        expect("Foo = 1", "unknown field 'Foo'", 0);
        expect("Proto = 6;", "unexpected character ';'", 9);
        expect("Proto = 6 AND", "expected a field name, found the end of the filter", 13);
        expect("Proto = http", "Proto: 'http' is not a number or one of", 8);
        expect("Proto = 256", "Proto: 256 is out of range (0..255)", 8);
        expect("InIf = 99999999999999999999", "out of range", 7);
        expect("SrcAddr = 10.0.0.256", "10.0.0.256 is no address", 10);
        expect("SrcAddr = example.com", "is no IPv4 or IPv6 address", 10);
        expect("SrcAddr = 10.0.0.0/33", "IPv4 prefix over 32", 10);
        expect("SrcAddr > 10.0.0.1", "SrcAddr takes =, != and IN, not >", 8);
        expect("Proto = 'tcp", "unterminated text", 8);
        expect("(Proto = 6", "expected ')'", 10);
        expect("Proto IN 6", "expected '(' after IN", 9);
        expect("Proto NOT = 6", "expected IN after Proto NOT", 10);
        expect("Proto = 6 Proto = 17", "expected AND, OR or the end", 10);
        expect("Proto ! 6", "'!' must be followed by '='", 6);
    }

    @Test
    void boundsHold() {
        FilterParser small = new FilterParser(Fields.standard(), new FilterParser.Limits(40, 3, 4));
        assertThatThrownBy(() -> small.parse("Proto = 6 AND ".repeat(4) + "Proto = 6"))
                .isInstanceOf(FilterException.class)
                .hasMessageContaining("filter too long");
        assertThatThrownBy(() -> small.parse("SrcAS IN (1, 2, 3, 4)"))
                .hasMessageContaining("more than 3 values");
        assertThatThrownBy(() -> small.parse("((((Proto = 6))))"))
                .hasMessageContaining("nested too deep");
        assertThatThrownBy(() -> small.parse("NOT NOT NOT NOT Proto = 6"))
                .hasMessageContaining("nested too deep");
    }

    @Test
    void emptyMeansEverything() {
        assertThat(parser.parse("  ")).isInstanceOf(Filter.All.class);
        assertThat(raw("")).isEqualTo("1");
    }

    private void expect(String filter, String message, int position) {
        assertThatThrownBy(() -> parser.parse(filter))
                .as(filter)
                .isInstanceOf(FilterException.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(((FilterException) e).position()).isEqualTo(position));
    }
}
