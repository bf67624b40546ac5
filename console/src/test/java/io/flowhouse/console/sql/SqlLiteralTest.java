// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.console.sql.SqlLiteral.AddressForm;
import org.junit.jupiter.api.Test;

class SqlLiteralTest {

    @Test
    void stringsEscapeEveryQuoteBackslashAndControlCharacter() {
        assertThat(SqlLiteral.string("abc")).isEqualTo("'abc'");
        assertThat(SqlLiteral.string("a'b")).isEqualTo("'a\\'b'");
        assertThat(SqlLiteral.string("a\\")).isEqualTo("'a\\\\'");
        assertThat(SqlLiteral.string("a\\'")).isEqualTo("'a\\\\\\''");
        assertThat(SqlLiteral.string("\u0000\n\u007f")).isEqualTo("'\\x00\\x0a\\x7f'");
        assertThat(SqlLiteral.string("ü€")).isEqualTo("'ü€'");
    }

    @Test
    void numbersAreDigitsOnlyAndChecked() {
        assertThat(SqlLiteral.integer(-5)).isEqualTo("-5");
        assertThat(SqlLiteral.unsigned(65_535, 65_535)).isEqualTo("65535");
        assertThatThrownBy(() -> SqlLiteral.unsigned(-1, 10))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(SqlLiteral.dateTime(1_700_000_000L)).isEqualTo("toDateTime(1700000000)");
        assertThatThrownBy(() -> SqlLiteral.dateTime(-1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void addressesAreHexBytes() {
        byte[] a = new byte[16];
        a[10] = (byte) 0xff;
        a[11] = (byte) 0xff;
        a[12] = 10;
        a[15] = 1;
        assertThat(SqlLiteral.address(a, AddressForm.FIXED_STRING))
                .isEqualTo("toFixedString(unhex('00000000000000000000ffff0a000001'), 16)");
        assertThat(SqlLiteral.address(a, AddressForm.IPV6))
                .isEqualTo(
                        "CAST(toFixedString(unhex('00000000000000000000ffff0a000001'), 16) AS IPv6)");
        assertThatThrownBy(() -> SqlLiteral.address(new byte[4], AddressForm.FIXED_STRING))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void identifiersAreWhitelistedAndQuoted() {
        assertThat(SqlLiteral.identifier("flows_1m")).isEqualTo("`flows_1m`");
        for (String bad : new String[] {"", "1a", "a b", "a`b", "a;b", "a.b", "x".repeat(65)}) {
            assertThat(SqlLiteral.isIdentifier(bad)).as(bad).isFalse();
            assertThatThrownBy(() -> SqlLiteral.identifier(bad))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
