// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.rules;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Longest-prefix match over a fixed set of networks: one hash map per prefix length in use, probed
 * from the longest length down. Built once per configuration load, read-only after.
 *
 * @param <V> what a network maps to
 */
public final class PrefixTable<V> {

    private final int[] v4Lengths;
    private final int[] v6Lengths;
    private final List<Map<ByteBuffer, V>> byLength;

    /** Later entries replace earlier ones with the same network. */
    public PrefixTable(List<Map.Entry<Prefix, V>> entries) {
        byLength = new ArrayList<>(java.util.Collections.nCopies(129 + 33, null));
        TreeSet<Integer> v4 = new TreeSet<>();
        TreeSet<Integer> v6 = new TreeSet<>();
        for (Map.Entry<Prefix, V> e : entries) {
            Prefix p = e.getKey();
            boolean isV4 = p.network().length == 4;
            int slot = slot(isV4, p.length());
            (isV4 ? v4 : v6).add(p.length());
            if (byLength.get(slot) == null) {
                byLength.set(slot, new HashMap<>());
            }
            byLength.get(slot).put(ByteBuffer.wrap(p.network()), e.getValue());
        }
        v4Lengths = descending(v4);
        v6Lengths = descending(v6);
    }

    /** The value of the longest network holding {@code address} (4 or 16 bytes), or null. */
    public V lookup(byte[] address) {
        boolean isV4 = address.length == 4;
        int[] lengths = isV4 ? v4Lengths : v6Lengths;
        if (lengths.length == 0) {
            return null;
        }
        byte[] key = new byte[address.length];
        for (int length : lengths) {
            maskInto(address, length, key);
            V v = byLength.get(slot(isV4, length)).get(ByteBuffer.wrap(key));
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    public boolean isEmpty() {
        return v4Lengths.length == 0 && v6Lengths.length == 0;
    }

    private static int slot(boolean v4, int length) {
        return v4 ? 129 + length : length;
    }

    private static void maskInto(byte[] address, int length, byte[] out) {
        int full = length / 8;
        System.arraycopy(address, 0, out, 0, full);
        for (int i = full; i < out.length; i++) {
            out[i] = 0;
        }
        if (length % 8 != 0) {
            out[full] = (byte) (address[full] & (0xff00 >>> (length % 8)));
        }
    }

    private static int[] descending(TreeSet<Integer> lengths) {
        List<Integer> l = new ArrayList<>(lengths.descendingSet());
        return l.stream().mapToInt(Integer::intValue).toArray();
    }
}
