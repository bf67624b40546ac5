// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

/**
 * A 64-bit hash over a few {@code long} words, for the in-memory tables of the rollups' local sums
 * ({@link BucketTable}): XXH64's lane round per word and its final avalanche (the primes and
 * rotations of the XXH64 specification), so every input bit reaches every output bit and the low
 * bits can index a power-of-two table. The callers pack small fields (kind, direction, protocol,
 * port) into one word; a packing that loses bits only costs an equality test, never a wrong sum.
 *
 * <p>Nothing persisted or partitioned depends on it (Flink key groups use the keys' own {@code
 * hashCode}), so it may change between releases.
 *
 * @see <a href="https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md">XXH64</a>
 */
final class BucketHash {

    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;

    /** The state before the first word. */
    static final long SEED = P5;

    private BucketHash() {}

    /** The state {@code h} with one more word. */
    static long add(long h, long word) {
        h ^= Long.rotateLeft(word * P2, 31) * P1;
        return Long.rotateLeft(h, 27) * P1 + P4;
    }

    /** The hash of the words added to {@code h}. */
    static long finish(long h) {
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        return h ^ (h >>> 32);
    }
}
