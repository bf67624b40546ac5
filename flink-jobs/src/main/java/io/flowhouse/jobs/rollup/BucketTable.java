// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import java.io.Serializable;

/**
 * The running sums of a {@link BucketCombiner} between two flushes: one entry per bucket, holding
 * the bucket's first piece (its key fields) and the counters of every piece added to it.
 *
 * <p>An open-addressing hash table (power-of-two capacity, linear probing, less than half full) in
 * parallel arrays: the pieces' full 64-bit hashes in a {@code long[]} (0 marks a free slot) and the
 * sums in an {@code Object[]}. A probe compares the hash first and dereferences the stored piece
 * only on a full-hash match, and no key object is made per piece. It replaced a {@code HashMap}
 * keyed by a record of the bucket fields, which JFR put at 28-31 % of the TaskManager's samples at
 * 130,000 flows/s ({@code HashMap.getNode} 13-24 % self, the key's {@code equals} 1-9 %, plus a key
 * record per piece). That key's 32-bit 31-polynomial hash collided on small fields (an exporter one
 * address up with an interface index 31 down): on the component bench's data the map made 1.06
 * {@code equals} calls per look-up, 0.16 of them on another bucket. Measured with {@code
 * CombinerBench} (300,000 flows, a flush every 4,000, load 8-9): the plain pieces' sums went from
 * 223-368 to 165-199 ns per piece, the context pieces' from 232-400 to 146-198 ns;
 * flink-jobs/BENCHMARKS.md, "Rollups' local sums in open-addressing tables".
 *
 * <p>The table starts small and doubles as it fills, up to the capacity of {@code maxBuckets}
 * entries; {@link #drain} sends the buckets in the order they were opened and frees only the slots
 * in use, then shrinks the table to the size of the flush just sent, so a table that once held
 * {@code maxBuckets} does not make the small flushes after it miss the cache on every probe.
 *
 * @param <T> the piece type
 */
final class BucketTable<T extends Counted> {

    /**
     * What makes a bucket: equal pieces are summed together. Serializable: an operator may keep
     * one.
     */
    interface Identity<T> extends Serializable {
        /**
         * A well-mixed 64-bit hash of the piece's bucket fields ({@link BucketHash}): equal for
         * pieces of the same bucket; its low bits index the table.
         */
        long hash(T piece);

        /** Whether two pieces belong to the same bucket. */
        boolean sameBucket(T a, T b);
    }

    /** Takes the buckets of a {@link #drain}. */
    interface Drain<T> {
        /**
         * @param first the bucket's first piece
         * @param pieces how many pieces were added to the bucket (at least 1)
         */
        void bucket(T first, int pieces, long bytes, long packets, long flows);
    }

    /** The smallest capacity (slots). */
    static final int MIN_CAPACITY = 16;

    /** The largest bound: its table (2^30 slots) is the largest power-of-two array. */
    static final int MAX_BUCKETS = (1 << 29) - 1;

    /** One bucket's first piece and running sums. */
    private static final class Sums<T extends Counted> {
        final T first;
        long bytes;
        long packets;
        long flows;
        int pieces = 1;

        Sums(T first) {
            this.first = first;
            this.bytes = first.bytes();
            this.packets = first.packets();
            this.flows = first.flows();
        }
    }

    private final Identity<T> identity;
    private final int maxBuckets;
    private final int maxCapacity;

    /** The full hash of each slot's bucket; 0 = free (a hash of 0 is stored as 1). */
    private long[] hashes;

    /** The {@link Sums} of each slot. */
    private Object[] sums;

    /** The slots in use, in the order their buckets were opened. */
    private int[] slots;

    private int size;

    /**
     * @param identity what makes a bucket
     * @param maxBuckets the most buckets the table holds ({@link #full})
     */
    BucketTable(Identity<T> identity, int maxBuckets) {
        if (maxBuckets < 1 || maxBuckets > MAX_BUCKETS) {
            throw new IllegalArgumentException(
                    "buckets " + maxBuckets + " (expected: 1 to " + MAX_BUCKETS + ")");
        }
        this.identity = identity;
        this.maxBuckets = maxBuckets;
        this.maxCapacity = capacityFor(maxBuckets);
        allocate(MIN_CAPACITY);
    }

    /**
     * The smallest power of two of at least {@link #MIN_CAPACITY} that holds n buckets less than
     * half full.
     */
    static int capacityFor(int n) {
        int c = MIN_CAPACITY;
        while (c <= 2 * n) {
            c <<= 1;
        }
        return c;
    }

    /**
     * Adds a piece's counters to its bucket, opening the bucket if it is new.
     *
     * @return whether the piece opened a new bucket
     * @throws IllegalStateException if the piece opens a bucket while the table is {@link #full}
     */
    boolean add(T piece) {
        long h = identity.hash(piece);
        if (h == 0) {
            h = 1;
        }
        long[] hs = hashes;
        int mask = hs.length - 1;
        int i = (int) h & mask;
        for (long stored; (stored = hs[i]) != 0; i = (i + 1) & mask) {
            if (stored == h) {
                @SuppressWarnings("unchecked")
                Sums<T> s = (Sums<T>) sums[i];
                if (identity.sameBucket(s.first, piece)) {
                    s.bytes += piece.bytes();
                    s.packets += piece.packets();
                    s.flows += piece.flows();
                    s.pieces++;
                    return false;
                }
            }
        }
        if (size == maxBuckets) {
            throw new IllegalStateException(
                    "table full: " + size + " buckets (expected: drain before the next bucket)");
        }
        hs[i] = h;
        sums[i] = new Sums<>(piece);
        slots[size++] = i;
        if (2 * size >= hs.length && hs.length < maxCapacity) {
            resize(hs.length << 1);
        }
        return true;
    }

    /** Buckets held. */
    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Whether the table holds {@code maxBuckets} buckets: the next new bucket needs a drain. */
    boolean full() {
        return size == maxBuckets;
    }

    /** Slots of the table now (for tests). */
    int capacity() {
        return hashes.length;
    }

    /** Sends every bucket to {@code to} in the order they were opened, and empties the table. */
    void drain(Drain<T> to) {
        int n = size;
        for (int k = 0; k < n; k++) {
            @SuppressWarnings("unchecked")
            Sums<T> s = (Sums<T>) sums[slots[k]];
            to.bucket(s.first, s.pieces, s.bytes, s.packets, s.flows);
        }
        int next = capacityFor(n);
        if (next < hashes.length) {
            allocate(next);
        } else {
            for (int k = 0; k < n; k++) {
                hashes[slots[k]] = 0;
                sums[slots[k]] = null;
            }
        }
        size = 0;
    }

    private void allocate(int capacity) {
        hashes = new long[capacity];
        sums = new Object[capacity];
        slots = new int[Math.min(maxBuckets, capacity / 2)];
        size = 0;
    }

    /** Moves every bucket into a table of {@code capacity} slots; keeps their order. */
    private void resize(int capacity) {
        long[] oldHashes = hashes;
        Object[] oldSums = sums;
        int[] oldSlots = slots;
        int n = size;
        allocate(capacity);
        int mask = capacity - 1;
        for (int k = 0; k < n; k++) {
            long h = oldHashes[oldSlots[k]];
            int i = (int) h & mask;
            while (hashes[i] != 0) {
                i = (i + 1) & mask;
            }
            hashes[i] = h;
            sums[i] = oldSums[oldSlots[k]];
            slots[k] = i;
        }
        size = n;
    }
}
