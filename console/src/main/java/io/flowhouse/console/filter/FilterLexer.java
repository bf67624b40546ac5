// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits filter text into tokens: words (field names, keywords, numbers, addresses: letters, digits
 * and {@code . : / _ -}), quoted text ({@code '...'} or {@code "..."}, backslash escapes the next
 * character), operators, parentheses and commas. Any other character is an error: a semicolon, a
 * back quote or a comment marker never gets past here.
 */
final class FilterLexer {

    enum Kind {
        WORD,
        TEXT,
        OP,
        LPAREN,
        RPAREN,
        COMMA,
        END
    }

    record Token(Kind kind, String text, int position) {
        String describe() {
            return switch (kind) {
                case END -> "the end of the filter";
                case TEXT -> "text '" + shorten(text) + "'";
                default -> "'" + shorten(text) + "'";
            };
        }
    }

    private FilterLexer() {}

    static List<Token> tokens(String s) {
        List<Token> out = new ArrayList<>();
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                i++;
            } else if (c == '(') {
                out.add(new Token(Kind.LPAREN, "(", i++));
            } else if (c == ')') {
                out.add(new Token(Kind.RPAREN, ")", i++));
            } else if (c == ',') {
                out.add(new Token(Kind.COMMA, ",", i++));
            } else if (c == '=' || c == '!' || c == '<' || c == '>') {
                int start = i++;
                if (i < n && (s.charAt(i) == '=' || (c == '<' && s.charAt(i) == '>'))) {
                    i++;
                }
                String op = s.substring(start, i);
                if (op.equals("!")) {
                    throw new FilterException("'!' must be followed by '='", start);
                }
                out.add(new Token(Kind.OP, op, start));
            } else if (c == '\'' || c == '"') {
                int start = i++;
                StringBuilder text = new StringBuilder();
                boolean closed = false;
                while (i < n) {
                    char d = s.charAt(i++);
                    if (d == '\\' && i < n) {
                        text.append(s.charAt(i++));
                    } else if (d == c) {
                        closed = true;
                        break;
                    } else {
                        text.append(d);
                    }
                }
                if (!closed) {
                    throw new FilterException("unterminated text starting here", start);
                }
                out.add(new Token(Kind.TEXT, text.toString(), start));
            } else if (isWordChar(c)) {
                int start = i;
                while (i < n && isWordChar(s.charAt(i))) {
                    i++;
                }
                out.add(new Token(Kind.WORD, s.substring(start, i), start));
            } else {
                throw new FilterException(
                        "unexpected character "
                                + (c >= 0x20 && c < 0x7f
                                        ? "'" + c + "'"
                                        : String.format(Locale.ROOT, "U+%04X", (int) c)),
                        i);
            }
        }
        out.add(new Token(Kind.END, "", n));
        return out;
    }

    static boolean isWordChar(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || c == '.'
                || c == ':'
                || c == '/'
                || c == '_'
                || c == '-';
    }

    /** Echoes of user text in error messages stay short. */
    static String shorten(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }
}
