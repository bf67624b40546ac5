// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.flow.IpAddress;

/**
 * One sFlow counter sample (compact or expanded) that carried interface counters: who sent it,
 * when, its data source and sequence, and the generic and Ethernet counter records it held (either
 * may be absent, not both). Counter samples with only other records (processor, OVS datapath, host)
 * are counted in {@link SflowDatagram#counterSamples()} but produce none of these.
 *
 * @param agentAddress the sFlow agent address from the datagram header
 * @param subAgentId the datagram's sub-agent id (uint32)
 * @param exporterAddress the datagram's UDP source address
 * @param exporterPort the datagram's UDP source port
 * @param datagramSequence the datagram sequence number (uint32)
 * @param uptimeMillis the agent's uptime when it sent the datagram, ms (uint32)
 * @param timeReceivedMillis when the collector received the datagram, epoch ms (from the caller)
 * @param sampleSequence the counter sample's sequence number, per data source (uint32)
 * @param sourceIdClass data source type: 0 ifIndex, 1 smonVlanDataSource, 2 entPhysicalEntry
 * @param sourceIdIndex data source index
 * @param generic the generic interface counters (record 0:1), or null
 * @param ethernet the Ethernet counters (record 0:2), or null
 */
public record InterfaceCounters(
        IpAddress agentAddress,
        long subAgentId,
        IpAddress exporterAddress,
        int exporterPort,
        long datagramSequence,
        long uptimeMillis,
        long timeReceivedMillis,
        long sampleSequence,
        int sourceIdClass,
        long sourceIdIndex,
        GenericInterfaceCounters generic,
        EthernetInterfaceCounters ethernet) {

    /** The interface: the generic record's ifIndex, else the data source index. */
    public long ifIndex() {
        return generic != null ? generic.ifIndex() : sourceIdIndex;
    }
}
