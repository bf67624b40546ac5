// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.flow;

/**
 * One flow, normalized from NetFlow v5, NetFlow v9, IPFIX or a packet flow cache: the only type
 * every later stage (Flink, ClickHouse, ZMQ, IPFIX re-export) sees. Immutable; build it with {@link
 * #builder()}. Unsigned wire values are widened (uint32 to {@code long}); 64-bit counters are
 * unsigned in a {@code long} (use {@link Long#compareUnsigned} and {@link Long#toUnsignedString}).
 * Times are epoch milliseconds, whatever the wire encoding was.
 *
 * @param header What the record shares with every record of its datagram (exporter, sequence,
 *     times, stream): one {@link DatagramHeader} per datagram.
 * @param recordIndex The record's position in its datagram, {@link #position(int, int) packed} from
 *     the ordinal of its set among all sets of the message (template, options and data sets,
 *     decodable or not; 0 for v5) and its ordinal within that set, both from 0. It depends only on
 *     the datagram's bytes, never on which templates were known when it was decoded, so a replay
 *     gives every record the position it had live. Read the parts with {@link #setIndex()} and
 *     {@link #recordInSet()}; ordering by it is wire order. With exporter, domain and sequence
 *     number it makes a deterministic row id.
 * @param flowStartMillis Flow start, epoch ms, normalized from any time encoding.
 * @param flowEndMillis Flow end, epoch ms, normalized from any time encoding.
 * @param ipVersion 4 or 6; 0 if the record carries no address.
 * @param srcAddr Source address (IPv4 mapped into IPv6).
 * @param dstAddr Destination address.
 * @param nextHop IP next hop (IE 15 or 62).
 * @param srcPrefixLen Source prefix length (IE 9/29).
 * @param dstPrefixLen Destination prefix length (IE 13/30).
 * @param srcPort Source transport port (uint16).
 * @param dstPort Destination transport port (uint16); for ICMP, type*256+code as exporters send it.
 * @param protocol IP protocol number (uint8).
 * @param tcpFlags Cumulative TCP flags (uint16 in IPFIX, low 8 bits in v5/v9).
 * @param tos IP type of service / traffic class byte (DSCP<<2 | ECN).
 * @param bytes Octets, as sent by the exporter (not scaled by sampling); unsigned 64-bit.
 * @param packets Packets, as sent (not scaled); unsigned 64-bit.
 * @param reverseBytes RFC 5103 reverse octets (biflows); 0 for uniflows.
 * @param reversePackets RFC 5103 reverse packets (biflows); 0 for uniflows.
 * @param inputInterface Ingress interface index (uint32).
 * @param outputInterface Egress interface index (uint32).
 * @param vlanId VLAN id (IE 58 or 243), 0 if none.
 * @param postVlanId Post VLAN id (IE 59 or 254), 0 if none.
 * @param srcMac Source MAC address, 48 bits in the low bits of a long.
 * @param dstMac Destination MAC address, 48 bits in the low bits of a long.
 * @param srcAs Source BGP AS (uint32).
 * @param dstAs Destination BGP AS (uint32).
 * @param direction flowDirection IE 61: 0 ingress, 1 egress, -1 not given.
 * @param flowEndReason IE 136: 1 idle, 2 active, 3 end of flow, 4 forced, 5 lack of resources; 0
 *     not given.
 * @param samplingRate Packet sampling rate applied by the exporter (1 in N); 1 when unsampled or
 *     unknown; counters are not scaled by it.
 * @param sflow The sFlow v5 facts of a flow sample (agent, sequences, data source); null for
 *     NetFlow, IPFIX and packet flows.
 * @param exportedFlowStartMillis The flow start as the exporter sent it, when the collector moved
 *     {@link #flowStartMillis()} into its event-time window; 0 when it did not.
 * @param exportedFlowEndMillis The flow end as the exporter sent it, when the collector moved
 *     {@link #flowEndMillis()}; 0 when it did not.
 * @param inputVrfId ingressVRFID (IE 234); 0 if not given.
 * @param outputVrfId egressVRFID (IE 235); 0 if not given.
 */
public record FlowRecord(
        DatagramHeader header,
        int recordIndex,
        long flowStartMillis,
        long flowEndMillis,
        int ipVersion,
        IpAddress srcAddr,
        IpAddress dstAddr,
        IpAddress nextHop,
        int srcPrefixLen,
        int dstPrefixLen,
        int srcPort,
        int dstPort,
        int protocol,
        int tcpFlags,
        int tos,
        long bytes,
        long packets,
        long reverseBytes,
        long reversePackets,
        long inputInterface,
        long outputInterface,
        int vlanId,
        int postVlanId,
        long srcMac,
        long dstMac,
        long srcAs,
        long dstAs,
        int direction,
        int flowEndReason,
        long samplingRate,
        SflowFields sflow,
        long exportedFlowStartMillis,
        long exportedFlowEndMillis,
        long inputVrfId,
        long outputVrfId) {

    /** {@link #version()} of flows decoded from sFlow v5 (NetFlow v5 has 5). */
    public static final int VERSION_SFLOW5 = 105;

    /** {@link DatagramHeader#version()}. */
    public int version() {
        return header.version();
    }

    /** {@link DatagramHeader#exporterAddress()}. */
    public IpAddress exporterAddress() {
        return header.exporterAddress();
    }

    /** {@link DatagramHeader#exporterPort()}. */
    public int exporterPort() {
        return header.exporterPort();
    }

    /** {@link DatagramHeader#observationDomainId()}. */
    public long observationDomainId() {
        return header.observationDomainId();
    }

    /** {@link DatagramHeader#sequenceNumber()}. */
    public long sequenceNumber() {
        return header.sequenceNumber();
    }

    /** {@link DatagramHeader#exportTimeMillis()}. */
    public long exportTimeMillis() {
        return header.exportTimeMillis();
    }

    /** {@link DatagramHeader#timeReceivedMillis()}. */
    public long timeReceivedMillis() {
        return header.timeReceivedMillis();
    }

    /** {@link DatagramHeader#streamId()}. */
    public long streamId() {
        return header.streamId();
    }

    /** {@link DatagramHeader#streamSequence()}. */
    public long streamSequence() {
        return header.streamSequence();
    }

    /**
     * Bits of {@link #recordIndex()} that hold the record's ordinal within its set. A set holds at
     * most 65,515 records (a 65,535-byte datagram, 1-byte records), and a datagram at most 16,379
     * sets (4 bytes each), so both fit and the packed value stays a non-negative int.
     */
    public static final int RECORD_IN_SET_BITS = 16;

    private static final int RECORD_IN_SET_MASK = (1 << RECORD_IN_SET_BITS) - 1;

    /**
     * The packed position of the {@code recordInSet}-th record of the {@code setIndex}-th set of a
     * datagram (both from 0), as {@link #recordIndex()} holds it.
     */
    public static int position(int setIndex, int recordInSet) {
        if (setIndex < 0 || setIndex > (Integer.MAX_VALUE >>> RECORD_IN_SET_BITS)) {
            throw new IllegalArgumentException("set index " + setIndex + " (expected: 0..32767)");
        }
        if (recordInSet < 0 || recordInSet > RECORD_IN_SET_MASK) {
            throw new IllegalArgumentException(
                    "record in set " + recordInSet + " (expected: 0..65535)");
        }
        return (setIndex << RECORD_IN_SET_BITS) | recordInSet;
    }

    /** Ordinal of this record's set among all sets of its datagram, from 0 (0 for v5). */
    public int setIndex() {
        return recordIndex >>> RECORD_IN_SET_BITS;
    }

    /** Ordinal of this record within its set, from 0. */
    public int recordInSet() {
        return recordIndex & RECORD_IN_SET_MASK;
    }

    /** A builder with every field at its "not given" value. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder that starts from this record's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.header = header;
        b.version = header.version();
        b.exporterAddress = header.exporterAddress();
        b.exporterPort = header.exporterPort();
        b.observationDomainId = header.observationDomainId();
        b.sequenceNumber = header.sequenceNumber();
        b.recordIndex = recordIndex;
        b.exportTimeMillis = header.exportTimeMillis();
        b.timeReceivedMillis = header.timeReceivedMillis();
        b.flowStartMillis = flowStartMillis;
        b.flowEndMillis = flowEndMillis;
        b.ipVersion = ipVersion;
        b.srcAddr = srcAddr;
        b.dstAddr = dstAddr;
        b.nextHop = nextHop;
        b.srcPrefixLen = srcPrefixLen;
        b.dstPrefixLen = dstPrefixLen;
        b.srcPort = srcPort;
        b.dstPort = dstPort;
        b.protocol = protocol;
        b.tcpFlags = tcpFlags;
        b.tos = tos;
        b.bytes = bytes;
        b.packets = packets;
        b.reverseBytes = reverseBytes;
        b.reversePackets = reversePackets;
        b.inputInterface = inputInterface;
        b.outputInterface = outputInterface;
        b.vlanId = vlanId;
        b.postVlanId = postVlanId;
        b.srcMac = srcMac;
        b.dstMac = dstMac;
        b.srcAs = srcAs;
        b.dstAs = dstAs;
        b.direction = direction;
        b.flowEndReason = flowEndReason;
        b.samplingRate = samplingRate;
        b.sflow = sflow;
        b.streamId = header.streamId();
        b.streamSequence = header.streamSequence();
        b.exportedFlowStartMillis = exportedFlowStartMillis;
        b.exportedFlowEndMillis = exportedFlowEndMillis;
        b.inputVrfId = inputVrfId;
        b.outputVrfId = outputVrfId;
        return b;
    }

    /** Mutable builder; not thread-safe. Setters return {@code this}. */
    public static final class Builder {
        // The header this builder started from, kept until a header field is set.
        private DatagramHeader header;
        private int version = 0;
        private IpAddress exporterAddress = IpAddress.UNSPECIFIED;
        private int exporterPort = 0;
        private long observationDomainId = 0L;
        private long sequenceNumber = 0L;
        private int recordIndex = 0;
        private long exportTimeMillis = 0L;
        private long timeReceivedMillis = 0L;
        private long flowStartMillis = 0L;
        private long flowEndMillis = 0L;
        private int ipVersion = 0;
        private IpAddress srcAddr = IpAddress.UNSPECIFIED;
        private IpAddress dstAddr = IpAddress.UNSPECIFIED;
        private IpAddress nextHop = IpAddress.UNSPECIFIED;
        private int srcPrefixLen = 0;
        private int dstPrefixLen = 0;
        private int srcPort = 0;
        private int dstPort = 0;
        private int protocol = 0;
        private int tcpFlags = 0;
        private int tos = 0;
        private long bytes = 0L;
        private long packets = 0L;
        private long reverseBytes = 0L;
        private long reversePackets = 0L;
        private long inputInterface = 0L;
        private long outputInterface = 0L;
        private int vlanId = 0;
        private int postVlanId = 0;
        private long srcMac = 0L;
        private long dstMac = 0L;
        private long srcAs = 0L;
        private long dstAs = 0L;
        private int direction = -1;
        private int flowEndReason = 0;
        private long samplingRate = 1L;
        private SflowFields sflow = null;
        private long streamId = 0L;
        private long streamSequence = 0L;
        private long exportedFlowStartMillis = 0L;
        private long exportedFlowEndMillis = 0L;
        private long inputVrfId = 0L;
        private long outputVrfId = 0L;

        private Builder() {}

        public Builder version(int v) {
            this.version = v;
            header = null;
            return this;
        }

        public int version() {
            return version;
        }

        public Builder exporterAddress(IpAddress v) {
            this.exporterAddress = v;
            header = null;
            return this;
        }

        public IpAddress exporterAddress() {
            return exporterAddress;
        }

        public Builder exporterPort(int v) {
            this.exporterPort = v;
            header = null;
            return this;
        }

        public int exporterPort() {
            return exporterPort;
        }

        public Builder observationDomainId(long v) {
            this.observationDomainId = v;
            header = null;
            return this;
        }

        public long observationDomainId() {
            return observationDomainId;
        }

        public Builder sequenceNumber(long v) {
            this.sequenceNumber = v;
            header = null;
            return this;
        }

        public long sequenceNumber() {
            return sequenceNumber;
        }

        public Builder recordIndex(int v) {
            this.recordIndex = v;
            return this;
        }

        public int recordIndex() {
            return recordIndex;
        }

        /** Sets {@link FlowRecord#recordIndex()} from a set ordinal and a record ordinal in it. */
        public Builder position(int setIndex, int recordInSet) {
            this.recordIndex = FlowRecord.position(setIndex, recordInSet);
            return this;
        }

        public Builder exportTimeMillis(long v) {
            this.exportTimeMillis = v;
            header = null;
            return this;
        }

        public long exportTimeMillis() {
            return exportTimeMillis;
        }

        public Builder timeReceivedMillis(long v) {
            this.timeReceivedMillis = v;
            header = null;
            return this;
        }

        public long timeReceivedMillis() {
            return timeReceivedMillis;
        }

        public Builder flowStartMillis(long v) {
            this.flowStartMillis = v;
            return this;
        }

        public long flowStartMillis() {
            return flowStartMillis;
        }

        public Builder flowEndMillis(long v) {
            this.flowEndMillis = v;
            return this;
        }

        public long flowEndMillis() {
            return flowEndMillis;
        }

        public Builder ipVersion(int v) {
            this.ipVersion = v;
            return this;
        }

        public int ipVersion() {
            return ipVersion;
        }

        public Builder srcAddr(IpAddress v) {
            this.srcAddr = v;
            return this;
        }

        public IpAddress srcAddr() {
            return srcAddr;
        }

        public Builder dstAddr(IpAddress v) {
            this.dstAddr = v;
            return this;
        }

        public IpAddress dstAddr() {
            return dstAddr;
        }

        public Builder nextHop(IpAddress v) {
            this.nextHop = v;
            return this;
        }

        public IpAddress nextHop() {
            return nextHop;
        }

        public Builder srcPrefixLen(int v) {
            this.srcPrefixLen = v;
            return this;
        }

        public int srcPrefixLen() {
            return srcPrefixLen;
        }

        public Builder dstPrefixLen(int v) {
            this.dstPrefixLen = v;
            return this;
        }

        public int dstPrefixLen() {
            return dstPrefixLen;
        }

        public Builder srcPort(int v) {
            this.srcPort = v;
            return this;
        }

        public int srcPort() {
            return srcPort;
        }

        public Builder dstPort(int v) {
            this.dstPort = v;
            return this;
        }

        public int dstPort() {
            return dstPort;
        }

        public Builder protocol(int v) {
            this.protocol = v;
            return this;
        }

        public int protocol() {
            return protocol;
        }

        public Builder tcpFlags(int v) {
            this.tcpFlags = v;
            return this;
        }

        public int tcpFlags() {
            return tcpFlags;
        }

        public Builder tos(int v) {
            this.tos = v;
            return this;
        }

        public int tos() {
            return tos;
        }

        public Builder bytes(long v) {
            this.bytes = v;
            return this;
        }

        public long bytes() {
            return bytes;
        }

        public Builder packets(long v) {
            this.packets = v;
            return this;
        }

        public long packets() {
            return packets;
        }

        public Builder reverseBytes(long v) {
            this.reverseBytes = v;
            return this;
        }

        public long reverseBytes() {
            return reverseBytes;
        }

        public Builder reversePackets(long v) {
            this.reversePackets = v;
            return this;
        }

        public long reversePackets() {
            return reversePackets;
        }

        public Builder inputInterface(long v) {
            this.inputInterface = v;
            return this;
        }

        public long inputInterface() {
            return inputInterface;
        }

        public Builder outputInterface(long v) {
            this.outputInterface = v;
            return this;
        }

        public long outputInterface() {
            return outputInterface;
        }

        public Builder vlanId(int v) {
            this.vlanId = v;
            return this;
        }

        public int vlanId() {
            return vlanId;
        }

        public Builder postVlanId(int v) {
            this.postVlanId = v;
            return this;
        }

        public int postVlanId() {
            return postVlanId;
        }

        public Builder srcMac(long v) {
            this.srcMac = v;
            return this;
        }

        public long srcMac() {
            return srcMac;
        }

        public Builder dstMac(long v) {
            this.dstMac = v;
            return this;
        }

        public long dstMac() {
            return dstMac;
        }

        public Builder srcAs(long v) {
            this.srcAs = v;
            return this;
        }

        public long srcAs() {
            return srcAs;
        }

        public Builder dstAs(long v) {
            this.dstAs = v;
            return this;
        }

        public long dstAs() {
            return dstAs;
        }

        public Builder direction(int v) {
            this.direction = v;
            return this;
        }

        public int direction() {
            return direction;
        }

        public Builder flowEndReason(int v) {
            this.flowEndReason = v;
            return this;
        }

        public int flowEndReason() {
            return flowEndReason;
        }

        public Builder samplingRate(long v) {
            this.samplingRate = v;
            return this;
        }

        public long samplingRate() {
            return samplingRate;
        }

        public Builder sflow(SflowFields v) {
            this.sflow = v;
            return this;
        }

        public SflowFields sflow() {
            return sflow;
        }

        /** Sets {@link FlowRecord#streamId()} and {@link FlowRecord#streamSequence()}. */
        public Builder stream(long id, long sequence) {
            header = null;
            this.streamId = id;
            this.streamSequence = sequence;
            return this;
        }

        public long streamId() {
            return streamId;
        }

        public long streamSequence() {
            return streamSequence;
        }

        /** Sets the times as the exporter sent them (0: not moved). */
        public Builder exportedTimes(long startMillis, long endMillis) {
            this.exportedFlowStartMillis = startMillis;
            this.exportedFlowEndMillis = endMillis;
            return this;
        }

        public long exportedFlowStartMillis() {
            return exportedFlowStartMillis;
        }

        public long exportedFlowEndMillis() {
            return exportedFlowEndMillis;
        }

        /** Sets the ingress and egress VRF ids (IE 234, 235). */
        public Builder vrfIds(long input, long output) {
            this.inputVrfId = input;
            this.outputVrfId = output;
            return this;
        }

        public long inputVrfId() {
            return inputVrfId;
        }

        public long outputVrfId() {
            return outputVrfId;
        }

        public FlowRecord build() {
            DatagramHeader h =
                    header != null
                            ? header
                            : new DatagramHeader(
                                    version,
                                    exporterAddress,
                                    exporterPort,
                                    observationDomainId,
                                    sequenceNumber,
                                    exportTimeMillis,
                                    timeReceivedMillis,
                                    streamId,
                                    streamSequence);
            return new FlowRecord(
                    h,
                    recordIndex,
                    flowStartMillis,
                    flowEndMillis,
                    ipVersion,
                    srcAddr,
                    dstAddr,
                    nextHop,
                    srcPrefixLen,
                    dstPrefixLen,
                    srcPort,
                    dstPort,
                    protocol,
                    tcpFlags,
                    tos,
                    bytes,
                    packets,
                    reverseBytes,
                    reversePackets,
                    inputInterface,
                    outputInterface,
                    vlanId,
                    postVlanId,
                    srcMac,
                    dstMac,
                    srcAs,
                    dstAs,
                    direction,
                    flowEndReason,
                    samplingRate,
                    sflow,
                    exportedFlowStartMillis,
                    exportedFlowEndMillis,
                    inputVrfId,
                    outputVrfId);
        }
    }
}
