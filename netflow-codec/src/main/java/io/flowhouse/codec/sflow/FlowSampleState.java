// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.flow.SflowFields;

/**
 * What the records of one flow sample said, gathered before the sample becomes a {@link
 * FlowRecord}. The flow records write into it in wire order; a sampled header wins over the sampled
 * Ethernet/IPv4/IPv6 records, which only fill what no header gave. Reused per sample; not
 * thread-safe.
 */
final class FlowSampleState {

    // flow_sample / flow_sample_expanded
    long sampleSequence;
    int sourceIdClass;
    long sourceIdIndex;
    long samplingRate;
    long samplePool;
    long drops;
    int inputFormat;
    long inputValue;
    int outputFormat;
    long outputValue;

    // sampled_header, sampled_ethernet, sampled_ipv4, sampled_ipv6
    boolean hasHeader;
    long frameLength;
    long stripped;
    int ipVersion;
    long srcHi;
    long srcLo;
    long dstHi;
    long dstLo;
    int srcPort;
    int dstPort;
    int protocol;
    int tcpFlags;
    int tos;
    long srcMac;
    long dstMac;
    int headerVlan;

    // extended_switch
    boolean hasSwitch;
    int srcVlan;
    int srcPriority;
    int dstVlan;
    int dstPriority;

    // extended_router (addresses as two longs each: no reference stores into this long-lived
    // object, which G1 would make pay a card-marking barrier per sample)
    boolean hasRouter;
    boolean hasNextHop;
    long nextHopHi;
    long nextHopLo;
    int srcMaskLen;
    int dstMaskLen;

    // extended_gateway
    boolean hasBgpNextHop;
    long bgpNextHopHi;
    long bgpNextHopLo;
    long gatewayAs;
    long srcAs;
    long srcPeerAs;
    long lastPathAs;
    boolean hasPath;
    boolean hasGateway;

    /**
     * Clears what a sample's records may leave unwritten and {@link #toRecord} reads. The sample's
     * fixed part is always written before its records; the extended records' fields are read only
     * under their flag, so clearing the flags is enough.
     */
    void reset() {
        hasHeader = false;
        frameLength = 0;
        stripped = 0;
        clearHeaderFields();
        hasSwitch = false;
        hasRouter = false;
        hasNextHop = false;
        hasBgpNextHop = false;
        hasGateway = false;
    }

    /** Clears what a sampled header's parse fills, before the parse. */
    void clearHeaderFields() {
        srcMac = 0;
        dstMac = 0;
        headerVlan = 0;
        ipVersion = 0;
        srcHi = 0;
        srcLo = 0;
        dstHi = 0;
        dstLo = 0;
        srcPort = 0;
        dstPort = 0;
        protocol = 0;
        tcpFlags = 0;
        tos = 0;
    }

    /**
     * The normalized record: one flow sample is one flow of one packet whose bytes are the sampled
     * frame's length, with the sample's rate (counters are not scaled), as goflow2 and Akvorado map
     * it. An interface that is not a single ifIndex (discarded, multiple) is 0 here and kept in
     * {@link SflowFields}. Gateway AS fields follow goflow2: no source AS, or an empty path, means
     * the router's own AS.
     */
    FlowRecord toRecord(SflowDecoder.DatagramFacts d, int index) {
        long received = d.receivedMillis;
        IpAddress src = ipVersion == 0 ? IpAddress.UNSPECIFIED : new IpAddress(srcHi, srcLo);
        IpAddress dst = ipVersion == 0 ? IpAddress.UNSPECIFIED : new IpAddress(dstHi, dstLo);
        SflowFields sflow =
                new SflowFields(
                        d.agentAddress,
                        d.subAgentId,
                        d.sequenceNumber,
                        d.uptimeMillis,
                        sampleSequence,
                        sourceIdClass,
                        sourceIdIndex,
                        samplePool,
                        drops,
                        inputFormat,
                        inputValue,
                        outputFormat,
                        outputValue,
                        stripped,
                        hasSwitch ? srcPriority : 0,
                        hasSwitch ? dstPriority : 0,
                        hasBgpNextHop
                                ? new IpAddress(bgpNextHopHi, bgpNextHopLo)
                                : IpAddress.UNSPECIFIED,
                        hasGateway ? gatewayAs : 0L,
                        hasGateway ? srcPeerAs : 0L);
        // The canonical constructor, not a builder: a reused builder would pay a G1 card mark per
        // reference it holds, and a fresh one is too large for C2 to inline and scalar replace.
        return new FlowRecord(
                d.header(),
                index, // recordIndex
                received, // flowStartMillis: sFlow has no clock
                received, // flowEndMillis
                ipVersion,
                src,
                dst,
                hasNextHop ? new IpAddress(nextHopHi, nextHopLo) : IpAddress.UNSPECIFIED,
                hasRouter ? srcMaskLen : 0,
                hasRouter ? dstMaskLen : 0,
                srcPort,
                dstPort,
                protocol,
                tcpFlags,
                tos,
                frameLength, // bytes
                1L, // packets
                0L, // reverseBytes
                0L, // reversePackets
                inputFormat == SflowFields.INTERFACE_IFINDEX ? inputValue : 0L,
                outputFormat == SflowFields.INTERFACE_IFINDEX ? outputValue : 0L,
                hasSwitch && srcVlan != 0 ? srcVlan : headerVlan, // vlanId
                hasSwitch ? dstVlan : 0, // postVlanId
                srcMac,
                dstMac,
                hasGateway ? (srcAs == 0 ? gatewayAs : srcAs) : 0L, // srcAs
                hasGateway ? (hasPath ? lastPathAs : gatewayAs) : 0L, // dstAs
                -1, // direction: not given
                0, // flowEndReason: not given
                samplingRate == 0 ? 1L : samplingRate,
                sflow,
                0L,
                0L,
                0L,
                0L);
    }
}
