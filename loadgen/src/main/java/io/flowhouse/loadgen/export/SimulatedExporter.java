// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.sflow.SflowEncoder;
import io.flowhouse.loadgen.generate.FlowGenerator;
import io.flowhouse.loadgen.profile.TrafficProfile;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One simulated router: a protocol, an observation domain (v9 source id, IPFIX domain, v5 engine
 * id), a boot time, a sequence counter and a template refresh schedule. It packs generated flows
 * into datagrams as full as the protocol and the size bound allow. Not thread-safe: one thread
 * drives one exporter.
 *
 * <p>Deterministic: for a seed and the same sequence of export times, it builds the same bytes.
 * Sequence gaps and malformed datagrams are drawn from the exporter's own random stream, so they
 * too repeat for a seed.
 */
public final class SimulatedExporter implements DatagramSource {

    /** Uptime of exporter 0 when the run starts; later exporters booted an hour apart. */
    private static final long BASE_UPTIME_MILLIS = 86_400_000L;

    private final int index;
    private final ExportProtocol protocol;
    private final MessageLayout layout;
    private final FlowGenerator generator;
    private final TrafficProfile profile;
    private final long domainId;
    private final long bootTimeMillis;
    private final SplittableRandom behaviour;
    private final ByteBuffer buffer;
    private final int maxBytes;
    private final SflowCounterPolling polling;

    private long sequence;
    private long flowIndex;
    private long datagrams;
    private long gaps;
    private long missingSequence;

    /**
     * @param index exporter number, from 0; also picks the domain id ({@code index + 1})
     * @param firstExportTimeMillis the first export time, to place the exporter's boot time
     */
    public SimulatedExporter(
            int index,
            ExportProtocol protocol,
            FlowGenerator generator,
            long seed,
            long firstExportTimeMillis) {
        this.index = index;
        this.protocol = protocol;
        this.layout = layoutFor(protocol);
        this.generator = generator;
        this.profile = generator.profile();
        this.domainId = protocol == ExportProtocol.V5 ? (index & 0xff) : index + 1L;
        this.bootTimeMillis =
                firstExportTimeMillis - BASE_UPTIME_MILLIS - (index % 500) * 3_600_000L;
        this.behaviour = new SplittableRandom(seed ^ (0x5deece66dL * (index + 1)));
        this.maxBytes =
                protocol == ExportProtocol.V5
                        ? layout.size(layout.maxRecords(), 0, false, false)
                        : profile.maxDatagramBytes();
        this.buffer = ByteBuffer.allocate(Math.max(maxBytes, 1500));
        this.polling =
                protocol == ExportProtocol.SFLOW && profile.counterIntervalMillis() > 0
                        ? new SflowCounterPolling(
                                profile.counterIntervalMillis(), firstExportTimeMillis)
                        : null;
    }

    private static MessageLayout layoutFor(ExportProtocol p) {
        return switch (p) {
            case V5 -> new V5Layout();
            case V9 -> new V9Layout();
            case IPFIX -> new IpfixLayout();
            case SFLOW -> new SflowLayout();
        };
    }

    /**
     * Builds the next datagram, exported at {@code exportTimeMillis}, as full as it can be. The
     * returned payload is a view of this exporter's buffer, valid until the next call.
     */
    public ExportDatagram next(long exportTimeMillis) {
        return next(exportTimeMillis, Integer.MAX_VALUE);
    }

    /** Like {@link #next(long)} with at most {@code maxFlows} (>= 1) data records. */
    @Override
    public ExportDatagram next(long exportTimeMillis, int maxFlows) {
        if (maxFlows < 1) {
            throw new IllegalArgumentException("max flows " + maxFlows + " (expected: >= 1)");
        }
        if (behaviour.nextDouble() < profile.malformedRatio()) {
            return malformed(exportTimeMillis);
        }
        if (profile.gapRatio() > 0 && behaviour.nextDouble() < profile.gapRatio()) {
            // As if one full datagram had been lost between exporter and collector.
            int lost =
                    protocol == ExportProtocol.V9 || protocol == ExportProtocol.SFLOW
                            ? 1
                            : typicalRecords();
            long before = sequence;
            sequence = layout.skip(sequence, lost);
            gaps++;
            missingSequence += (sequence - before) & 0xffff_ffffL;
        }
        boolean templates =
                protocol != ExportProtocol.V5
                        && datagrams % profile.templateRefreshDatagrams() == 0;
        boolean sampling = profile.samplingInterval() > 1;
        List<SflowEncoder.InterfaceSample> counters = List.of();
        if (polling != null) {
            // Room for at least one flow sample beside the counters; the rest stay due.
            counters = polling.poll(exportTimeMillis, maxBytes - layout.size(1, 0, false, false));
        }
        int counterBytes = 0;
        for (SflowEncoder.InterfaceSample c : counters) {
            counterBytes += c.size();
        }
        List<FlowRecord> v4 = new ArrayList<>();
        List<FlowRecord> v6 = new ArrayList<>();
        int limit = Math.min(layout.maxRecords(), maxFlows);
        while (v4.size() + v6.size() < limit) {
            FlowRecord f =
                    generator.flow(index, flowIndex, exportTimeMillis, protocol.carriesIpv6());
            boolean isV6 = f.ipVersion() == 6;
            int size =
                    layout.size(
                            v4.size() + (isV6 ? 0 : 1),
                            v6.size() + (isV6 ? 1 : 0),
                            templates,
                            sampling);
            if (size + counterBytes > maxBytes) {
                break; // this flow index goes first in the next datagram
            }
            if (protocol == ExportProtocol.SFLOW) {
                // One sampled packet: what a collector counts for it is the frame length.
                f =
                        f.toBuilder()
                                .packets(1)
                                .bytes(SflowLayout.frameLength(f))
                                .samplingRate(Math.max(1, profile.samplingInterval()))
                                .build();
            } else if (profile.samplingInterval() > 1) {
                f = f.toBuilder().samplingRate(profile.samplingInterval()).build();
            }
            (isV6 ? v6 : v4).add(f);
            flowIndex++;
        }
        // Wire order: the IPv4 data set, then the IPv6 one.
        long firstSample = flowIndex - v4.size() - v6.size();
        List<FlowRecord> flows = new ArrayList<>(v4.size() + v6.size());
        flows.addAll(v4);
        flows.addAll(v6);
        buffer.clear();
        MessageLayout.MessageContext ctx =
                new MessageLayout.MessageContext(
                        exportTimeMillis,
                        bootTimeMillis,
                        sequence,
                        domainId,
                        profile.samplingInterval(),
                        firstSample);
        MessageLayout.Written w =
                polling != null
                        ? ((SflowLayout) layout).write(ctx, flows, counters, buffer)
                        : layout.write(ctx, flows, templates, buffer);
        buffer.flip();
        sequence = w.nextSequence();
        datagrams++;
        long packets = 0;
        long bytes = 0;
        for (FlowRecord f : flows) {
            packets += f.packets();
            bytes += f.bytes();
            if (polling != null) {
                polling.account(f);
            }
        }
        CounterTotals counted = CounterTotals.NONE;
        for (SflowEncoder.InterfaceSample c : counters) {
            counted = counted.plus(c);
        }
        return new ExportDatagram(
                index,
                buffer.asReadOnlyBuffer(),
                List.copyOf(flows),
                w.templateRecords(),
                w.optionsRecords(),
                false,
                packets,
                bytes,
                counted);
    }

    private int typicalRecords() {
        return protocol == ExportProtocol.V5 ? layout.maxRecords() : 20;
    }

    /**
     * A datagram no collector can take a record from, in one of four shapes real collectors meet: a
     * header cut short, an unknown version, a header whose count (v5) or length (IPFIX) promises
     * more than the datagram holds or a zero-length FlowSet (v9), and a set or record running past
     * the end.
     */
    private ExportDatagram malformed(long exportTimeMillis) {
        buffer.clear();
        int kind = behaviour.nextInt(4);
        switch (kind) {
            case 0 -> {
                int len = 2 + behaviour.nextInt(14);
                buffer.putShort((short) protocol.version());
                while (buffer.position() < len) {
                    buffer.put((byte) behaviour.nextInt(256));
                }
            }
            case 1 -> {
                int[] bad = {0, 1, 4, 6, 8, 11, 0xffff};
                buffer.putShort((short) bad[behaviour.nextInt(bad.length)]);
                int len = 24 + behaviour.nextInt(200);
                while (buffer.position() < len) {
                    buffer.put((byte) behaviour.nextInt(256));
                }
            }
            case 2 -> {
                header(exportTimeMillis, 30, 1400);
                if (protocol == ExportProtocol.V9) {
                    buffer.putShort((short) 256).putShort((short) 0); // zero-length FlowSet
                    buffer.putInt(behaviour.nextInt());
                }
            }
            default -> {
                if (protocol == ExportProtocol.V5) {
                    header(exportTimeMillis, 1, 0);
                    for (int i = 0; i < 30; i++) { // 30 of the record's 48 bytes
                        buffer.put((byte) behaviour.nextInt(256));
                    }
                } else {
                    header(exportTimeMillis, 1, 0);
                    // One set whose declared length is far beyond the datagram's end.
                    buffer.putShort((short) 256).putShort((short) 0xfff0);
                    for (int i = 0; i < 16; i++) {
                        buffer.put((byte) behaviour.nextInt(256));
                    }
                    if (protocol == ExportProtocol.IPFIX) {
                        buffer.putShort(2, (short) buffer.position());
                    }
                }
            }
        }
        buffer.flip();
        return new ExportDatagram(index, buffer.asReadOnlyBuffer(), List.of(), 0, 0, true, 0L, 0L);
    }

    /** A plausible header with the given v5/v9 count and IPFIX length. */
    private void header(long exportTimeMillis, int count, int ipfixLength) {
        long secs = Math.floorDiv(exportTimeMillis, 1000L);
        long uptime = exportTimeMillis - bootTimeMillis;
        switch (protocol) {
            case V5 -> {
                buffer.putShort((short) 5).putShort((short) count);
                buffer.putInt((int) uptime).putInt((int) secs).putInt(0).putInt((int) sequence);
                buffer.putInt((int) domainId & 0xff);
            }
            case V9 -> {
                buffer.putShort((short) 9).putShort((short) count);
                buffer.putInt((int) uptime).putInt((int) secs).putInt((int) sequence);
                buffer.putInt((int) domainId);
            }
            case IPFIX -> {
                buffer.putShort((short) 10).putShort((short) ipfixLength);
                buffer.putInt((int) secs).putInt((int) sequence).putInt((int) domainId);
            }
            case SFLOW -> {
                // An IPv4 agent and more samples declared than the datagram holds.
                buffer.putInt(5).putInt(1).putInt(0x0aff_0000 | (int) (domainId & 0xffff));
                buffer.putInt((int) domainId).putInt((int) sequence).putInt((int) uptime);
                buffer.putInt(count);
            }
        }
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public ExportProtocol protocol() {
        return protocol;
    }

    /** Observation domain id (IPFIX), source id (v9) or engine id (v5). */
    @Override
    public long domainId() {
        return domainId;
    }

    /** The sequence number the next datagram will carry. */
    @Override
    public long sequence() {
        return sequence;
    }

    /** Well-formed datagrams built so far. */
    public long datagrams() {
        return datagrams;
    }

    /** Sequence gaps injected so far. */
    @Override
    public long gaps() {
        return gaps;
    }

    /** Sequence numbers skipped by the injected gaps (datagrams for v9, records otherwise). */
    @Override
    public long missingSequence() {
        return missingSequence;
    }

    public long bootTimeMillis() {
        return bootTimeMillis;
    }
}
