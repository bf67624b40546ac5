// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import io.flowhouse.codec.flow.IpAddress;

/**
 * Cumulative statistics of one template scope, emitted periodically by the decode step from
 * checkpointed state. The counters only grow, so the newest row per scope (largest {@code
 * datagrams}) is the answer, and a replayed row after a failure is harmless.
 *
 * @param exporterAddress exporter address
 * @param exporterPort exporter UDP port (0 with address-only template scope)
 * @param version 5, 9 or 10; 0 for datagrams whose header could not be read
 * @param observationDomainId observation domain / source id / v5 engine (uint32)
 * @param lastReceivedMillis receive time of the latest datagram counted
 * @param datagrams datagrams seen
 * @param flows flow records decoded and emitted
 * @param lostDatagrams datagrams lost according to the sequence numbers (v9)
 * @param lostFlows records lost according to the sequence numbers (v5, IPFIX)
 * @param sequenceResets exporter restarts or sequence jumps
 * @param rejectedDatagrams datagrams sent to the dead-letter topic
 */
public record ExporterStats(
        IpAddress exporterAddress,
        int exporterPort,
        int version,
        long observationDomainId,
        long lastReceivedMillis,
        long datagrams,
        long flows,
        long lostDatagrams,
        long lostFlows,
        long sequenceResets,
        long rejectedDatagrams) {}
