// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.config;

import io.flowhouse.codec.flow.IpAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A set of IPv4/IPv6 prefixes for the exporter allow-list. IPv4 prefixes are held as IPv4-mapped
 * IPv6 (/n becomes /96+n), so they match IPv4 exporters received on a dual-stack socket. An empty
 * set admits everything.
 */
public final class CidrSet {

    private final long[] hi;
    private final long[] lo;
    private final int[] bits;

    private CidrSet(List<long[]> prefixes) {
        hi = new long[prefixes.size()];
        lo = new long[prefixes.size()];
        bits = new int[prefixes.size()];
        for (int i = 0; i < prefixes.size(); i++) {
            hi[i] = prefixes.get(i)[0];
            lo[i] = prefixes.get(i)[1];
            bits[i] = (int) prefixes.get(i)[2];
        }
    }

    public static CidrSet of(List<String> cidrs) {
        List<long[]> prefixes = new ArrayList<>();
        for (String c : cidrs) {
            prefixes.add(parse(c));
        }
        return new CidrSet(prefixes);
    }

    /** Parses {@code a.b.c.d/n}, {@code v6/n} or a bare address; returns {hi, lo, bits}. */
    static long[] parse(String cidr) {
        String text = cidr.trim();
        int slash = text.indexOf('/');
        String addr = slash < 0 ? text : text.substring(0, slash);
        IpAddress a;
        try {
            a = IpAddress.parse(addr);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("exporter CIDR " + cidr + ": bad address", e);
        }
        boolean v4 = addr.indexOf(':') < 0;
        int max = v4 ? 32 : 128;
        int n = max;
        if (slash >= 0) {
            try {
                n = Integer.parseInt(text.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "exporter CIDR " + cidr + ": bad prefix length", e);
            }
            if (n < 0 || n > max) {
                throw new IllegalArgumentException(
                        "exporter CIDR "
                                + cidr
                                + ": prefix length "
                                + n
                                + " (expected: 0.."
                                + max
                                + ")");
            }
        }
        int bits = v4 ? 96 + n : n;
        return new long[] {a.hi() & mask(bits), a.lo() & mask(bits - 64), bits};
    }

    /** The mask of the top {@code bits} bits of a 64-bit half (clamped to 0..64). */
    private static long mask(int bits) {
        if (bits <= 0) {
            return 0L;
        }
        if (bits >= 64) {
            return -1L;
        }
        return -1L << (64 - bits);
    }

    public boolean isEmpty() {
        return bits.length == 0;
    }

    /** Whether the address is in one of the prefixes (always true for an empty set). */
    public boolean admits(IpAddress a) {
        if (bits.length == 0) {
            return true;
        }
        for (int i = 0; i < bits.length; i++) {
            int b = bits[i];
            if ((a.hi() & mask(b)) == hi[i] && (a.lo() & mask(b - 64)) == lo[i]) {
                return true;
            }
        }
        return false;
    }
}
