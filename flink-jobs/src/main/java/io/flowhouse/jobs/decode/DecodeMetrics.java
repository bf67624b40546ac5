// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/** Flink metrics of the decode step, under group {@code flowhouse.decode}. */
final class DecodeMetrics {
    final MetricGroup group;
    final Counter datagrams;
    final Counter flows;
    final Counter rejected;
    final Counter held;
    final Counter heldDecoded;

    /** Held datagrams decoded again (a template they wait for came, or their deadline passed). */
    final Counter heldRedecoded;

    final Counter templatesLearned;
    final Counter templatesRestored;
    final Counter duplicates;
    final Counter unverified;
    final Counter streamsEvicted;
    final Counter eventTimeClamped;

    /** Flows longer than the longest flow duration, their start moved to end minus it. */
    final Counter eventTimeDurationCut;

    final Counter eventTimeRejected;

    /** Templates not stored: the exporter's or the instance's state bytes, or its scopes. */
    final Counter refusedTemplates;

    /** Options data not stored (the scope keeps what it had), for the same bounds. */
    final Counter refusedOptions;

    /** Datagrams not held (dead-lettered at once): too large, too many templates missing. */
    final Counter refusedHeld;

    /** Templates-topic entries not restored, for the same bounds. */
    final Counter refusedRestores;

    /** Held datagrams released before their deadline to make room for newer ones. */
    final Counter heldEvicted;

    final Counter templatesExpired;
    final Counter templatesWithdrawn;

    /** Withdrawal marks written (a template or a whole scope withdrawn, known or not). */
    final Counter withdrawalMarks;

    /** Withdrawal marks not kept: the exporter's count or bytes were full. */
    final Counter refusedWithdrawalMarks;

    final Counter exportersExpired;

    /** Templates-topic records not written: larger than the record bound. */
    final Counter archiveSkipped;

    DecodeMetrics(MetricGroup parent) {
        MetricGroup g = parent.addGroup("flowhouse").addGroup("decode");
        group = g;
        datagrams = g.counter("datagrams_total");
        flows = g.counter("flows_total");
        rejected = g.counter("rejected_datagrams_total");
        held = g.counter("held_datagrams_total");
        heldDecoded = g.counter("held_datagrams_decoded_total");
        heldRedecoded = g.counter("held_datagrams_redecoded_total");
        templatesLearned = g.counter("templates_learned_total");
        templatesRestored = g.counter("templates_restored_total");
        duplicates = g.counter("duplicate_datagrams_total");
        unverified = g.counter("dedup_unverified_datagrams_total");
        streamsEvicted = g.counter("dedup_streams_evicted_total");
        eventTimeClamped = g.counter("event_time_clamped_total");
        eventTimeDurationCut = g.counter("event_time_duration_cut_total");
        eventTimeRejected = g.counter("event_time_rejected_total");
        refusedTemplates = g.counter("state_refused_templates_total");
        refusedOptions = g.counter("state_refused_options_total");
        refusedHeld = g.counter("state_refused_held_total");
        refusedRestores = g.counter("state_refused_restores_total");
        heldEvicted = g.counter("held_datagrams_evicted_total");
        templatesExpired = g.counter("templates_expired_total");
        templatesWithdrawn = g.counter("templates_withdrawn_total");
        withdrawalMarks = g.counter("withdrawal_marks_total");
        refusedWithdrawalMarks = g.counter("state_refused_withdrawal_marks_total");
        exportersExpired = g.counter("exporters_expired_total");
        archiveSkipped = g.counter("templates_archive_skipped_total");
    }
}
