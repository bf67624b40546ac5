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
    final Counter duplicates;
    final Counter unverified;
    final Counter streamsEvicted;
    final Counter eventTimeClamped;
    final Counter eventTimeRejected;

    DecodeMetrics(MetricGroup parent) {
        MetricGroup g = parent.addGroup("flowhouse").addGroup("decode");
        datagrams = g.counter("datagrams_total");
        flows = g.counter("flows_total");
        rejected = g.counter("rejected_datagrams_total");
        held = g.counter("held_datagrams_total");
        heldDecoded = g.counter("held_datagrams_decoded_total");
        templatesLearned = g.counter("templates_learned_total");
        templatesRestored = g.counter("templates_restored_total");
        duplicates = g.counter("duplicate_datagrams_total");
        unverified = g.counter("dedup_unverified_datagrams_total");
        streamsEvicted = g.counter("dedup_streams_evicted_total");
        eventTimeClamped = g.counter("event_time_clamped_total");
        eventTimeRejected = g.counter("event_time_rejected_total");
    }
}
