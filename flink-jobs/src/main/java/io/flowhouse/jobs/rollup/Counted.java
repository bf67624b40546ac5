// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

/** A rollup piece's counters: what a bucket window sums ({@link SumCounters}). */
public interface Counted {
    long bytes();

    long packets();

    long flows();
}
