// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/** Flink metrics of the decode step, under group {@code flowhouse.decode}. */
final class DecodeMetrics {
    final Counter datagrams;
    final Counter flows;
    final Counter rejected;
    final Counter held;
    final Counter heldDecoded;
    final Counter templatesLearned;
    final Counter templatesRestored;

    DecodeMetrics(MetricGroup parent) {
        MetricGroup g = parent.addGroup("flowhouse").addGroup("decode");
        datagrams = g.counter("datagrams_total");
        flows = g.counter("flows_total");
        rejected = g.counter("rejected_datagrams_total");
        held = g.counter("held_datagrams_total");
        heldDecoded = g.counter("held_datagrams_decoded_total");
        templatesLearned = g.counter("templates_learned_total");
        templatesRestored = g.counter("templates_restored_total");
    }
}
