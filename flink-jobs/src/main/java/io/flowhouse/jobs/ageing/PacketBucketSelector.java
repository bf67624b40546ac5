// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.packet.PacketSummary;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * Keys packets by the bucket of their flow key ({@link FlowTable#bucket}), for the bucketed flow
 * table: every packet of a flow (both directions of a biflow) lands in the same bucket.
 */
public final class PacketBucketSelector implements KeySelector<PacketSummary, Integer> {

    private static final long serialVersionUID = 1L;

    private final boolean biflow;
    private final int buckets;

    /**
     * The boxed bucket keys, made once: {@code Integer.valueOf} caches only -128..127, so every
     * packet would box a new key for the state backend to hash and compare.
     */
    private transient Integer[] keys;

    public PacketBucketSelector(boolean biflow, int buckets) {
        if (buckets < 1) {
            throw new IllegalArgumentException("buckets " + buckets + " (expected: >= 1)");
        }
        this.biflow = biflow;
        this.buckets = buckets;
    }

    @Override
    public Integer getKey(PacketSummary p) {
        int b = FlowTable.bucket(new FlowTable.Key().set(p, biflow).hash64, buckets);
        if (keys == null) {
            keys = new Integer[buckets];
        }
        Integer k = keys[b];
        if (k == null) {
            k = b;
            keys[b] = k;
        }
        return k;
    }
}
