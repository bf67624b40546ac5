// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.util.List;

/**
 * A system's drop-free search.
 *
 * @param system name
 * @param steps every step run, in order
 * @param loadgenLimited true when the search ended without loss (loadgen could not go faster, or
 *     the highest rate asked for was reached), so the highest clean rate is a lower bound
 * @param error why the search stopped early, or null
 * @param notes versions and settings
 */
record SystemResult(
        String system,
        List<StepResult> steps,
        boolean loadgenLimited,
        String error,
        List<String> notes) {

    /** The highest achieved rate of a clean step; 0 when none was clean. */
    double highestCleanRate() {
        return steps.stream()
                .filter(StepResult::clean)
                .mapToDouble(StepResult::achievedRate)
                .max()
                .orElse(0);
    }

    /**
     * The highest achieved rate of a drop-free step (clean, and sustained where the stage measures
     * it); 0 when none was.
     */
    double highestDropFreeRate() {
        StepResult best = bestStep();
        return best == null ? 0 : best.achievedRate();
    }

    /** The drop-free step with the highest rate, or null. */
    StepResult bestStep() {
        StepResult best = null;
        for (StepResult s : steps) {
            if (s.dropFree() && (best == null || s.achievedRate() > best.achievedRate())) {
                best = s;
            }
        }
        return best;
    }
}
