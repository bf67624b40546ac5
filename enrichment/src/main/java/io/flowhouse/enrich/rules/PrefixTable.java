// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.rules;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Longest-prefix match over a fixed set of networks: one hash table per prefix length in use,
 * probed from the longest length down. Built once per configuration load, read-only after.
 * Addresses are looked up as two longs (IPv6 high and low halves; IPv4 in the low 32 bits), so a
 * lookup allocates nothing: it runs for every flow, several times.
 *
 * @param <V> what a network maps to
 */
public final class PrefixTable<V> {

    private final int[] v4Lengths;
    private final int[] v6Lengths;
    private final List<NetworkMap<V>> byLength;

    /** Later entries replace earlier ones with the same network. */
    public PrefixTable(List<Map.Entry<Prefix, V>> entries) {
        TreeSet<Integer> v4 = new TreeSet<>();
        TreeSet<Integer> v6 = new TreeSet<>();
        int[] counts = new int[129 + 33];
        for (Map.Entry<Prefix, V> e : entries) {
            Prefix p = e.getKey();
            boolean isV4 = p.network().length == 4;
            (isV4 ? v4 : v6).add(p.length());
            counts[slot(isV4, p.length())]++;
        }
        byLength = new ArrayList<>(java.util.Collections.nCopies(129 + 33, null));
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] > 0) {
                byLength.set(i, new NetworkMap<>(counts[i]));
            }
        }
        for (Map.Entry<Prefix, V> e : entries) {
            Prefix p = e.getKey();
            byte[] n = p.network();
            boolean isV4 = n.length == 4;
            NetworkMap<V> m = byLength.get(slot(isV4, p.length()));
            if (isV4) {
                m.put(0L, v4Bits(n), e.getValue());
            } else {
                m.put(half(n, 0), half(n, 8), e.getValue());
            }
        }
        v4Lengths = descending(v4);
        v6Lengths = descending(v6);
    }

    /** The value of the longest network holding {@code address} (4 or 16 bytes), or null. */
    public V lookup(byte[] address) {
        if (address.length == 4) {
            return lookupV4(v4Bits(address));
        }
        return lookupV6(half(address, 0), half(address, 8));
    }

    /** The value of the longest IPv4 network holding {@code v4} (network order, 32 bits). */
    public V lookupV4(long v4) {
        for (int length : v4Lengths) {
            long mask = length == 0 ? 0L : (0xffff_ffffL << (32 - length)) & 0xffff_ffffL;
            V v = byLength.get(slot(true, length)).get(0L, v4 & mask);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    /** The value of the longest IPv6 network holding the address {@code hi:lo}, or null. */
    public V lookupV6(long hi, long lo) {
        for (int length : v6Lengths) {
            long h = length >= 64 ? hi : hi & top(length);
            long l = length <= 64 ? 0L : lo & top(length - 64);
            V v = byLength.get(slot(false, length)).get(h, l);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    public boolean isEmpty() {
        return v4Lengths.length == 0 && v6Lengths.length == 0;
    }

    /** A long with its {@code n} (0..64) highest bits set. */
    private static long top(int n) {
        return n == 0 ? 0L : -1L << (64 - n);
    }

    private static long v4Bits(byte[] a) {
        return ((a[0] & 0xffL) << 24)
                | ((a[1] & 0xffL) << 16)
                | ((a[2] & 0xffL) << 8)
                | (a[3] & 0xffL);
    }

    private static long half(byte[] a, int from) {
        long v = 0;
        for (int i = from; i < from + 8; i++) {
            v = (v << 8) | (a[i] & 0xff);
        }
        return v;
    }

    private static int slot(boolean v4, int length) {
        return v4 ? 129 + length : length;
    }

    private static int[] descending(TreeSet<Integer> lengths) {
        List<Integer> l = new ArrayList<>(lengths.descendingSet());
        return l.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Networks of one length by their two longs: open addressing, linear probing, no boxing. */
    private static final class NetworkMap<V> {
        private final long[] his;
        private final long[] los;
        private final Object[] values;
        private final int mask;

        NetworkMap(int expected) {
            int capacity = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
            his = new long[capacity];
            los = new long[capacity];
            values = new Object[capacity];
            mask = capacity - 1;
        }

        private int index(long hi, long lo) {
            long h = (hi * 0x9E3779B97F4A7C15L + lo) * 0xC2B2AE3D27D4EB4FL;
            return (int) (h >>> 40) & mask;
        }

        void put(long hi, long lo, V value) {
            java.util.Objects.requireNonNull(value, "a network's value");
            int i = index(hi, lo);
            while (values[i] != null && (his[i] != hi || los[i] != lo)) {
                i = (i + 1) & mask;
            }
            his[i] = hi;
            los[i] = lo;
            values[i] = value;
        }

        @SuppressWarnings("unchecked")
        V get(long hi, long lo) {
            int i = index(hi, lo);
            while (values[i] != null) {
                if (his[i] == hi && los[i] == lo) {
                    return (V) values[i];
                }
                i = (i + 1) & mask;
            }
            return null;
        }
    }
}
