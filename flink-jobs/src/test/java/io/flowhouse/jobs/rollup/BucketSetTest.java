// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The budget's set of admitted buckets: through hash collisions, growth, and removal. */
class BucketSetTest {

    /** A piece of bucket {@code id} in window {@code window}. */
    private record Piece(int id, int window) {}

    /** Hashes the id through {@code mask}: 0 makes every piece collide. */
    private static BucketTable.Identity<Piece> identity(long mask) {
        return new BucketTable.Identity<>() {
            private static final long serialVersionUID = 1L;

            @Override
            public long hash(Piece p) {
                return BucketHash.finish(BucketHash.add(BucketHash.SEED, p.id())) & mask;
            }

            @Override
            public boolean sameBucket(Piece a, Piece b) {
                return a.id() == b.id();
            }
        };
    }

    @Test
    void holdsEachBucketOnceThroughFullHashCollisions() {
        for (long mask : new long[] {-1L, 0L, 0xf}) {
            BucketSet<Piece> s = new BucketSet<>(identity(mask));
            for (int id = 0; id < 300; id += 2) {
                assertThat(s.contains(new Piece(id, 0))).isFalse();
                s.add(new Piece(id, 0));
            }
            assertThat(s.size()).isEqualTo(150);
            for (int id = 0; id < 300; id++) {
                assertThat(s.contains(new Piece(id, 1))).as("%d", id).isEqualTo(id % 2 == 0);
            }
            assertThat(2 * s.size()).isLessThan(s.capacity());
        }
    }

    @Test
    void growsAndShrinksToWhatIsLeftAfterARemoval() {
        BucketSet<Piece> s = new BucketSet<>(identity(-1L));
        assertThat(s.capacity()).isEqualTo(BucketTable.MIN_CAPACITY);
        for (int id = 0; id < 10_000; id++) {
            s.add(new Piece(id, id < 9_990 ? 0 : 1));
            assertThat(2 * s.size()).isLessThan(s.capacity());
        }
        assertThat(s.capacity()).isEqualTo(32_768);
        s.removeIf(p -> p.window() == 2); // nothing matches: nothing changes
        assertThat(s.size()).isEqualTo(10_000);
        assertThat(s.capacity()).isEqualTo(32_768);
        s.removeIf(p -> p.window() == 0);
        assertThat(s.size()).isEqualTo(10);
        assertThat(s.capacity()).isEqualTo(32);
        assertThat(s.contains(new Piece(5, 0))).isFalse();
        assertThat(s.contains(new Piece(9_995, 0))).isTrue();
        s.removeIf(p -> true);
        assertThat(s.size()).isZero();
        assertThat(s.contains(new Piece(9_995, 0))).isFalse();
        s.add(new Piece(1, 0));
        assertThat(s.contains(new Piece(1, 0))).isTrue();
    }
}
