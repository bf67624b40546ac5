// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.emit;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.pcap.PcapWriter;
import io.flowhouse.loadgen.export.ExportDatagram;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * Writes export datagrams into a pcap file as Ethernet/IP/UDP frames from each exporter's source
 * address and port to the collector, with the send (or virtual) time as the capture time, so
 * tshark, nfdump tooling and tcpreplay can read what loadgen sent.
 */
public final class PcapSink implements DatagramSink {
    private final PcapWriter writer;
    private final InetSocketAddress[] sources;
    private final InetSocketAddress target;

    private PcapSink(Path file, InetSocketAddress[] sources, InetSocketAddress target)
            throws IOException {
        this.writer = PcapWriter.create(file, false);
        this.sources = sources;
        this.target = target;
    }

    /** A pcap of what {@code udp} sends: same sources and target. */
    public static PcapSink following(Path file, UdpSink udp, int exporters) throws IOException {
        InetSocketAddress[] src = new InetSocketAddress[exporters];
        for (int i = 0; i < exporters; i++) {
            src[i] = udp.source(i);
        }
        return new PcapSink(file, src, udp.target());
    }

    /**
     * A pcap of datagrams that are not sent: exporter i appears as the target's loopback address
     * family with source port {@code portBase + i}.
     */
    public static PcapSink synthetic(
            Path file, InetSocketAddress target, int portBase, int exporters) throws IOException {
        InetSocketAddress[] src = new InetSocketAddress[exporters];
        for (int i = 0; i < exporters; i++) {
            src[i] = new InetSocketAddress(target.getAddress(), portBase + i);
        }
        return new PcapSink(file, src, target);
    }

    @Override
    public void send(ExportDatagram d, long timeMillis) throws IOException {
        InetSocketAddress src = sources[d.exporter()];
        writer.writeUdp(
                timeMillis * 1_000_000L,
                IpAddress.of(src.getAddress()),
                src.getPort(),
                IpAddress.of(target.getAddress()),
                target.getPort(),
                d.payload().duplicate());
    }

    @Override
    public InetSocketAddress source(int exporter) {
        return sources[exporter];
    }

    public long packets() {
        return writer.packets();
    }

    @Override
    public void close() throws IOException {
        writer.close();
    }
}
