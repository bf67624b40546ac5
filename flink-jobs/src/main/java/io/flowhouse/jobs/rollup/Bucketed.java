// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;

/**
 * A rollup piece's scope: one exporter's buckets of one kind in one window ({@link BucketBudget}).
 */
public interface Bucketed {
    long windowStart();

    int kind();

    IpAddress exporter();
}
