// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.filter;

import io.flowhouse.console.model.Field;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.TreeSet;

/** Parses one filter value for its field's type: the only way text becomes a value. */
public final class FilterValues {

    private FilterValues() {}

    static Filter.Value parse(Field field, String text, int position) {
        return switch (field.type()) {
            case INTEGER -> integer(field, text, position);
            case ADDRESS -> address(field, text, position);
            case STRING -> text(field, text, position);
        };
    }

    private static Filter.Value integer(Field field, String text, int position) {
        if (text.matches("-?[0-9]{1,20}")) {
            long v;
            try {
                v = Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new FilterException(
                        field.name() + ": " + FilterLexer.shorten(text) + " is out of range",
                        position);
            }
            if (v < field.min() || v > field.max()) {
                throw new FilterException(
                        field.name()
                                + ": "
                                + v
                                + " is out of range ("
                                + field.min()
                                + ".."
                                + field.max()
                                + ")",
                        position);
            }
            return new Filter.IntValue(v);
        }
        return field.word(text)
                .<Filter.Value>map(Filter.IntValue::new)
                .orElseThrow(
                        () ->
                                new FilterException(
                                        field.name()
                                                + ": '"
                                                + FilterLexer.shorten(text)
                                                + "' is not a number"
                                                + (field.words().isEmpty()
                                                        ? ""
                                                        : " or one of "
                                                                + String.join(
                                                                        ", ",
                                                                        new TreeSet<>(
                                                                                field.words()
                                                                                        .keySet()))),
                                        position));
    }

    private static Filter.Value text(Field field, String text, int position) {
        if (text.length() > 256) {
            throw new FilterException(field.name() + ": text longer than 256 characters", position);
        }
        return new Filter.TextValue(text);
    }

    /** An IPv4 or IPv6 address with an optional prefix length, as 16 bytes. */
    public static Filter.Value address(Field field, String text, int position) {
        String addr = text;
        int prefix = -1;
        int slash = text.indexOf('/');
        if (slash >= 0) {
            addr = text.substring(0, slash);
            String len = text.substring(slash + 1);
            if (!len.matches("[0-9]{1,3}")) {
                throw new FilterException(
                        field.name() + ": bad prefix length in " + FilterLexer.shorten(text),
                        position);
            }
            prefix = Integer.parseInt(len);
        }
        byte[] bytes = new byte[16];
        if (addr.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")) {
            String[] parts = addr.split("\\.");
            bytes[10] = (byte) 0xff;
            bytes[11] = (byte) 0xff;
            for (int i = 0; i < 4; i++) {
                int v = Integer.parseInt(parts[i]);
                if (v > 255) {
                    throw new FilterException(
                            field.name() + ": " + FilterLexer.shorten(text) + " is no address",
                            position);
                }
                bytes[12 + i] = (byte) v;
            }
            if (prefix > 32) {
                throw new FilterException(field.name() + ": IPv4 prefix over 32", position);
            }
            prefix = prefix < 0 ? 128 : prefix + 96;
        } else if (addr.indexOf(':') >= 0 && addr.matches("[0-9A-Fa-f:.]{2,45}")) {
            // Only literal IPv6 text gets here (it contains ':'), so no name is ever looked up.
            try {
                byte[] b = InetAddress.getByName(addr).getAddress();
                if (b.length == 4) {
                    bytes[10] = (byte) 0xff;
                    bytes[11] = (byte) 0xff;
                    System.arraycopy(b, 0, bytes, 12, 4);
                } else {
                    bytes = b;
                }
            } catch (UnknownHostException e) {
                throw new FilterException(
                        field.name() + ": " + FilterLexer.shorten(text) + " is no address",
                        position);
            }
            if (prefix > 128) {
                throw new FilterException(field.name() + ": IPv6 prefix over 128", position);
            }
            prefix = prefix < 0 ? 128 : prefix;
        } else {
            throw new FilterException(
                    field.name()
                            + ": '"
                            + FilterLexer.shorten(text)
                            + "' is no IPv4 or IPv6 address",
                    position);
        }
        return new Filter.AddressValue(bytes, prefix);
    }
}
