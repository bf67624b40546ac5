// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import static io.flowhouse.jobs.decode.StreamWindow.Verdict.DUPLICATE;
import static io.flowhouse.jobs.decode.StreamWindow.Verdict.NEW;
import static io.flowhouse.jobs.decode.StreamWindow.Verdict.UNVERIFIED;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.jobs.decode.StreamWindow.Verdict;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class StreamWindowTest {

    private long[] w;
    private final long[][] out = new long[1][];

    private Verdict see(long seq, int maxGaps) {
        if (w == null) {
            w = StreamWindow.first(seq, 0);
            return NEW;
        }
        Verdict v = StreamWindow.see(w, seq, 0, maxGaps, out);
        w = out[0];
        return v;
    }

    @Test
    void inOrderIsOneIncrementAndARepeatIsADuplicate() {
        for (long s = 0; s < 1_000; s++) {
            assertThat(see(s, 4)).isEqualTo(NEW);
        }
        assertThat(w).hasSize(3); // no gap ever
        assertThat(see(999, 4)).isEqualTo(DUPLICATE);
        assertThat(see(0, 4)).isEqualTo(DUPLICATE);
        assertThat(see(500, 4)).isEqualTo(DUPLICATE);
        assertThat(see(1_000, 4)).isEqualTo(NEW);
    }

    @Test
    void gapsFillOnceInAnyOrder() {
        see(0, 8);
        see(10, 8); // gap 1..9
        see(20, 8); // gap 11..19
        assertThat(StreamWindow.gaps(w)).isEqualTo(2);
        assertThat(see(5, 8)).isEqualTo(NEW); // splits 1..9
        assertThat(StreamWindow.gaps(w)).isEqualTo(3);
        assertThat(see(5, 8)).isEqualTo(DUPLICATE);
        assertThat(see(1, 8)).isEqualTo(NEW);
        assertThat(see(9, 8)).isEqualTo(NEW);
        for (long s = 2; s <= 8; s++) {
            assertThat(see(s, 8)).as("seq %d", s).isEqualTo(s == 5 ? DUPLICATE : NEW);
        }
        assertThat(StreamWindow.gaps(w)).isEqualTo(1);
        assertThat(see(10, 8)).isEqualTo(DUPLICATE);
        assertThat(see(15, 8)).isEqualTo(NEW);
    }

    @Test
    void aStreamFirstSeenInItsMiddleStillTakesItsEarlierDatagramsOnce() {
        see(100, 4);
        assertThat(StreamWindow.gaps(w)).isEqualTo(1);
        assertThat(see(3, 4)).isEqualTo(NEW);
        assertThat(see(3, 4)).isEqualTo(DUPLICATE);
    }

    @Test
    void beyondTheBoundTheOldestGapIsForgottenAndBelowItIsUnverified() {
        see(0, 2);
        see(2, 2); // gap 1
        see(4, 2); // gap 3
        see(6, 2); // gap 5: gap 1 is forgotten, the floor moves to 2
        assertThat(StreamWindow.gaps(w)).isEqualTo(2);
        assertThat(see(1, 2)).isEqualTo(UNVERIFIED);
        assertThat(see(0, 2)).isEqualTo(UNVERIFIED);
        assertThat(see(2, 2)).isEqualTo(DUPLICATE);
        assertThat(see(3, 2)).isEqualTo(NEW);
        assertThat(see(5, 2)).isEqualTo(NEW);
        assertThat(w).hasSize(3);
    }

    @Test
    void splitsAreBoundedToo() {
        see(0, 2);
        see(100, 2); // gap 1..99
        for (long s = 90; s >= 2; s -= 2) {
            see(s, 2);
            assertThat(StreamWindow.gaps(w)).isLessThanOrEqualTo(2);
        }
    }

    /** Against a set of every sequence seen: with enough gaps, every verdict is exact. */
    @Test
    void shuffledResendsAreEachTakenExactlyOnce() {
        Random random = new Random(17);
        List<Long> arrivals = new ArrayList<>();
        for (long s = 0; s < 5_000; s++) {
            arrivals.add(s);
            if (random.nextInt(10) == 0) {
                arrivals.add(s); // re-sent at once
            }
        }
        // Runs re-sent later and runs delivered out of order, as a spool drain does.
        for (int i = 0; i < 30; i++) {
            int at = random.nextInt(arrivals.size() - 200);
            List<Long> run = new ArrayList<>(arrivals.subList(at, at + random.nextInt(50) + 1));
            if (random.nextBoolean()) {
                arrivals.subList(at, at + run.size()).clear();
            }
            int to = Math.min(arrivals.size(), at + random.nextInt(2_000));
            arrivals.addAll(to, run);
        }
        Collections.swap(arrivals, 0, arrivals.indexOf(0L));
        BitSet seen = new BitSet();
        int taken = 0;
        for (long s : arrivals) {
            Verdict v = see(s, 1_000);
            assertThat(v).as("seq %d", s).isEqualTo(seen.get((int) s) ? DUPLICATE : NEW);
            seen.set((int) s);
            if (v == NEW) {
                taken++;
            }
        }
        assertThat(taken).isEqualTo(5_000);
        assertThat(w).hasSize(3);
    }
}
