// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * An IPv4 or IPv6 prefix ({@code 192.0.2.0/24}, {@code 2001:db8::/32}); a bare address is /32 or
 * /128.
 */
record Cidr(byte[] network, int prefixLength) {

    Cidr {
        network = network.clone();
        if (prefixLength < 0 || prefixLength > network.length * 8) {
            throw new IllegalArgumentException("prefix length " + prefixLength);
        }
        // Host bits cleared, so equal prefixes compare equal.
        for (int bit = prefixLength; bit < network.length * 8; bit++) {
            network[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
    }

    /** Parses a numeric prefix; never looks a name up. */
    static Cidr parse(String text) {
        String t = text.trim();
        int slash = t.indexOf('/');
        String address = slash < 0 ? t : t.substring(0, slash);
        byte[] bytes = literal(address);
        if (bytes == null) {
            throw new IllegalArgumentException("not an IP prefix: " + text);
        }
        int length = bytes.length * 8;
        if (slash >= 0) {
            try {
                length = Integer.parseInt(t.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not an IP prefix: " + text);
            }
            if (length < 0 || length > bytes.length * 8) {
                throw new IllegalArgumentException("prefix length out of range: " + text);
            }
        }
        return new Cidr(bytes, length);
    }

    /** The bytes of a numeric IPv4/IPv6 address, or null when {@code text} is not one. */
    static byte[] literal(String text) {
        boolean v6 = text.indexOf(':') >= 0;
        boolean numeric =
                v6 ? text.matches("[0-9A-Fa-f:.]+") : text.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        if (!numeric) {
            return null;
        }
        try {
            // Only digits, hex, ':' and '.': parsed as a literal, never resolved.
            return InetAddress.getByName(text).getAddress();
        } catch (UnknownHostException e) {
            return null;
        }
    }

    boolean contains(InetAddress address) {
        byte[] a = address.getAddress();
        if (a.length != network.length) {
            return false;
        }
        int full = prefixLength / 8;
        for (int i = 0; i < full; i++) {
            if (a[i] != network[i]) {
                return false;
            }
        }
        int rest = prefixLength % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (a[full] & mask) == (network[full] & mask);
    }

    @Override
    public byte[] network() {
        return network.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cidr c
                && c.prefixLength == prefixLength
                && Arrays.equals(c.network, network);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(network) + prefixLength;
    }

    @Override
    public String toString() {
        try {
            return InetAddress.getByAddress(network).getHostAddress() + "/" + prefixLength;
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
