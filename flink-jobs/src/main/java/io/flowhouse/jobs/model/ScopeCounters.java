// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

/**
 * Cumulative counters of one template scope (exporter, version, observation domain), kept in keyed
 * state so that they are exact across failures, and emitted as {@link ExporterStats}.
 *
 * @param nextSequence sequence number expected next (uint32), or -1 before the first datagram
 * @param datagrams datagrams seen
 * @param flows flow records decoded and emitted
 * @param lostDatagrams datagrams the sequence numbers say were lost (NetFlow v9)
 * @param lostFlows records the sequence numbers say were lost (v5, IPFIX)
 * @param sequenceResets times the sequence went backwards or jumped too far (exporter restart)
 * @param rejectedDatagrams datagrams sent to the dead-letter topic
 * @param lastReceivedMillis receive time of the latest datagram
 */
public record ScopeCounters(
        long nextSequence,
        long datagrams,
        long flows,
        long lostDatagrams,
        long lostFlows,
        long sequenceResets,
        long rejectedDatagrams,
        long lastReceivedMillis) {

    public static final ScopeCounters INITIAL = new ScopeCounters(-1L, 0, 0, 0, 0, 0, 0, 0);
}
