// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import java.util.function.Predicate;

/**
 * The buckets a {@link BucketBudget} admitted: a set of pieces, one per bucket, told apart by a
 * {@link BucketTable.Identity}. The same layout as {@link BucketTable} (power-of-two capacity,
 * linear probing, less than half full; full 64-bit hashes in a {@code long[]} with 0 for a free
 * slot, the pieces in an {@code Object[]}), so a look-up makes no key object and dereferences a
 * stored piece only on a full-hash match. It replaced a {@code HashMap} from a scope record to a
 * {@code HashSet} of bucket records (two look-ups and two objects per piece): with {@code
 * CombinerBench} the plain budget took 47 ns per piece instead of 61 (means of ten rounds each,
 * load 6-9), a gain within the spread of the whole-topology bench; flink-jobs/BENCHMARKS.md,
 * "Rollups' local sums in open-addressing tables".
 *
 * <p>It grows without bound: the budget bounds it (buckets per scope) and empties it of closed
 * windows with {@link #removeIf}, which rebuilds it at the size of what is left.
 *
 * @param <T> the piece type
 */
final class BucketSet<T> {

    private final BucketTable.Identity<T> identity;

    /** The full hash of each slot's bucket; 0 = free (a hash of 0 is stored as 1). */
    private long[] hashes;

    /** The piece of each slot's bucket. */
    private Object[] pieces;

    private int size;

    BucketSet(BucketTable.Identity<T> identity) {
        this.identity = identity;
        hashes = new long[BucketTable.MIN_CAPACITY];
        pieces = new Object[BucketTable.MIN_CAPACITY];
    }

    private static long nonZero(long h) {
        return h == 0 ? 1 : h;
    }

    /** Whether the piece's bucket is in the set. */
    boolean contains(T piece) {
        long h = nonZero(identity.hash(piece));
        long[] hs = hashes;
        int mask = hs.length - 1;
        for (int i = (int) h & mask; hs[i] != 0; i = (i + 1) & mask) {
            if (hs[i] == h) {
                @SuppressWarnings("unchecked")
                T stored = (T) pieces[i];
                if (identity.sameBucket(stored, piece)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Adds the bucket of a piece that is not {@link #contains contained}. */
    void add(T piece) {
        if (2 * (size + 1) >= hashes.length) {
            rehash(hashes.length << 1);
        }
        put(nonZero(identity.hash(piece)), piece);
        size++;
    }

    /** Buckets held. */
    int size() {
        return size;
    }

    /** Slots of the set now (for tests). */
    int capacity() {
        return hashes.length;
    }

    /** Removes the buckets of the pieces that match, and shrinks to the size of what is left. */
    void removeIf(Predicate<? super T> filter) {
        long[] oldHashes = hashes;
        Object[] oldPieces = pieces;
        int kept = 0;
        for (int i = 0; i < oldHashes.length; i++) {
            @SuppressWarnings("unchecked")
            T p = (T) oldPieces[i];
            if (oldHashes[i] != 0 && filter.test(p)) {
                oldHashes[i] = 0;
                oldPieces[i] = null;
            } else if (oldHashes[i] != 0) {
                kept++;
            }
        }
        if (kept == size) {
            return;
        }
        hashes = new long[BucketTable.capacityFor(kept)];
        pieces = new Object[hashes.length];
        size = kept;
        for (int i = 0; i < oldHashes.length; i++) {
            if (oldHashes[i] != 0) {
                @SuppressWarnings("unchecked")
                T p = (T) oldPieces[i];
                put(oldHashes[i], p);
            }
        }
    }

    private void rehash(int capacity) {
        long[] oldHashes = hashes;
        Object[] oldPieces = pieces;
        hashes = new long[capacity];
        pieces = new Object[capacity];
        for (int i = 0; i < oldHashes.length; i++) {
            if (oldHashes[i] != 0) {
                @SuppressWarnings("unchecked")
                T p = (T) oldPieces[i];
                put(oldHashes[i], p);
            }
        }
    }

    private void put(long h, T piece) {
        int mask = hashes.length - 1;
        int i = (int) h & mask;
        while (hashes[i] != 0) {
            i = (i + 1) & mask;
        }
        hashes[i] = h;
        pieces[i] = piece;
    }
}
