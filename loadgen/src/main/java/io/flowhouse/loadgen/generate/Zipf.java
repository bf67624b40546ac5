// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.generate;

import java.util.Arrays;

/**
 * A Zipf distribution over ranks {@code 0..n-1}: rank k is drawn with probability proportional to
 * {@code 1 / (k+1)^s}. Sampling is a binary search in the precomputed cumulative table, so it is
 * O(log n) and allocation-free; the caller supplies the uniform variate, which keeps this
 * deterministic and thread-safe.
 */
public final class Zipf {
    private final double[] cdf;

    public Zipf(int n, double exponent) {
        if (n < 1) {
            throw new IllegalArgumentException("n " + n + " (expected: >= 1)");
        }
        cdf = new double[n];
        double sum = 0;
        for (int k = 0; k < n; k++) {
            sum += 1.0 / Math.pow(k + 1, exponent);
            cdf[k] = sum;
        }
        for (int k = 0; k < n; k++) {
            cdf[k] /= sum;
        }
        cdf[n - 1] = 1.0;
    }

    /** The rank for a uniform variate {@code u} in [0, 1). */
    public int rank(double u) {
        int i = Arrays.binarySearch(cdf, u);
        int r = i >= 0 ? i + 1 : -i - 1;
        return Math.min(r, cdf.length - 1);
    }

    public int size() {
        return cdf.length;
    }

    /** Probability of rank {@code k}. */
    public double probability(int k) {
        return k == 0 ? cdf[0] : cdf[k] - cdf[k - 1];
    }
}
