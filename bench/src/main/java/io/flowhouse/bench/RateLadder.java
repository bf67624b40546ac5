// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * The drop-free search's decisions, shared by {@code bench agent}, {@code bench ipfix} and {@code
 * bench zmq}: offer the rates in ascending order until a step is not clean, then try once halfway
 * between the last clean and the first unclean rate ({@link #refined}: halve that gap again, up to
 * a number of times, until it is at most a fraction of the clean rate, so a ceiling between two
 * rungs can be told to a few per cent; {@code bench e2e} does). When the very first rate is already
 * unclean, halve it (at most {@value #HALVINGS} times, never below {@value #LOWEST_RATE} flows/s)
 * until a step is clean; those steps go in front, so the steps stay in ascending rate order.
 *
 * <p>The load is not always what was asked for: a step whose load fell short of its rate (not
 * {@link StepResult#rateHeld()}) and sent less than {@value #CEILING_GROWTH} times the most any
 * earlier step sent is the load's ceiling on this machine, not the system's, and ends the search. A
 * search that ends on a clean step (that ceiling, the last rate, or the time bound) is {@code
 * limited}: its highest clean rate is a lower bound of the system's.
 *
 * <p>Before every step the search checks that the step fits before the deadline with the caller's
 * step budget; in the ascending part a step that does not fit ends the search with the error
 * {@value #TIME_BOUND}. Pure: what a step does (load, measure, log) is the caller's {@link Step}.
 */
final class RateLadder {

    /** A step must send this much more than the previous ones, or the load is at its ceiling. */
    static final double CEILING_GROWTH = 1.1;

    /** Halvings of the first rate at most, when it is already unclean. */
    static final int HALVINGS = 3;

    /** No halving goes below this rate (flows/s). */
    static final long LOWEST_RATE = 500;

    static final String TIME_BOUND = "stopped at the time bound";

    /** Runs one step at the offered rate (flows/s). */
    @FunctionalInterface
    interface Step {
        StepResult run(double rate) throws Exception;
    }

    /**
     * What the search did.
     *
     * @param steps steps in ascending rate order, then the halfway steps if there were any
     * @param limited the search ended on a clean step
     * @param error why the search stopped early ({@value #TIME_BOUND}, or the failure), or null
     * @param failure what a step threw, or null; the steps before it are kept
     */
    record Outcome(List<StepResult> steps, boolean limited, String error, Exception failure) {

        /** A search that could not start: no steps. */
        static Outcome failed(Exception e) {
            return new Outcome(new ArrayList<>(), false, e.toString(), e);
        }
    }

    private final List<Double> rates;
    private final long stepBudgetNanos;
    private final long deadlineNanos;
    private final LongSupplier clock;
    private int refineSteps = 1;
    private double refineGap;

    /**
     * @param rates offered flows/s, ascending
     * @param stepBudgetNanos the most time one step may take
     * @param deadlineNanos when the search must be over, on {@code clock}
     * @param clock nanoseconds ({@code System::nanoTime})
     */
    RateLadder(List<Double> rates, long stepBudgetNanos, long deadlineNanos, LongSupplier clock) {
        this.rates = List.copyOf(rates);
        this.stepBudgetNanos = stepBudgetNanos;
        this.deadlineNanos = deadlineNanos;
        this.clock = clock;
    }

    /** A ladder on {@link System#nanoTime()}. */
    RateLadder(List<Double> rates, long stepBudgetNanos, long deadlineNanos) {
        this(rates, stepBudgetNanos, deadlineNanos, System::nanoTime);
    }

    /**
     * This ladder bisecting between the last clean and the first unclean rate up to {@code steps}
     * times (instead of once), stopping as soon as the gap is at most {@code gap} times the highest
     * clean rate.
     */
    RateLadder refined(int steps, double gap) {
        if (steps < 1 || gap < 0) {
            throw new IllegalArgumentException(
                    "refine steps " + steps + ", gap " + gap + " (expected: >= 1, >= 0)");
        }
        this.refineSteps = steps;
        this.refineGap = gap;
        return this;
    }

    Outcome climb(Step step, Predicate<StepResult> clean) {
        List<StepResult> steps = new ArrayList<>();
        boolean limited = false;
        String error = null;
        try {
            double lastClean = 0;
            double firstLossy = 0;
            double lastAchieved = 0;
            for (double rate : rates) {
                if (clock.getAsLong() + stepBudgetNanos > deadlineNanos) {
                    error = TIME_BOUND;
                    break;
                }
                StepResult s = step.run(rate);
                steps.add(s);
                if (!clean.test(s)) {
                    firstLossy = rate;
                    break;
                }
                // Load short of the offered rate and no faster than at the earlier steps: this is
                // the load's ceiling on this machine, not the system's.
                boolean ceiling = !s.rateHeld() && s.achievedRate() < lastAchieved * CEILING_GROWTH;
                lastClean = rate;
                lastAchieved = Math.max(lastAchieved, s.achievedRate());
                if (ceiling) {
                    break;
                }
            }
            // Ended clean: on the load's ceiling, on the highest rate asked for, or at the time
            // bound. Either way the highest clean rate is a lower bound.
            limited = !steps.isEmpty() && clean.test(steps.get(steps.size() - 1));
            double lo = lastClean;
            double hi = firstLossy;
            for (int i = 0;
                    i < refineSteps
                            && hi > 0
                            && lo > 0
                            && hi - lo > refineGap * lo
                            && clock.getAsLong() + stepBudgetNanos < deadlineNanos;
                    i++) {
                double mid = Math.round((lo + hi) / 2);
                StepResult s = step.run(mid);
                steps.add(s);
                if (clean.test(s)) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            // Unclean from the first step: halve the rate to find a clean one.
            double down = firstLossy;
            for (int i = 0; i < HALVINGS && lastClean == 0 && down > 0; i++) {
                down = Math.round(down / 2);
                if (down < LOWEST_RATE || clock.getAsLong() + stepBudgetNanos > deadlineNanos) {
                    break;
                }
                StepResult s = step.run(down);
                steps.add(0, s);
                if (clean.test(s)) {
                    lastClean = down;
                }
            }
            return new Outcome(steps, limited, error, null);
        } catch (Exception e) {
            return new Outcome(steps, limited, e.toString(), e);
        }
    }
}
