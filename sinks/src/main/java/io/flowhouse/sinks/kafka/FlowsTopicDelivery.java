// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import java.util.Locale;
import org.apache.flink.connector.base.DeliveryGuarantee;

/**
 * The delivery guarantee of the decoded-flows topic, as a consumer reading with {@code
 * isolation.level=read_committed} sees it.
 */
public enum FlowsTopicDelivery {
    /**
     * Kafka transactions committed on Flink checkpoints: each flow once, even after a TaskManager
     * or broker failure; a flow becomes visible when the checkpoint after it completes (up to one
     * checkpoint interval plus the checkpoint's own time later).
     */
    EXACTLY_ONCE(DeliveryGuarantee.EXACTLY_ONCE),
    /**
     * Flushed on checkpoints, visible as soon as written (linger + a round trip): after a failure
     * the flows since the last checkpoint are written again (same {@code row_id}).
     */
    AT_LEAST_ONCE(DeliveryGuarantee.AT_LEAST_ONCE);

    private final DeliveryGuarantee guarantee;

    FlowsTopicDelivery(DeliveryGuarantee guarantee) {
        this.guarantee = guarantee;
    }

    public DeliveryGuarantee guarantee() {
        return guarantee;
    }

    /** The word used in keys and flags. */
    public String word() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
