// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.rules;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/** An IPv4 or IPv6 network, {@code address/length}, with host bits cleared. */
public record Prefix(byte[] network, int length) {

    public Prefix {
        if (network.length != 4 && network.length != 16) {
            throw new IllegalArgumentException("address of 4 or 16 bytes: " + network.length);
        }
        if (length < 0 || length > network.length * 8) {
            throw new IllegalArgumentException("prefix length out of range: " + length);
        }
        network = mask(network, length);
    }

    /** Parses {@code 192.0.2.0/24}, {@code 2001:db8::/32}, or a bare address (a host). */
    public static Prefix parse(String text) {
        String t = text.trim();
        int slash = t.indexOf('/');
        String addr = slash < 0 ? t : t.substring(0, slash);
        if (addr.isEmpty() || !(addr.indexOf(':') >= 0 || addr.matches("[0-9.]+"))) {
            // Literals only: InetAddress would otherwise resolve a host name.
            throw new IllegalArgumentException("not an IP network: " + text);
        }
        byte[] bytes;
        try {
            bytes = InetAddress.getByName(addr).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP network: " + text, e);
        }
        int length;
        try {
            length = slash < 0 ? bytes.length * 8 : Integer.parseInt(t.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad prefix length: " + text, e);
        }
        if (length < 0 || length > bytes.length * 8) {
            throw new IllegalArgumentException("prefix length out of range: " + text);
        }
        return new Prefix(bytes, length);
    }

    /** Whether {@code address} (4 or 16 bytes) is inside; families never mix. */
    public boolean contains(byte[] address) {
        return address.length == network.length && Arrays.equals(mask(address, length), network);
    }

    /** Whether {@code other} is inside this network (equal counts). */
    public boolean covers(Prefix other) {
        return other.length >= length && contains(other.network);
    }

    static byte[] mask(byte[] address, int length) {
        byte[] out = address.clone();
        for (int bit = length; bit < out.length * 8; bit++) {
            out[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Prefix p && p.length == length && Arrays.equals(p.network, network);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(network) * 31 + length;
    }

    @Override
    public String toString() {
        try {
            return InetAddress.getByAddress(network).getHostAddress() + "/" + length;
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
