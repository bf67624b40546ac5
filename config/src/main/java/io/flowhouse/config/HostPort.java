// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config;

/**
 * A {@code HOST:PORT} pair as written in a config value. The host is not resolved here (a listen
 * address or a broker may not resolve where the config is checked).
 *
 * @param host host name or literal address without brackets; empty for {@code :PORT}
 * @param port 0..65535
 */
public record HostPort(String host, int port) {

    /** Parses {@code HOST:PORT}, {@code [V6]:PORT} or {@code :PORT}. */
    public static HostPort parse(String text) {
        String t = text.trim();
        String host;
        String port;
        if (t.startsWith("[")) {
            int close = t.indexOf("]:");
            if (close < 0) {
                throw new IllegalArgumentException("(expected: [V6]:PORT)");
            }
            host = t.substring(1, close);
            port = t.substring(close + 2);
        } else {
            int colon = t.lastIndexOf(':');
            if (colon < 0 || t.indexOf(':') != colon) {
                throw new IllegalArgumentException("(expected: HOST:PORT, [V6]:PORT or :PORT)");
            }
            host = t.substring(0, colon);
            port = t.substring(colon + 1);
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port " + port + " (expected: 0..65535)", e);
        }
        if (p < 0 || p > 65_535) {
            throw new IllegalArgumentException("port " + p + " (expected: 0..65535)");
        }
        return new HostPort(host, p);
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
