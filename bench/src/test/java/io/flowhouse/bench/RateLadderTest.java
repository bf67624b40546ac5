// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RateLadderTest {

    private static final long SECOND = 1_000_000_000L;

    /**
     * A system that loses nothing up to {@code capacity} flows/s, fed by a load that sends at most
     * {@code loadCeiling} flows/s; every step takes ten seconds on the test's clock.
     */
    private static final class FakeSystem implements RateLadder.Step {
        final double capacity;
        final double loadCeiling;
        final List<Double> offered = new ArrayList<>();
        long now;

        FakeSystem(double capacity, double loadCeiling) {
            this.capacity = capacity;
            this.loadCeiling = loadCeiling;
        }

        @Override
        public StepResult run(double rate) {
            offered.add(rate);
            now += 10 * SECOND;
            double achieved = Math.min(rate, loadCeiling);
            long expected = (long) achieved * 10;
            long delivered = achieved <= capacity ? expected : expected / 2;
            return new StepResult(
                    "fake",
                    rate,
                    achieved,
                    achieved >= rate * 0.98,
                    expected,
                    expected / 20,
                    "flows",
                    expected,
                    delivered,
                    0,
                    Map.of(),
                    Map.of(),
                    Map.of(),
                    10);
        }
    }

    private static List<Double> rates(double... r) {
        List<Double> l = new ArrayList<>();
        for (double d : r) {
            l.add(d);
        }
        return l;
    }

    private static RateLadder ladder(FakeSystem s, List<Double> rates) {
        return new RateLadder(rates, 10 * SECOND, 1_000 * SECOND, () -> s.now);
    }

    private static List<Double> targets(RateLadder.Outcome o) {
        return o.steps().stream().map(StepResult::targetRate).toList();
    }

    @Test
    void allCleanRunsEveryRateAndIsALowerBound() {
        FakeSystem s = new FakeSystem(1e9, 1e9);
        RateLadder.Outcome o = ladder(s, rates(1000, 2000, 4000)).climb(s, StepResult::clean);

        assertThat(targets(o)).containsExactly(1000.0, 2000.0, 4000.0);
        assertThat(o.limited()).isTrue();
        assertThat(o.error()).isNull();
        assertThat(o.failure()).isNull();
    }

    @Test
    void stopsAtTheFirstUncleanStepThenTriesHalfwayOnce() {
        FakeSystem s = new FakeSystem(3000, 1e9);
        RateLadder.Outcome o = ladder(s, rates(1000, 2000, 4000, 8000)).climb(s, StepResult::clean);

        // 8000 is never offered; the halfway step comes last, whatever its outcome.
        assertThat(targets(o)).containsExactly(1000.0, 2000.0, 4000.0, 3000.0);
        assertThat(o.steps().get(2).clean()).isFalse();
        assertThat(o.steps().get(3).clean()).isTrue();
        assertThat(o.limited()).isFalse();
        assertThat(o.error()).isNull();
    }

    @Test
    void halfwayIsRoundedBetweenLastCleanAndFirstUnclean() {
        FakeSystem s = new FakeSystem(1000, 1e9);
        RateLadder.Outcome o = ladder(s, rates(1000, 2001)).climb(s, StepResult::clean);

        // (1000 + 2001) / 2 = 1500.5, rounded half up; an unclean halfway step is not retried.
        assertThat(targets(o)).containsExactly(1000.0, 2001.0, 1501.0);
        assertThat(o.steps().get(2).clean()).isFalse();
        assertThat(o.limited()).isFalse();
    }

    @Test
    void uncleanFirstStepHalvesUntilCleanAndKeepsAscendingOrder() {
        FakeSystem s = new FakeSystem(1500, 1e9);
        RateLadder.Outcome o = ladder(s, rates(8000, 16000)).climb(s, StepResult::clean);

        assertThat(s.offered).containsExactly(8000.0, 4000.0, 2000.0, 1000.0);
        assertThat(targets(o)).containsExactly(1000.0, 2000.0, 4000.0, 8000.0);
        assertThat(o.limited()).isFalse();
    }

    @Test
    void halvingStopsAfterThreeTimes() {
        FakeSystem s = new FakeSystem(100, 1e9);
        RateLadder.Outcome o = ladder(s, rates(80_000)).climb(s, StepResult::clean);

        assertThat(targets(o)).containsExactly(10_000.0, 20_000.0, 40_000.0, 80_000.0);
        assertThat(o.steps()).noneMatch(StepResult::clean);
    }

    @Test
    void halvingNeverGoesBelowTheLowestRate() {
        FakeSystem s = new FakeSystem(0, 1e9);
        RateLadder.Outcome o = ladder(s, rates(1999)).climb(s, StepResult::clean);

        // 1999 -> 1000 -> 500 -> 250 (below 500: not offered).
        assertThat(targets(o)).containsExactly(500.0, 1000.0, 1999.0);
    }

    @Test
    void loadCeilingEndsTheSearchAsALowerBound() {
        FakeSystem s = new FakeSystem(1e9, 3000);
        RateLadder.Outcome o =
                ladder(s, rates(1000, 2000, 4000, 8000, 16000)).climb(s, StepResult::clean);

        // 4000: the load sent 3000, short of the rate but 1.5 x the 2000 sent before: go on.
        // 8000: the load sent 3000 again, less than 1.1 x before: the load's ceiling, stop.
        assertThat(targets(o)).containsExactly(1000.0, 2000.0, 4000.0, 8000.0);
        assertThat(o.steps().get(2).rateHeld()).isFalse();
        assertThat(o.limited()).isTrue();
        assertThat(o.error()).isNull();
    }

    @Test
    void aShortFirstStepIsNotTheCeiling() {
        FakeSystem s = new FakeSystem(1e9, 500);
        RateLadder.Outcome o = ladder(s, rates(1000, 2000, 4000)).climb(s, StepResult::clean);

        // Nothing was sent before the first step: it cannot be the ceiling; the second can.
        assertThat(targets(o)).containsExactly(1000.0, 2000.0);
        assertThat(o.limited()).isTrue();
    }

    @Test
    void anUncleanStepShortOfItsRateIsStillUnclean() {
        FakeSystem s = new FakeSystem(1500, 2000);
        RateLadder.Outcome o = ladder(s, rates(1000, 4000)).climb(s, StepResult::clean);

        // 4000 sent 2000 only, and lost: a loss, not a ceiling, so the halfway step runs.
        assertThat(targets(o)).containsExactly(1000.0, 4000.0, 2500.0);
        assertThat(o.limited()).isFalse();
    }

    @Test
    void timeBoundStopsTheClimbAndSkipsTheHalfwayStep() {
        FakeSystem s = new FakeSystem(2500, 1e9);
        // Steps take 10 s with a 10 s budget: at 0 s and 10 s a step fits before 25 s, at 20 s not.
        RateLadder ladder =
                new RateLadder(rates(1000, 2000, 4000), 10 * SECOND, 25 * SECOND, () -> s.now);
        RateLadder.Outcome o = ladder.climb(s, StepResult::clean);

        assertThat(targets(o)).containsExactly(1000.0, 2000.0);
        assertThat(o.error()).isEqualTo(RateLadder.TIME_BOUND);
        assertThat(o.limited()).isTrue();

        FakeSystem lossy = new FakeSystem(1500, 1e9);
        RateLadder.Outcome late =
                new RateLadder(rates(1000, 2000), 10 * SECOND, 25 * SECOND, () -> lossy.now)
                        .climb(lossy, StepResult::clean);
        // The halfway step needs the budget strictly before the deadline: 20 + 10 < 25 is false.
        assertThat(targets(late)).containsExactly(1000.0, 2000.0);
        assertThat(late.error()).isNull();
    }

    @Test
    void noStepFitsNoStepRuns() {
        FakeSystem s = new FakeSystem(1e9, 1e9);
        RateLadder.Outcome o =
                new RateLadder(rates(1000), 10 * SECOND, 5 * SECOND, () -> s.now)
                        .climb(s, StepResult::clean);

        assertThat(o.steps()).isEmpty();
        assertThat(o.limited()).isFalse();
        assertThat(o.error()).isEqualTo(RateLadder.TIME_BOUND);
    }

    @Test
    void aFailingStepKeepsTheStepsBeforeIt() {
        FakeSystem s = new FakeSystem(1e9, 1e9);
        IOException boom = new IOException("collector died");
        RateLadder.Step failing =
                rate -> {
                    if (rate >= 4000) {
                        throw boom;
                    }
                    return s.run(rate);
                };
        RateLadder.Outcome o =
                ladder(s, rates(1000, 2000, 4000, 8000)).climb(failing, StepResult::clean);

        assertThat(targets(o)).containsExactly(1000.0, 2000.0);
        assertThat(o.failure()).isSameAs(boom);
        assertThat(o.error()).isEqualTo(boom.toString());
        assertThat(o.limited()).isFalse();

        RateLadder.Outcome none = RateLadder.Outcome.failed(boom);
        assertThat(none.steps()).isEmpty();
        assertThat(none.error()).isEqualTo(boom.toString());
    }

    @Test
    void theCleanPredicateDecides() {
        FakeSystem s = new FakeSystem(1e9, 1e9);
        // Everything the system delivers is clean, but the caller's predicate rejects 4000.
        RateLadder.Outcome o =
                ladder(s, rates(1000, 2000, 4000, 8000))
                        .climb(s, r -> r.clean() && r.targetRate() != 4000);

        assertThat(targets(o)).containsExactly(1000.0, 2000.0, 4000.0, 3000.0);
        assertThat(o.limited()).isFalse();
    }

    @Test
    void refinedBisectsTheGapAboveTheLastCleanRateUntilItIsSmallEnough() {
        // Clean to 150 K, lossy at 200 K; the capacity lies at 170 K.
        FakeSystem s = new FakeSystem(170_000, 1e9);
        RateLadder.Outcome o =
                ladder(s, rates(50_000, 100_000, 150_000, 200_000))
                        .refined(4, 0.03)
                        .climb(s, StepResult::clean);

        // 175 K lossy, 162.5 K clean, 168.75 K clean: gap 6.25 K > 3 % of 168.75 K, so one more
        // at 171.875 K (lossy); gap 3.125 K <= 5.06 K: done.
        assertThat(targets(o))
                .containsExactly(
                        50_000.0, 100_000.0, 150_000.0, 200_000.0, 175_000.0, 162_500.0, 168_750.0,
                        171_875.0);
        assertThat(o.limited()).isFalse();
    }

    @Test
    void refinedStopsAtItsStepBoundAndTheDefaultIsOneHalfwayStep() {
        FakeSystem s = new FakeSystem(101_000, 1e9);
        RateLadder.Outcome o =
                ladder(s, rates(100_000, 200_000)).refined(2, 0.0).climb(s, StepResult::clean);
        assertThat(targets(o)).containsExactly(100_000.0, 200_000.0, 150_000.0, 125_000.0);

        FakeSystem d = new FakeSystem(101_000, 1e9);
        assertThat(targets(ladder(d, rates(100_000, 200_000)).climb(d, StepResult::clean)))
                .containsExactly(100_000.0, 200_000.0, 150_000.0);
    }
}
