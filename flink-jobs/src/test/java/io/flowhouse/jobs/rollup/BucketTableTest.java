// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;

/** The combiner's table: sums per bucket through hash collisions, growth to its bound, drains. */
class BucketTableTest {

    /** A piece of bucket {@code id}. */
    private record Piece(int id, long bytes, long packets, long flows) implements Counted {
        Piece(int id, long bytes) {
            this(id, bytes, bytes / 10, 1);
        }
    }

    private static BucketTable.Identity<Piece> identity(ToLongFunction<Piece> hash) {
        return new BucketTable.Identity<>() {
            @Override
            public long hash(Piece p) {
                return hash.applyAsLong(p);
            }

            @Override
            public boolean sameBucket(Piece a, Piece b) {
                return a.id() == b.id();
            }
        };
    }

    /** A well-mixed hash of the id. */
    private static final BucketTable.Identity<Piece> MIXED =
            identity(p -> BucketHash.finish(BucketHash.add(BucketHash.SEED, p.id())));

    /** The buckets drained, as "id bytes/packets/flows xpieces", in the order received. */
    private static List<String> drain(BucketTable<Piece> t) {
        List<String> out = new ArrayList<>();
        t.drain(
                (first, pieces, bytes, packets, flows) ->
                        out.add(
                                first.id()
                                        + " "
                                        + bytes
                                        + "/"
                                        + packets
                                        + "/"
                                        + flows
                                        + " x"
                                        + pieces));
        return out;
    }

    @Test
    void sumsPiecesOfABucketAndDrainsInTheOrderBucketsOpened() {
        BucketTable<Piece> t = new BucketTable<>(MIXED, 100);
        assertThat(t.add(new Piece(7, 100))).isTrue();
        assertThat(t.add(new Piece(3, 50))).isTrue();
        assertThat(t.add(new Piece(7, 20))).isFalse();
        assertThat(t.add(new Piece(9, 1, 2, 0))).isTrue();
        assertThat(t.size()).isEqualTo(3);
        assertThat(drain(t)).containsExactly("7 120/12/2 x2", "3 50/5/1 x1", "9 1/2/0 x1");
        assertThat(t.isEmpty()).isTrue();
        assertThat(drain(t)).isEmpty();
    }

    @Test
    void keepsBucketsApartWhoseFullHashesCollide() {
        // Every piece hashes to the same value, 0 among them (the free-slot mark): each lookup
        // walks the run and tells the buckets apart by sameBucket alone.
        for (long constant : new long[] {0L, 1L, -1L, 0x8000_0000_0000_0000L}) {
            BucketTable<Piece> t = new BucketTable<>(identity(p -> constant), 1000);
            for (int round = 0; round < 3; round++) {
                for (int id = 0; id < 200; id++) {
                    assertThat(t.add(new Piece(id, id + 1))).isEqualTo(round == 0);
                }
            }
            List<String> out = drain(t);
            assertThat(out).hasSize(200);
            for (int id = 0; id < 200; id++) {
                long b = 3L * (id + 1);
                assertThat(out.get(id))
                        .isEqualTo(id + " " + b + "/" + 3 * ((id + 1) / 10) + "/3 x3");
            }
        }
    }

    @Test
    void keepsBucketsApartWhoseSlotsCollide() {
        // Equal low bits (one home slot), different full hashes; probing wraps round the end.
        BucketTable<Piece> t = new BucketTable<>(identity(p -> ((long) p.id() << 32) | 15), 1000);
        for (int id = 0; id < 5; id++) {
            t.add(new Piece(id, 10));
            t.add(new Piece(id, 1));
        }
        assertThat(drain(t))
                .containsExactly(
                        "0 11/1/2 x2", "1 11/1/2 x2", "2 11/1/2 x2", "3 11/1/2 x2", "4 11/1/2 x2");
    }

    @Test
    void growsToItsBoundAndNoFurther() {
        int max = 50_000;
        BucketTable<Piece> t = new BucketTable<>(MIXED, max);
        assertThat(t.capacity()).isEqualTo(BucketTable.MIN_CAPACITY);
        Map<Integer, Long> expected = new LinkedHashMap<>();
        for (int id = 0; id < max; id++) {
            assertThat(t.full()).isFalse();
            t.add(new Piece(id, id));
            t.add(new Piece(id, 1));
            expected.put(id, id + 1L);
            // Less than half full at every size.
            assertThat(2 * t.size()).isLessThan(t.capacity());
        }
        assertThat(t.full()).isTrue();
        assertThat(t.capacity()).isEqualTo(131_072).isEqualTo(BucketTable.capacityFor(max));
        // A piece of a bucket held still adds; a new bucket needs a drain first.
        assertThat(t.add(new Piece(0, 5))).isFalse();
        expected.put(0, 6L);
        assertThatThrownBy(() -> t.add(new Piece(max, 1)))
                .isInstanceOf(IllegalStateException.class);
        List<String> out = drain(t);
        assertThat(out).hasSize(max);
        int k = 0;
        for (Map.Entry<Integer, Long> e : expected.entrySet()) {
            assertThat(out.get(k++)).startsWith(e.getKey() + " " + e.getValue() + "/");
        }
    }

    @Test
    void drainEmptiesTheTableAndShrinksItToTheFlushJustSent() {
        BucketTable<Piece> t = new BucketTable<>(MIXED, 10_000);
        for (int id = 0; id < 5_000; id++) {
            t.add(new Piece(id, 1));
        }
        assertThat(t.capacity()).isEqualTo(16_384);
        drain(t);
        // Sized for 5,000 buckets: no regrowth when the next flush is as large.
        assertThat(t.capacity()).isEqualTo(16_384);
        for (int id = 0; id < 100; id++) {
            assertThat(t.add(new Piece(id, 1))).isTrue();
        }
        assertThat(drain(t)).hasSize(100).allMatch(s -> s.endsWith(" 1/0/1 x1"));
        assertThat(t.capacity()).isEqualTo(256);
        // Nothing of the earlier buckets is left behind.
        assertThat(t.add(new Piece(4_999, 1))).isTrue();
        assertThat(t.add(new Piece(50, 1))).isTrue();
        assertThat(drain(t)).containsExactly("4999 1/0/1 x1", "50 1/0/1 x1");
        assertThat(t.capacity()).isEqualTo(BucketTable.MIN_CAPACITY);
    }

    @Test
    void capacityHoldsTheBucketsLessThanHalfFull() {
        assertThat(BucketTable.capacityFor(0)).isEqualTo(16);
        assertThat(BucketTable.capacityFor(7)).isEqualTo(16);
        assertThat(BucketTable.capacityFor(8)).isEqualTo(32);
        assertThat(BucketTable.capacityFor(BucketTable.MAX_BUCKETS)).isEqualTo(1 << 30);
        assertThatThrownBy(() -> new BucketTable<>(MIXED, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BucketTable<>(MIXED, BucketTable.MAX_BUCKETS + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
