// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The context pieces' local sums: pieces of the same window and {@link ContextRow.Key} are summed,
 * and no others (the flushing rules are {@link BucketCombiner}'s, tested in {@link
 * PieceCombinerTest}).
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class ContextCombinerTest {

    private static final long MINUTE = 60_000L;
    private static final long T0 = 1_705_320_000_000L;

    private static final IpAddress[] EXPORTERS = {
        IpAddress.parse("192.0.2.1"), IpAddress.parse("2001:db8::1")
    };
    private static final String[] NAMES = {"", "xe-0/0/1", "xe-0/0/2"};
    private static final String[] COUNTRIES = {"", "DE", "FR"};

    /** A copy, so that equal strings are not always the same object. */
    private static String copy(String s) {
        return new String(s.toCharArray());
    }

    @Test
    void sumsThePiecesOfAWindowAndKeyAndNoOthers() throws Exception {
        SplittableRandom rnd = new SplittableRandom(11);
        Map<List<Object>, long[]> expected = new HashMap<>();
        try (var h =
                new OneInputStreamOperatorTestHarness<ContextRow, ContextRow>(
                        new ContextCombiner(MINUTE, 10 * MINUTE, 100_000))) {
            h.open();
            // 2^10 x 3 x 3 x 3 buckets, about four pieces each; each field alone tells some apart.
            for (int i = 0; i < 100_000; i++) {
                ContextRow r =
                        new ContextRow(
                                1 + rnd.nextInt(2),
                                T0 + rnd.nextInt(2) * MINUTE,
                                EXPORTERS[rnd.nextInt(2)],
                                rnd.nextInt(2) * 31,
                                rnd.nextInt(2),
                                copy(NAMES[rnd.nextInt(3)]),
                                rnd.nextInt(2),
                                rnd.nextInt(2) * 2,
                                rnd.nextInt(2) * 17,
                                64_500 + rnd.nextInt(2),
                                64_500 + rnd.nextInt(2) * 31,
                                copy(COUNTRIES[rnd.nextInt(3)]),
                                copy(COUNTRIES[rnd.nextInt(3)]),
                                1 + rnd.nextInt(1000),
                                1 + rnd.nextInt(10),
                                rnd.nextInt(2),
                                0);
                h.processElement(r, r.windowStart());
                long[] sums =
                        expected.computeIfAbsent(
                                List.of(r.windowStart(), r.key()), k -> new long[3]);
                sums[0] += r.bytes();
                sums[1] += r.packets();
                sums[2] += r.flows();
            }
            assertThat(h.extractOutputValues()).isEmpty();
            h.processWatermark(new Watermark(T0));
            Map<List<Object>, long[]> actual = new HashMap<>();
            for (ContextRow r : h.extractOutputValues()) {
                assertThat(
                                actual.put(
                                        List.of(r.windowStart(), r.key()),
                                        new long[] {r.bytes(), r.packets(), r.flows()}))
                        .as("one row per bucket")
                        .isNull();
            }
            assertThat(actual).hasSameSizeAs(expected);
            expected.forEach((k, v) -> assertThat(actual.get(k)).as("%s", k).containsExactly(v));
        }
    }
}
