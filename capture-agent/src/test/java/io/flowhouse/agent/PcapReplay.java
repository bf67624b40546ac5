// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent;

import io.flowhouse.codec.pcap.PcapReader;
import io.flowhouse.codec.pcap.UdpDatagram;
import io.flowhouse.codec.pcap.UdpDatagramExtractor;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.GZIPInputStream;

/**
 * Test replayer: the UDP payloads of a capture, sent from one loopback socket per original exporter
 * (address and port), as {@code gen/nfblast} does, so the receiver sees as many exporters as the
 * capture had. Loopback only; paced and bounded.
 */
public final class PcapReplay {

    /** One original exporter's datagrams, in capture order. */
    public record Exporter(String original, boolean ipv6, List<byte[]> payloads) {}

    private PcapReplay() {}

    public static List<Exporter> load(Path pcap) throws IOException {
        if (pcap.getFileName().toString().endsWith(".gz")) {
            // The reader maps files: a gzipped capture is decompressed to a temporary one first.
            Path tmp = Files.createTempFile("flowhouse-replay-", ".pcap");
            try {
                try (InputStream in = new GZIPInputStream(Files.newInputStream(pcap), 1 << 16)) {
                    Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                }
                return load(tmp);
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
        Map<String, Exporter> byExporter = new LinkedHashMap<>();
        UdpDatagramExtractor extractor = new UdpDatagramExtractor();
        try (PcapReader reader = PcapReader.open(pcap)) {
            while (reader.next()) {
                UdpDatagram d =
                        extractor.extract(
                                reader.packetLinkType(), reader.packet(), reader.timestampNanos());
                if (d == null) {
                    continue;
                }
                byte[] payload = new byte[d.payload().remaining()];
                d.payload().duplicate().get(payload);
                String key = d.src() + ":" + d.srcPort();
                byExporter
                        .computeIfAbsent(
                                key, k -> new Exporter(k, !d.src().isIpv4(), new ArrayList<>()))
                        .payloads()
                        .add(payload);
            }
        }
        return new ArrayList<>(byExporter.values());
    }

    /**
     * Sends every exporter's datagrams, interleaved in round-robin, at about {@code perSecond}, to
     * {@code v4Target} (IPv4 exporters) or {@code v6Target}.
     *
     * @return for each exporter, the local port its socket used (the exporter port Kafka sees)
     */
    static List<Integer> send(
            List<Exporter> exporters,
            InetSocketAddress v4Target,
            InetSocketAddress v6Target,
            int perSecond)
            throws IOException {
        List<DatagramChannel> sockets = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        try {
            for (Exporter e : exporters) {
                DatagramChannel ch =
                        DatagramChannel.open(
                                e.ipv6()
                                        ? StandardProtocolFamily.INET6
                                        : StandardProtocolFamily.INET);
                ch.bind(
                        new InetSocketAddress(
                                InetAddress.getByName(e.ipv6() ? "::1" : "127.0.0.1"), 0));
                sockets.add(ch);
                ports.add(((InetSocketAddress) ch.getLocalAddress()).getPort());
            }
            long intervalNanos = 1_000_000_000L / perSecond;
            long next = System.nanoTime();
            int[] index = new int[exporters.size()];
            boolean more = true;
            while (more) {
                more = false;
                for (int i = 0; i < exporters.size(); i++) {
                    List<byte[]> payloads = exporters.get(i).payloads();
                    if (index[i] >= payloads.size()) {
                        continue;
                    }
                    more = true;
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    next += intervalNanos;
                    sockets.get(i)
                            .send(
                                    ByteBuffer.wrap(payloads.get(index[i]++)),
                                    exporters.get(i).ipv6() ? v6Target : v4Target);
                }
            }
        } finally {
            for (DatagramChannel ch : sockets) {
                ch.close();
            }
        }
        return ports;
    }
}
