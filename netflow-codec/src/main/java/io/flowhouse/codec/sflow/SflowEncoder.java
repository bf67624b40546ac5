// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.flow.IpAddress;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Writes sFlow v5 datagrams (sflow.org, "sFlow Version 5", XDR): the header, compact flow samples
 * (format 1) each holding one raw packet header record (format 1, Ethernet), and compact counter
 * samples (format 2) each holding one generic interface counters record (format 1) and, when given,
 * one Ethernet counters record (format 2). What a load generator or a test needs to send real
 * sFlow; {@link SflowDecoder} reads all of it back. Pure and synchronous: it writes into the
 * caller's buffer and reads no clock.
 *
 * <p>Values that do not fit their field (a source index over 24 bits, a sampled header longer than
 * its frame) are refused rather than truncated, so what the caller counts is what a collector
 * decodes.
 */
public final class SflowEncoder {

    /** sFlow's header protocol number for Ethernet (ISO 8802-3). */
    public static final int HEADER_PROTOCOL_ETHERNET = 1;

    /** Largest source id index of a compact sample (24 bits). */
    public static final long MAX_SOURCE_INDEX = 0x00ff_ffffL;

    /**
     * The datagram header.
     *
     * @param agent the agent address (IPv4 or IPv6)
     * @param subAgentId sub-agent id (uint32)
     * @param sequence datagram sequence number (uint32)
     * @param uptimeMillis agent uptime, ms (uint32)
     */
    public record Header(IpAddress agent, long subAgentId, long sequence, long uptimeMillis) {}

    /**
     * One sampled packet.
     *
     * @param sequence the sample's sequence number, per source (uint32)
     * @param sourceIdClass 0 ifIndex, 1 VLAN, 2 entity
     * @param sourceIdIndex the source's index (24 bits)
     * @param samplingRate 1 in N
     * @param samplePool packets that could have been sampled (uint32)
     * @param drops samples dropped for lack of resources, a running total (uint32)
     * @param input input ifIndex (uint32)
     * @param output output ifIndex (uint32)
     * @param frameLength the frame's length on the wire, FCS included
     * @param stripped bytes removed from the frame before the header (the FCS: 4)
     * @param header the first bytes of the frame (Ethernet)
     */
    public record SampledPacket(
            long sequence,
            int sourceIdClass,
            long sourceIdIndex,
            long samplingRate,
            long samplePool,
            long drops,
            long input,
            long output,
            long frameLength,
            long stripped,
            byte[] header) {}

    /**
     * One counter sample with the generic interface counters and optionally the Ethernet ones.
     *
     * @param sequence the sample's sequence number, per source (uint32)
     * @param sourceIdClass 0 ifIndex, 1 VLAN, 2 entity
     * @param sourceIdIndex the source's index (24 bits)
     * @param counters the generic interface counters
     * @param ethernet the Ethernet counters, or null for none
     */
    public record InterfaceSample(
            long sequence,
            int sourceIdClass,
            long sourceIdIndex,
            GenericInterfaceCounters counters,
            EthernetInterfaceCounters ethernet) {

        /** A sample with the generic interface counters only. */
        public InterfaceSample(
                long sequence,
                int sourceIdClass,
                long sourceIdIndex,
                GenericInterfaceCounters counters) {
            this(sequence, sourceIdClass, sourceIdIndex, counters, null);
        }

        /** Bytes of this sample in a datagram. */
        public int size() {
            return counterSampleSize(ethernet != null);
        }
    }

    private SflowEncoder() {}

    /** Bytes of the datagram header with this agent. */
    public static int headerSize(IpAddress agent) {
        return agent.isIpv4() ? 28 : 40;
    }

    /** Bytes of one flow sample with a sampled header of {@code headerBytes}. */
    public static int flowSampleSize(int headerBytes) {
        return 8 + FlowSample.SIZE + 8 + SampledHeader.FIXED_SIZE + padded(headerBytes);
    }

    /** Bytes of one counter sample with the generic interface counters only. */
    public static int counterSampleSize() {
        return counterSampleSize(false);
    }

    /** Bytes of one counter sample, with or without the Ethernet counters record. */
    public static int counterSampleSize(boolean ethernet) {
        return 8
                + CounterSample.SIZE
                + 8
                + GenericInterfaceCounters.SIZE
                + (ethernet ? 8 + EthernetInterfaceCounters.SIZE : 0);
    }

    /**
     * Writes one datagram at the buffer's position.
     *
     * @return bytes written
     * @throws BufferOverflowException if the datagram does not fit (nothing is written then)
     * @throws IllegalArgumentException if a value does not fit its field
     */
    public static int encode(
            Header h, List<SampledPacket> flows, List<InterfaceSample> counters, ByteBuffer out) {
        int size = headerSize(h.agent());
        for (SampledPacket f : flows) {
            check(f);
            size += flowSampleSize(f.header().length);
        }
        for (InterfaceSample c : counters) {
            source(c.sourceIdClass(), c.sourceIdIndex());
            size += c.size();
        }
        if (out.remaining() < size) {
            throw new BufferOverflowException();
        }
        int start = out.position();
        out.putInt(SflowDecoder.VERSION);
        if (h.agent().isIpv4()) {
            out.putInt(Xdr.ADDRESS_IPV4).put(h.agent().toBytes());
        } else {
            out.putInt(Xdr.ADDRESS_IPV6).put(h.agent().toBytes16());
        }
        out.putInt((int) h.subAgentId())
                .putInt((int) h.sequence())
                .putInt((int) h.uptimeMillis())
                .putInt(flows.size() + counters.size());
        for (SampledPacket f : flows) {
            int pad = padded(f.header().length) - f.header().length;
            out.putInt(FlowSample.FORMAT)
                    .putInt(flowSampleSize(f.header().length) - 8)
                    .putInt((int) f.sequence())
                    .putInt(source(f.sourceIdClass(), f.sourceIdIndex()))
                    .putInt((int) f.samplingRate())
                    .putInt((int) f.samplePool())
                    .putInt((int) f.drops())
                    .putInt((int) f.input())
                    .putInt((int) f.output())
                    .putInt(1)
                    .putInt(SampledHeader.FORMAT)
                    .putInt(SampledHeader.FIXED_SIZE + f.header().length + pad)
                    .putInt(HEADER_PROTOCOL_ETHERNET)
                    .putInt((int) f.frameLength())
                    .putInt((int) f.stripped())
                    .putInt(f.header().length)
                    .put(f.header());
            for (int i = 0; i < pad; i++) {
                out.put((byte) 0);
            }
        }
        for (InterfaceSample c : counters) {
            GenericInterfaceCounters g = c.counters();
            EthernetInterfaceCounters e = c.ethernet();
            out.putInt(CounterSample.FORMAT)
                    .putInt(c.size() - 8)
                    .putInt((int) c.sequence())
                    .putInt(source(c.sourceIdClass(), c.sourceIdIndex()))
                    .putInt(e == null ? 1 : 2)
                    .putInt(GenericInterfaceCounters.FORMAT)
                    .putInt(GenericInterfaceCounters.SIZE)
                    .putInt((int) g.ifIndex())
                    .putInt((int) g.ifType())
                    .putLong(g.ifSpeed())
                    .putInt(g.ifDirection())
                    .putInt(g.ifStatus())
                    .putLong(g.ifInOctets())
                    .putInt((int) g.ifInUcastPkts())
                    .putInt((int) g.ifInMulticastPkts())
                    .putInt((int) g.ifInBroadcastPkts())
                    .putInt((int) g.ifInDiscards())
                    .putInt((int) g.ifInErrors())
                    .putInt((int) g.ifInUnknownProtos())
                    .putLong(g.ifOutOctets())
                    .putInt((int) g.ifOutUcastPkts())
                    .putInt((int) g.ifOutMulticastPkts())
                    .putInt((int) g.ifOutBroadcastPkts())
                    .putInt((int) g.ifOutDiscards())
                    .putInt((int) g.ifOutErrors())
                    .putInt((int) g.ifPromiscuousMode());
            if (e != null) {
                out.putInt(EthernetInterfaceCounters.FORMAT)
                        .putInt(EthernetInterfaceCounters.SIZE)
                        .putInt((int) e.dot3StatsAlignmentErrors())
                        .putInt((int) e.dot3StatsFCSErrors())
                        .putInt((int) e.dot3StatsSingleCollisionFrames())
                        .putInt((int) e.dot3StatsMultipleCollisionFrames())
                        .putInt((int) e.dot3StatsSQETestErrors())
                        .putInt((int) e.dot3StatsDeferredTransmissions())
                        .putInt((int) e.dot3StatsLateCollisions())
                        .putInt((int) e.dot3StatsExcessiveCollisions())
                        .putInt((int) e.dot3StatsInternalMacTransmitErrors())
                        .putInt((int) e.dot3StatsCarrierSenseErrors())
                        .putInt((int) e.dot3StatsFrameTooLongs())
                        .putInt((int) e.dot3StatsInternalMacReceiveErrors())
                        .putInt((int) e.dot3StatsSymbolErrors());
            }
        }
        return out.position() - start;
    }

    private static void check(SampledPacket f) {
        source(f.sourceIdClass(), f.sourceIdIndex());
        if (f.samplingRate() < 1 || f.samplingRate() > 0xffff_ffffL) {
            throw new IllegalArgumentException(
                    "sampling rate " + f.samplingRate() + " (expected: 1..4294967295)");
        }
        if (f.frameLength() < f.header().length + f.stripped() || f.frameLength() > 0xffff_ffffL) {
            throw new IllegalArgumentException(
                    "frame length "
                            + f.frameLength()
                            + " (expected: >= header "
                            + f.header().length
                            + " + stripped "
                            + f.stripped()
                            + ")");
        }
    }

    private static int source(int sourceClass, long index) {
        if (sourceClass < 0 || sourceClass > 0xff || index < 0 || index > MAX_SOURCE_INDEX) {
            throw new IllegalArgumentException(
                    "source id " + sourceClass + ":" + index + " (expected: 0..255:0..16777215)");
        }
        return (sourceClass << 24) | (int) index;
    }

    private static int padded(int n) {
        return (n + 3) & ~3;
    }
}
