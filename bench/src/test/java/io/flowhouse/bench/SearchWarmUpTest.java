// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The e2e and agent searches' warm-up and ladder refinement, as chosen from the options. */
class SearchWarmUpTest {

    private static DropFreeSearch.Settings plain(double... rates) {
        List<Double> r = new ArrayList<>();
        for (double d : rates) {
            r.add(d);
        }
        return new DropFreeSearch.Settings("ipfix", 8, r, 20, 60_000, 200, null, 0);
    }

    @Test
    void theOtherStagesKeepThreeSecondsAtHalfTheFirstRateAndOneHalfwayStep() {
        DropFreeSearch.Settings s = plain(50_000, 100_000);
        assertThat(s.warmUp().rates()).containsExactly(25_000.0);
        assertThat(s.warmUp().secondsEach()).isEqualTo(3);
        assertThat(s.refineSteps()).isEqualTo(1);
    }

    @Test
    void e2eRampsBothJobsToTheFirstRateOverFortyFiveSecondsAndRefines() {
        DropFreeSearch.Settings s =
                BenchOptions.parse().e2e(plain(50_000, 100_000, 150_000, 200_000));
        assertThat(s.warmUp().rates()).containsExactly(16_667.0, 33_333.0, 50_000.0);
        assertThat(s.warmUp().secondsEach()).isEqualTo(15);
        assertThat(s.warmUp().seconds()).isEqualTo(BenchOptions.E2E_WARM_UP_SECONDS);
        assertThat(s.refineSteps()).isEqualTo(BenchOptions.E2E_REFINE_STEPS);
        // Fine enough to tell 90 % from 86 % of a ceiling.
        assertThat(s.refineGap()).isLessThan(0.04);
        assertThat(s.rates()).containsExactly(50_000.0, 100_000.0, 150_000.0, 200_000.0);
    }

    @Test
    void aHighFirstRateWarmsUpToTheCapNotToTheFirstRung() {
        DropFreeSearch.Settings s = BenchOptions.parse().e2e(plain(150_000, 160_000));
        assertThat(s.warmUp().rates()).last().isEqualTo((double) BenchOptions.E2E_WARM_UP_TOP);
    }

    @Test
    void theFlagsSetLengthAndTopAndAreChecked() {
        DropFreeSearch.Settings s =
                BenchOptions.parse("--warm-up-seconds", "90", "--warm-up-rate", "120000")
                        .e2e(plain(20_000));
        assertThat(s.warmUp().rates()).containsExactly(40_000.0, 80_000.0, 120_000.0);
        assertThat(s.warmUp().secondsEach()).isEqualTo(30);
        assertThatThrownBy(() -> BenchOptions.parse("--warm-up-seconds", "1").e2e(plain(20_000)))
                .isInstanceOf(BenchOptions.UsageError.class);
    }

    @Test
    void theAgentStageRampsEverySystemToTheFirstRateOverTwentySecondsAndRefines() {
        DropFreeSearch.Settings s = BenchOptions.parse().agent(plain(400_000, 800_000, 1_200_000));
        assertThat(s.warmUp().rates()).containsExactly(133_333.0, 266_667.0, 400_000.0);
        assertThat(s.warmUp().seconds()).isEqualTo(18);
        assertThat(s.refineSteps()).isEqualTo(BenchOptions.E2E_REFINE_STEPS);
        DropFreeSearch.Settings flagged =
                BenchOptions.parse("--warm-up-seconds", "30", "--warm-up-rate", "600000")
                        .agent(plain(400_000));
        assertThat(flagged.warmUp().rates()).containsExactly(200_000.0, 400_000.0, 600_000.0);
        assertThat(flagged.warmUp().secondsEach()).isEqualTo(10);
    }
}
