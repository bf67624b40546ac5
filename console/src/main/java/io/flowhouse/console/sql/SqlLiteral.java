// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.sql;

import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The one place where a value becomes SQL text. ClickHouse 18.16 has no server-side query
 * parameters ({@code {name:Type}} with {@code param_name} came in 19.x; 18.16 answers "Unknown
 * setting param_x"), so every value of a request is bound here, by type, into a literal whose shape
 * cannot end early:
 *
 * <ul>
 *   <li>integers: {@link Long#toString} of a parsed, range-checked number (digits and a sign only);
 *   <li>addresses: the 16 parsed bytes as 32 hex digits inside {@code unhex('...')};
 *   <li>times: whole epoch seconds inside {@code toDateTime(...)};
 *   <li>strings: single-quoted with every quote, backslash and control character escaped ({@code
 *       \'}, {@code \\}, {@code \xHH}), the only escapes ClickHouse's lexer reads inside a string
 *       literal;
 *   <li>identifiers (database and table names): only {@code [A-Za-z_][A-Za-z0-9_]*}, quoted with
 *       back quotes; column expressions come from the field table ({@code model.Fields}), never
 *       from a request.
 * </ul>
 *
 * Nothing else from a request reaches SQL text: field names are looked up in the field table and
 * operators are an enum. {@code SqlLiteralTest} and {@code FilterInjectionTest} hold this.
 */
public final class SqlLiteral {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
    private static final HexFormat HEX = HexFormat.of();

    private SqlLiteral() {}

    /** A signed integer. */
    public static String integer(long value) {
        return Long.toString(value);
    }

    /** An unsigned integer within {@code [0, max]}. */
    public static String unsigned(long value, long max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(value + " (expected: 0.." + max + ")");
        }
        return Long.toString(value);
    }

    /** A time as whole epoch seconds: {@code toDateTime(N)}. */
    public static String dateTime(long epochSeconds) {
        if (epochSeconds < 0 || epochSeconds > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(epochSeconds + " (expected: a DateTime)");
        }
        return "toDateTime(" + epochSeconds + ")";
    }

    /**
     * A 16-byte address (IPv4 as {@code ::ffff:a.b.c.d}) in the column's form: {@code
     * toFixedString(unhex('...'), 16)} for 18.16's {@code FixedString(16)}, the same cast to {@code
     * IPv6} for current servers' {@code IPv6} columns.
     */
    public static String address(byte[] sixteen, AddressForm form) {
        if (sixteen.length != 16) {
            throw new IllegalArgumentException("an address has 16 bytes, not " + sixteen.length);
        }
        String bytes = "toFixedString(unhex('" + HEX.formatHex(sixteen) + "'), 16)";
        return form == AddressForm.FIXED_STRING ? bytes : "CAST(" + bytes + " AS IPv6)";
    }

    /** A string literal: quotes, backslashes and control characters escaped. */
    public static String string(String value) {
        StringBuilder sb = new StringBuilder(value.length() + 2).append('\'');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\'' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                sb.append("\\x").append(HEX.toHexDigits((byte) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('\'').toString();
    }

    /** A database or table name, checked and back-quoted. */
    public static String identifier(String name) {
        if (!isIdentifier(name)) {
            throw new IllegalArgumentException(
                    "identifier '" + name + "' (expected: [A-Za-z_][A-Za-z0-9_]*, up to 64)");
        }
        return "`" + name + "`";
    }

    /** True for names {@link #identifier} takes. */
    public static boolean isIdentifier(String name) {
        return name != null && IDENTIFIER.matcher(name).matches();
    }

    /** How the server stores addresses. */
    public enum AddressForm {
        /** ClickHouse before IPv6 columns (18.16): 16 raw bytes. */
        FIXED_STRING,
        /** Current servers: the {@code IPv6} type. */
        IPV6
    }
}
