// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.flow;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * An IPv4 or IPv6 address in one form: 128 bits, IPv4 held as IPv4-mapped IPv6 ({@code
 * ::ffff:a.b.c.d}), as Akvorado and ClickHouse's {@code IPv6} column do. A value type, so it can be
 * a record component, a Flink POJO field and a map key without array-equality traps.
 *
 * @param hi the upper 64 bits, network order
 * @param lo the lower 64 bits, network order
 */
public record IpAddress(long hi, long lo) implements Comparable<IpAddress> {

    /** The unspecified address {@code ::}, used where a record carries no address. */
    public static final IpAddress UNSPECIFIED = new IpAddress(0L, 0L);

    private static final long V4_MAPPED_PREFIX = 0x0000_ffff_0000_0000L;

    /** An IPv4 address given as an unsigned 32-bit value in network order. */
    public static IpAddress ofIpv4(int v4) {
        return new IpAddress(0L, V4_MAPPED_PREFIX | (v4 & 0xffff_ffffL));
    }

    /** 4 or 16 bytes in network order. */
    public static IpAddress ofBytes(byte[] b) {
        if (b.length == 4) {
            return ofIpv4(
                    ((b[0] & 0xff) << 24)
                            | ((b[1] & 0xff) << 16)
                            | ((b[2] & 0xff) << 8)
                            | (b[3] & 0xff));
        }
        if (b.length != 16) {
            throw new IllegalArgumentException(
                    "address length " + b.length + " (expected: 4 or 16)");
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = (hi << 8) | (b[i] & 0xff);
            lo = (lo << 8) | (b[i + 8] & 0xff);
        }
        return new IpAddress(hi, lo);
    }

    public static IpAddress of(InetAddress a) {
        return ofBytes(a.getAddress());
    }

    /** Parses a textual IPv4 or IPv6 literal (no DNS look-up is made for literals). */
    public static IpAddress parse(String literal) {
        try {
            if (!literal.isEmpty()
                    && (Character.digit(literal.charAt(0), 16) >= 0 || literal.charAt(0) == ':')) {
                return of(InetAddress.getByName(literal));
            }
        } catch (UnknownHostException e) {
            // fall through to the error below
        }
        throw new IllegalArgumentException("not an IP address literal: " + literal);
    }

    @Override
    public boolean equals(Object o) {
        return o == this || (o instanceof IpAddress a && hi == a.hi && lo == a.lo);
    }

    /**
     * The value the record would compute (31 * hash of hi + hash of lo), written out: addresses key
     * template and options look-ups on every message. Flink key groups depend on it: keep it.
     */
    @Override
    public int hashCode() {
        return 31 * Long.hashCode(hi) + Long.hashCode(lo);
    }

    public boolean isIpv4() {
        return hi == 0L && (lo >>> 32) == 0xffffL;
    }

    /** The IPv4 address as an unsigned 32-bit value; only meaningful when {@link #isIpv4()}. */
    public int ipv4() {
        return (int) lo;
    }

    public boolean isUnspecified() {
        return hi == 0L && lo == 0L;
    }

    /** 16 bytes, network order (IPv4 as mapped). */
    public byte[] toBytes16() {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (hi >>> (56 - 8 * i));
            b[i + 8] = (byte) (lo >>> (56 - 8 * i));
        }
        return b;
    }

    /** 4 bytes for IPv4, 16 otherwise. */
    public byte[] toBytes() {
        if (isIpv4()) {
            int v = ipv4();
            return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
        }
        return toBytes16();
    }

    public InetAddress toInetAddress() {
        try {
            return InetAddress.getByAddress(toBytes());
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Dotted quad for IPv4, RFC 5952 compressed form for IPv6. */
    @Override
    public String toString() {
        if (isIpv4()) {
            int v = ipv4();
            return ((v >>> 24) & 0xff)
                    + "."
                    + ((v >>> 16) & 0xff)
                    + "."
                    + ((v >>> 8) & 0xff)
                    + "."
                    + (v & 0xff);
        }
        return ipv6Text();
    }

    private String ipv6Text() {
        int[] g = new int[8];
        for (int i = 0; i < 4; i++) {
            g[i] = (int) ((hi >>> (48 - 16 * i)) & 0xffff);
            g[i + 4] = (int) ((lo >>> (48 - 16 * i)) & 0xffff);
        }
        int bestStart = -1;
        int bestLen = 1;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }

    @Override
    public int compareTo(IpAddress o) {
        int c = Long.compareUnsigned(hi, o.hi);
        return c != 0 ? c : Long.compareUnsigned(lo, o.lo);
    }
}
