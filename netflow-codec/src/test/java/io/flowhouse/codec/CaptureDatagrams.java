// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.pcap.PcapReader;
import io.flowhouse.codec.pcap.UdpDatagram;
import io.flowhouse.codec.pcap.UdpDatagramExtractor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Reads the UDP datagrams of the repository's captures ({@code testdata/}, see its README).
 *
 * <p>The codec's own copy of the lookup: its tests cannot use the testkit's {@code TestDataDir},
 * which depends on the codec.
 */
public final class CaptureDatagrams {

    private CaptureDatagrams() {}

    /**
     * A file of {@code testdata/}: the system property {@code flowhouse.testdata.dir} (the pom sets
     * it), else the first directory walking up from {@code user.dir} that holds {@code
     * testdata/README.md}.
     */
    public static Path testdata(String file) {
        String prop = System.getProperty("flowhouse.testdata.dir");
        if (prop != null && !prop.isBlank()) {
            return Paths.get(prop).toAbsolutePath().normalize().resolve(file);
        }
        for (Path p = Paths.get("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("testdata/README.md"))) {
                return p.resolve("testdata").resolve(file);
            }
        }
        throw new IllegalStateException(
                "testdata/README.md not found above "
                        + Paths.get("").toAbsolutePath()
                        + " (set -Dflowhouse.testdata.dir)");
    }

    /**
     * A captured datagram, copied out of the mapping.
     *
     * @param exporter source address and port
     * @param payload the UDP payload (heap, big-endian)
     * @param timestampNanos capture time
     */
    public record Datagram(ExporterKey exporter, byte[] payload, long timestampNanos) {
        public ByteBuffer buffer() {
            return ByteBuffer.wrap(payload);
        }

        public DecodeContext context() {
            return new DecodeContext(exporter, timestampNanos / 1_000_000L);
        }
    }

    /**
     * Every UDP datagram of a capture, in order. A gzipped capture ({@code .gz}) is decompressed to
     * a temporary file first (the reader maps files) and the file is deleted afterwards.
     */
    public static List<Datagram> datagrams(Path pcap) throws IOException {
        if (pcap.getFileName().toString().endsWith(".gz")) {
            Path tmp = Files.createTempFile("flowhouse-", ".pcap");
            try {
                try (InputStream in = new GZIPInputStream(Files.newInputStream(pcap), 1 << 16)) {
                    Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                }
                return datagrams(tmp);
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
        List<Datagram> out = new ArrayList<>();
        UdpDatagramExtractor x = new UdpDatagramExtractor();
        try (PcapReader r = PcapReader.open(pcap)) {
            while (r.next()) {
                UdpDatagram d = x.extract(r.packetLinkType(), r.packet(), r.timestampNanos());
                if (d == null) {
                    continue;
                }
                byte[] b = new byte[d.payload().remaining()];
                d.payload().duplicate().get(b);
                out.add(new Datagram(new ExporterKey(d.src(), d.srcPort()), b, d.timestampNanos()));
            }
        }
        return out;
    }

    public static List<Datagram> datagrams(String file) throws IOException {
        return datagrams(testdata(file));
    }

    public static ExporterKey localhost(int port) {
        return new ExporterKey(IpAddress.parse("127.0.0.1"), port);
    }
}
