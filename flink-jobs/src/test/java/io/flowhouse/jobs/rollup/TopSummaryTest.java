// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * The Space-Saving summary: exact below its capacity, and above it the algorithm's guarantees on a
 * skewed stream of many more addresses than it holds, checked against exact sums: the counts add up
 * to the total, every true count lies in [bytes - error, bytes], errors stay below total /
 * capacity, every address above that share is held. Snapshots and copies continue identically.
 */
class TopSummaryTest {

    /** One update: an address pair (conversation) and its counters. */
    private record Update(long sHi, long sLo, long dHi, long dLo, long b, long p, long f) {}

    private record Totals(long bytes, long packets, long flows) {}

    /** A Zipf-like stream: address i gets weight ~ 1 / (i + 1), byte sizes vary. */
    private static List<Update> zipf(int distinct, int n, long seed) {
        Random rnd = new Random(seed);
        double[] cdf = new double[distinct];
        double sum = 0;
        for (int i = 0; i < distinct; i++) {
            sum += 1.0 / (i + 1);
            cdf[i] = sum;
        }
        Update[] out = new Update[n];
        for (int k = 0; k < n; k++) {
            double x = rnd.nextDouble() * sum;
            int lo = 0;
            int hi = distinct - 1;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (cdf[mid] < x) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            // Spread over the whole address space (IPv4-mapped and IPv6), dst differs per pair.
            long a = lo;
            out[k] =
                    new Update(
                            a % 3 == 0 ? 0 : 0x2001_0db8_0000_0000L + a,
                            0xffff_c000_0200L + a * 7919,
                            a % 5,
                            a * 31,
                            40 + rnd.nextInt(1460),
                            1 + rnd.nextInt(3),
                            rnd.nextInt(2));
        }
        return List.of(out);
    }

    private static Map<Update, Totals> exact(List<Update> stream) {
        Map<Update, Totals> m = new HashMap<>();
        for (Update u : stream) {
            Update k = key(u.sHi, u.sLo, u.dHi, u.dLo);
            Totals t = m.getOrDefault(k, new Totals(0, 0, 0));
            m.put(k, new Totals(t.bytes + u.b, t.packets + u.p, t.flows + u.f));
        }
        return m;
    }

    private static Update key(long sHi, long sLo, long dHi, long dLo) {
        return new Update(sHi, sLo, dHi, dLo, 0, 0, 0);
    }

    private static void addAll(TopSummary s, List<Update> stream) {
        for (Update u : stream) {
            s.add(u.sHi, u.sLo, u.dHi, u.dLo, u.b, u.p, u.f);
        }
    }

    private static Update keyOf(TopSummary s, int e) {
        return key(s.srcHi(e), s.srcLo(e), s.dstHi(e), s.dstLo(e));
    }

    @Test
    void belowItsCapacityEveryCountIsExact() {
        List<Update> stream = zipf(300, 20_000, 1);
        Map<Update, Totals> truth = exact(stream);
        TopSummary s = new TopSummary(truth.size());
        addAll(s, stream);
        assertThat(s.size()).isEqualTo(truth.size());
        for (int e = 0; e < s.size(); e++) {
            Totals t = truth.get(keyOf(s, e));
            assertThat(t).isNotNull();
            assertThat(s.bytes(e)).isEqualTo(t.bytes);
            assertThat(s.packets(e)).isEqualTo(t.packets);
            assertThat(s.flows(e)).isEqualTo(t.flows);
            assertThat(s.error(e)).isZero();
        }
        int[] top = s.top(5);
        long[] expected = truth.values().stream().mapToLong(Totals::bytes).sorted().toArray();
        for (int i = 0; i < 5; i++) {
            assertThat(s.bytes(top[i])).isEqualTo(expected[expected.length - 1 - i]);
        }
    }

    @Test
    void aboveItsCapacityTheSpaceSavingGuaranteesHold() {
        List<Update> stream = zipf(20_000, 200_000, 2);
        Map<Update, Totals> truth = exact(stream);
        int capacity = 256;
        TopSummary s = new TopSummary(capacity);
        addAll(s, stream);
        checkGuarantees(s, truth, stream);
    }

    private static void checkGuarantees(
            TopSummary s, Map<Update, Totals> truth, List<Update> stream) {
        long total = stream.stream().mapToLong(Update::b).sum();
        long bound = total / s.capacity();
        assertThat(s.size()).isEqualTo(s.capacity());
        long sum = 0;
        Set<Update> held = new HashSet<>();
        for (int e = 0; e < s.size(); e++) {
            Update k = keyOf(s, e);
            assertThat(held.add(k)).as("one entry per address").isTrue();
            long t = truth.getOrDefault(k, new Totals(0, 0, 0)).bytes;
            assertThat(s.bytes(e) - s.error(e)).isLessThanOrEqualTo(t);
            assertThat(s.bytes(e)).isGreaterThanOrEqualTo(t);
            assertThat(s.error(e)).isLessThanOrEqualTo(bound);
            sum += s.bytes(e);
        }
        assertThat(sum).isEqualTo(total);
        for (Map.Entry<Update, Totals> e : truth.entrySet()) {
            if (e.getValue().bytes > bound) {
                assertThat(held).contains(e.getKey());
            }
        }
        // The true top 3 of a Zipf stream stand far above the error: ranked first, exactly.
        List<Map.Entry<Update, Totals>> ranked =
                truth.entrySet().stream()
                        .sorted((a, b) -> Long.compare(b.getValue().bytes, a.getValue().bytes))
                        .limit(3)
                        .toList();
        int[] top = s.top(3);
        for (int i = 0; i < 3; i++) {
            assertThat(keyOf(s, top[i])).isEqualTo(ranked.get(i).getKey());
        }
    }

    @Test
    void aRestoredSnapshotAndACopyContinueExactlyLikeTheOriginal() throws IOException {
        List<Update> stream = zipf(5_000, 60_000, 4);
        TopSummary s = new TopSummary(128);
        addAll(s, stream.subList(0, 30_000));
        DataOutputSerializer out = new DataOutputSerializer(1024);
        TopSummarySerializer.INSTANCE.serialize(s, out);
        assertThat(out.length()).isEqualTo(9 + 64 * 128);
        TopSummary restored =
                TopSummarySerializer.INSTANCE.deserialize(
                        new DataInputDeserializer(out.getCopyOfBuffer()));
        TopSummary copy = TopSummarySerializer.INSTANCE.copy(s);
        List<Update> rest = stream.subList(30_000, 60_000);
        addAll(s, rest);
        addAll(restored, rest);
        assertThat(describe(restored)).isEqualTo(describe(s));
        // The copy did not see the rest.
        assertThat(describe(copy)).isNotEqualTo(describe(s));
        addAll(copy, rest);
        assertThat(describe(copy)).isEqualTo(describe(s));
        s.markEmitted();
        assertThat(s.dirty()).isFalse();
        assertThat(restored.dirty()).isTrue();
    }

    /** Every entry with its counters, in ranking order. */
    private static List<String> describe(TopSummary s) {
        return java.util.Arrays.stream(s.top(s.size()))
                .mapToObj(
                        e ->
                                keyOf(s, e)
                                        + " "
                                        + s.bytes(e)
                                        + "/"
                                        + s.packets(e)
                                        + "/"
                                        + s.flows(e)
                                        + "/"
                                        + s.error(e))
                .toList();
    }

    /**
     * The ranks kept in one pass are a full sort's first ranks, ties included (few byte values).
     */
    @Test
    void topNIsTheFullSortsPrefix() {
        Random rnd = new Random(0x70bL);
        for (int round = 0; round < 50; round++) {
            TopSummary s = new TopSummary(100 + rnd.nextInt(400));
            int adds = 1 + rnd.nextInt(2_000);
            for (int i = 0; i < adds; i++) {
                long a = rnd.nextInt(600);
                s.add(a % 2, a * 7, a % 3, a, 1 + rnd.nextInt(4) * 100L, 1, 1);
            }
            int[] all = s.top(s.size()); // above 64 ranks: a full sort
            for (int n : new int[] {1, 2, 5, 20, 64}) {
                int[] top = s.top(n);
                assertThat(top)
                        .containsExactly(java.util.Arrays.copyOf(all, Math.min(n, all.length)));
            }
        }
    }
}
