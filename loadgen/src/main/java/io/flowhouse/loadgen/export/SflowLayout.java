// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.sflow.SflowEncoder;
import io.flowhouse.loadgen.packets.Frames;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * sFlow v5: each flow is one flow sample of one sampled packet, its frame synthesized from the
 * flow's addresses, ports, protocol, flags and ToS ({@link Frames}, the first {@value #SNAP_LENGTH}
 * bytes as the raw header record). The caller has already made each flow one packet whose {@code
 * bytes} are the frame length on the wire, FCS included ({@link #frameLength}), which is what
 * collectors count for a sample. One data source per exporter (ifIndex {@value #SOURCE_INDEX}), its
 * sample sequence the exporter's flow index; the agent address is {@link #agent} of the domain, the
 * sub-agent id the domain. Datagram sequence numbers count datagrams. Counter samples, when the
 * exporter polls its interfaces ({@link SflowCounterPolling}), follow the flow samples.
 */
final class SflowLayout implements MessageLayout {

    /** Bytes of the frame in the raw header record (sFlow agents' usual default). */
    static final int SNAP_LENGTH = 128;

    /** The data source of every sample: ifIndex 1. */
    static final long SOURCE_INDEX = 1;

    /** Frame check sequence: counted in the frame length, stripped from the header. */
    static final int FCS = 4;

    /** Samples per datagram at most, whatever their size (keeps datagrams under an MTU). */
    static final int MAX_SAMPLES = 64;

    /** The agent address of an exporter's domain: 10.255.0.0 + domain. */
    static IpAddress agent(long domainId) {
        return IpAddress.ofIpv4(0x0aff_0000 | (int) (domainId & 0xffff));
    }

    /**
     * The frame length a flow's sample carries: the flow's mean IP packet size (at least its
     * headers, at most 1,500) plus Ethernet and FCS.
     */
    static long frameLength(FlowRecord f) {
        long ip = f.packets() > 0 ? f.bytes() / f.packets() : f.bytes();
        int min = Frames.ipHeader(f.ipVersion() == 6) + Frames.transportHeader(f.protocol());
        return Frames.ETHERNET_HEADER + Math.max(min, Math.min(1_500, ip)) + FCS;
    }

    @Override
    public int maxRecords() {
        return MAX_SAMPLES;
    }

    @Override
    public int size(int ipv4, int ipv6, boolean templates, boolean sampling) {
        // Sized for whole snap lengths, so a datagram never outgrows its estimate.
        return SflowEncoder.headerSize(agent(0))
                + (ipv4 + ipv6) * SflowEncoder.flowSampleSize(SNAP_LENGTH);
    }

    @Override
    public Written write(
            MessageContext ctx, List<FlowRecord> flows, boolean templates, ByteBuffer out) {
        return write(ctx, flows, List.of(), out);
    }

    /** Writes one datagram with the flows' samples followed by {@code counters}. */
    Written write(
            MessageContext ctx,
            List<FlowRecord> flows,
            List<SflowEncoder.InterfaceSample> counters,
            ByteBuffer out) {
        List<SflowEncoder.SampledPacket> samples = new ArrayList<>(flows.size());
        ByteBuffer frame = ByteBuffer.allocate(SNAP_LENGTH + 64);
        long rate = Math.max(1, ctx.samplingInterval());
        for (int i = 0; i < flows.size(); i++) {
            FlowRecord f = flows.get(i);
            int ipLength = (int) (f.bytes() - Frames.ETHERNET_HEADER - FCS);
            frame.clear();
            int captured =
                    Frames.packet(
                            frame,
                            f.srcMac(),
                            f.dstMac(),
                            new Frames.PacketSpec(
                                    f.srcAddr(),
                                    f.dstAddr(),
                                    f.protocol(),
                                    f.srcPort(),
                                    f.dstPort(),
                                    f.tcpFlags(),
                                    f.tos(),
                                    ipLength,
                                    (int) ctx.firstSample() + i),
                            (int) (ctx.firstSample() + i),
                            SNAP_LENGTH);
            byte[] header = new byte[Math.min(captured, SNAP_LENGTH)];
            frame.get(0, header);
            long sequence = (ctx.firstSample() + i + 1) & 0xffff_ffffL;
            samples.add(
                    new SflowEncoder.SampledPacket(
                            sequence,
                            0,
                            SOURCE_INDEX,
                            rate,
                            (sequence * rate) & 0xffff_ffffL,
                            0,
                            f.inputInterface() & 0xffff_ffffL,
                            f.outputInterface() & 0xffff_ffffL,
                            f.bytes(),
                            FCS,
                            header));
        }
        int n =
                SflowEncoder.encode(
                        new SflowEncoder.Header(
                                agent(ctx.domainId()),
                                ctx.domainId(),
                                ctx.sequence(),
                                (ctx.exportTimeMillis() - ctx.bootTimeMillis()) & 0xffff_ffffL),
                        samples,
                        counters,
                        out);
        return new Written(n, 0, 0, skip(ctx.sequence(), 1));
    }

    @Override
    public long skip(long sequence, int lost) {
        return (sequence + lost) & 0xffff_ffffL;
    }
}
