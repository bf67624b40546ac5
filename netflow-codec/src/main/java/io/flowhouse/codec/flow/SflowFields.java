// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.flow;

/**
 * What an sFlow v5 flow sample says beyond the normalized {@link FlowRecord} fields: the agent and
 * its counters for sequence accounting, the sample's data source, and the raw interface encodings.
 * Present on flow records decoded from sFlow only ({@link FlowRecord#sflow()} is null otherwise).
 * Unsigned wire values are widened (uint32 to {@code long}).
 *
 * @param agentAddress the sFlow agent address from the datagram header (not the UDP source)
 * @param subAgentId the datagram's sub-agent id (uint32)
 * @param datagramSequence the datagram sequence number, per agent and sub-agent (uint32)
 * @param uptimeMillis the agent's uptime when the datagram was sent, ms (uint32)
 * @param sampleSequence the flow sample's sequence number, per data source (uint32)
 * @param sourceIdClass the data source type: 0 ifIndex, 1 smonVlanDataSource, 2 entPhysicalEntry
 * @param sourceIdIndex the data source index (24 bits compact, uint32 expanded)
 * @param samplePool packets that could have been sampled so far (uint32; some agents synthesize it
 *     as samples times rate)
 * @param drops samples the agent dropped for lack of resources so far (uint32)
 * @param inputFormat input interface format: 0 ifIndex, 1 packet discarded, 2 multiple
 * @param inputValue input interface value: ifIndex, discard reason or interface count
 * @param outputFormat output interface format, as {@code inputFormat}
 * @param outputValue output interface value, as {@code inputValue}
 * @param stripped bytes stripped from the frame before sampling (the FCS: 4), counted in the frame
 *     length that {@link FlowRecord#bytes()} carries
 * @param srcPriority 802.1p priority of the incoming frame (extended switch), 0 if not given
 * @param dstPriority 802.1p priority of the outgoing frame (extended switch), 0 if not given
 * @param bgpNextHop BGP next hop (extended gateway), {@link IpAddress#UNSPECIFIED} if not given
 * @param gatewayAs the router's own AS (extended gateway; uint32)
 * @param srcPeerAs the source peer AS (extended gateway; uint32)
 */
public record SflowFields(
        IpAddress agentAddress,
        long subAgentId,
        long datagramSequence,
        long uptimeMillis,
        long sampleSequence,
        int sourceIdClass,
        long sourceIdIndex,
        long samplePool,
        long drops,
        int inputFormat,
        long inputValue,
        int outputFormat,
        long outputValue,
        long stripped,
        int srcPriority,
        int dstPriority,
        IpAddress bgpNextHop,
        long gatewayAs,
        long srcPeerAs) {

    /** Interface format 0: the value is an ifIndex (0x3FFFFFFF: the agent itself). */
    public static final int INTERFACE_IFINDEX = 0;

    /** Interface format 1: the packet was discarded; the value is the reason code. */
    public static final int INTERFACE_DISCARDED = 1;

    /** Interface format 2: several output interfaces; the value is their number (0: unknown). */
    public static final int INTERFACE_MULTIPLE = 2;
}
