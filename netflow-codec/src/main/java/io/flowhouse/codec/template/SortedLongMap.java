// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeMap;

/**
 * An immutable map from {@code long} keys, held as two sorted arrays: a twelfth of a {@code
 * HashMap}'s heap for the interface names of a scope, and {@link #merge merging} a few changes into
 * it copies two arrays, not thousands of entries. Iterates in key order.
 */
final class SortedLongMap<V> extends AbstractMap<Long, V> {

    private static final SortedLongMap<?> EMPTY = new SortedLongMap<>(new long[0], new Object[0]);

    private final long[] keys;
    private final Object[] values;

    private SortedLongMap(long[] keys, Object[] values) {
        this.keys = keys;
        this.values = values;
    }

    @SuppressWarnings("unchecked")
    static <V> SortedLongMap<V> empty() {
        return (SortedLongMap<V>) EMPTY;
    }

    /** {@code m} itself if it is one, else a copy (null keys or values are refused). */
    static <V> SortedLongMap<V> of(Map<Long, V> m) {
        if (m instanceof SortedLongMap<V> s) {
            return s;
        }
        if (m.isEmpty()) {
            return empty();
        }
        TreeMap<Long, V> sorted = new TreeMap<>(m);
        long[] k = new long[sorted.size()];
        Object[] v = new Object[sorted.size()];
        int i = 0;
        for (Map.Entry<Long, V> e : sorted.entrySet()) {
            k[i] = e.getKey();
            v[i++] = requireValue(e.getValue());
        }
        return new SortedLongMap<>(k, v);
    }

    private static Object requireValue(Object v) {
        if (v == null) {
            throw new NullPointerException("null value");
        }
        return v;
    }

    /** This map with {@code changes} put into it; one pass over both. */
    SortedLongMap<V> merge(Map<Long, V> changes) {
        if (changes.isEmpty()) {
            return this;
        }
        long[] ck = new long[changes.size()];
        int n = 0;
        for (Long k : changes.keySet()) {
            ck[n++] = k;
        }
        Arrays.sort(ck);
        long[] k = new long[keys.length + ck.length];
        Object[] v = new Object[k.length];
        int i = 0;
        int j = 0;
        int o = 0;
        while (i < keys.length || j < ck.length) {
            if (j == ck.length || (i < keys.length && keys[i] < ck[j])) {
                k[o] = keys[i];
                v[o++] = values[i++];
            } else {
                if (i < keys.length && keys[i] == ck[j]) {
                    i++; // replaced
                }
                k[o] = ck[j];
                v[o++] = requireValue(changes.get(ck[j++]));
            }
        }
        return new SortedLongMap<>(
                o == k.length ? k : Arrays.copyOf(k, o), o == v.length ? v : Arrays.copyOf(v, o));
    }

    @SuppressWarnings("unchecked")
    V get(long key) {
        int i = Arrays.binarySearch(keys, key);
        return i < 0 ? null : (V) values[i];
    }

    @Override
    public V get(Object key) {
        return key instanceof Long l ? get(l.longValue()) : null;
    }

    @Override
    public boolean containsKey(Object key) {
        return key instanceof Long l && Arrays.binarySearch(keys, l) >= 0;
    }

    @Override
    public int size() {
        return keys.length;
    }

    /** The values in key order, a view without copies or per-entry objects. */
    @Override
    @SuppressWarnings("unchecked")
    public Collection<V> values() {
        return Collections.unmodifiableList(Arrays.asList((V[]) values));
    }

    /** The key at {@code i} in key order. */
    long keyAt(int i) {
        return keys[i];
    }

    /** The value at {@code i} in key order. */
    @SuppressWarnings("unchecked")
    V valueAt(int i) {
        return (V) values[i];
    }

    @Override
    public Set<Map.Entry<Long, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<Long, V>> iterator() {
                return new Iterator<>() {
                    private int i;

                    @Override
                    public boolean hasNext() {
                        return i < keys.length;
                    }

                    @Override
                    @SuppressWarnings("unchecked")
                    public Map.Entry<Long, V> next() {
                        if (i >= keys.length) {
                            throw new NoSuchElementException();
                        }
                        Map.Entry<Long, V> e = Map.entry(keys[i], (V) values[i]);
                        i++;
                        return e;
                    }
                };
            }

            @Override
            public int size() {
                return keys.length;
            }
        };
    }

    @Override
    public V put(Long key, V value) {
        throw new UnsupportedOperationException("immutable");
    }

    @Override
    public V remove(Object key) {
        throw new UnsupportedOperationException("immutable");
    }

    @Override
    public void clear() {
        throw new UnsupportedOperationException("immutable");
    }
}
