// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.util.CloseableIterator;

/** The rollup ITCases' settings and what a rollup stream emits on the test's MiniCluster. */
final class RollupStreams {

    private RollupStreams() {}

    /**
     * Enabled, top 5, no out-of-orderness or idleness, the default retention, combiner and top-N
     * summaries, the default bucket bound.
     */
    static RollupSettings settings(Duration allowedLateness, Duration... resolutions) {
        return settings(allowedLateness, BucketBudget.DEFAULT_MAX_BUCKETS, resolutions);
    }

    /** {@link #settings(Duration, Duration...)} with at most {@code maxBuckets} per scope. */
    static RollupSettings settings(
            Duration allowedLateness, int maxBuckets, Duration... resolutions) {
        return new RollupSettings(
                true,
                List.of(resolutions),
                5,
                Duration.ZERO,
                allowedLateness,
                Duration.ZERO,
                Map.of(),
                PieceCombiner.DEFAULT_MAX_BUCKETS,
                RollupConfigKeys.TOP_CAPACITY.defaultValue(),
                RollupConfigKeys.TOP_SHARDS.defaultValue(),
                maxBuckets);
    }

    /** Runs the stream's job to its end; every element it emitted, in order. */
    static <T> List<T> collect(DataStream<T> stream, String job) throws Exception {
        List<T> out = new ArrayList<>();
        CloseableIterator<T> it = stream.executeAndCollect(job);
        try {
            it.forEachRemaining(out::add);
        } finally {
            it.close();
        }
        return out;
    }
}
