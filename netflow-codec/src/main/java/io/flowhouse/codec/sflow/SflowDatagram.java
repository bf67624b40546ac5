// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.flow.IpAddress;
import java.util.Collections;
import java.util.List;

/**
 * What an sFlow v5 datagram says beyond its flow records ({@link DecodeResult#records()}, one per
 * flow sample): the agent, the datagram's sequence (per agent and sub-agent), what kinds of samples
 * it held, and its counter samples.
 *
 * @param agentAddress the agent address from the header (IPv4 mapped into IPv6; {@code ::} for the
 *     "unknown" address type)
 * @param subAgentId sub-agent id (uint32)
 * @param sequenceNumber datagram sequence number, per agent and sub-agent (uint32)
 * @param uptimeMillis the agent's uptime in ms (uint32)
 * @param declaredSamples the header's sample count (uint32)
 * @param flowSamples flow samples decoded (compact and expanded), each one record
 * @param counterSamples counter samples decoded (compact and expanded), with or without interface
 *     counters
 * @param unknownSamples samples of a format not decoded, skipped by length
 * @param unknownRecords flow and counter records of a format not decoded, skipped by length
 * @param counters the counter samples that carried interface counters, in wire order
 */
public record SflowDatagram(
        IpAddress agentAddress,
        long subAgentId,
        long sequenceNumber,
        long uptimeMillis,
        long declaredSamples,
        int flowSamples,
        int counterSamples,
        int unknownSamples,
        int unknownRecords,
        List<InterfaceCounters> counters) {

    public SflowDatagram {
        counters = counters.isEmpty() ? List.of() : Collections.unmodifiableList(counters);
    }
}
