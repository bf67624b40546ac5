// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.pcap.PcapReader;
import io.flowhouse.codec.pcap.UdpDatagram;
import io.flowhouse.codec.pcap.UdpDatagramExtractor;
import io.flowhouse.testkit.TestDataDir;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.zip.GZIPInputStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Reads the test captures with the codec's pure-Java pcap reader and produces their UDP payloads to
 * {@code flows.raw} as {@link RawDatagram}s, as the capture agent would: one exporter per capture
 * (address and port given), receive time = capture time, keyed by exporter.
 */
final class CaptureProducer {

    /** One capture of testdata/ with its ground truth (README). */
    record Capture(String file, long records, long packets, long bytes) {}

    static final long V9_IPFIX_PACKETS = 42_173L;
    static final long V9_IPFIX_BYTES = 31_011_641L;
    static final long V5_PACKETS = 30_012L;
    static final long V5_BYTES = 21_699_804L;

    static final List<Capture> CAPTURES =
            List.of(
                    new Capture("netflow-v5-softflowd.pcap", 2279, V5_PACKETS, V5_BYTES),
                    new Capture("netflow-v5-nfreplay.pcap", 2279, V5_PACKETS, V5_BYTES),
                    new Capture(
                            "netflow-v9-softflowd.pcap", 2991, V9_IPFIX_PACKETS, V9_IPFIX_BYTES),
                    new Capture("netflow-v9-pmacct.pcap", 2995, V9_IPFIX_PACKETS, V9_IPFIX_BYTES),
                    new Capture("netflow-v9-nfreplay.pcap", 2991, V9_IPFIX_PACKETS, V9_IPFIX_BYTES),
                    new Capture("ipfix-softflowd.pcap", 2991, V9_IPFIX_PACKETS, V9_IPFIX_BYTES),
                    new Capture("ipfix-pmacct.pcap", 2995, V9_IPFIX_PACKETS, V9_IPFIX_BYTES),
                    new Capture(
                            "ipfix-biflow-softflowd.pcap", 1673, V9_IPFIX_PACKETS, V9_IPFIX_BYTES));

    private CaptureProducer() {}

    /** The UDP payloads of a capture, in order, with their capture time in ms. */
    static List<RawDatagram> datagrams(String file, IpAddress exporter, int port) throws Exception {
        Path path = TestDataDir.file(file);
        if (file.endsWith(".gz")) {
            // The reader maps files: a gzipped capture is decompressed to a temporary one first.
            Path tmp = Files.createTempFile("flowhouse-capture-", ".pcap");
            try {
                try (InputStream in = new GZIPInputStream(Files.newInputStream(path), 1 << 16)) {
                    Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                }
                return datagrams(tmp, exporter, port);
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
        return datagrams(path, exporter, port);
    }

    private static List<RawDatagram> datagrams(Path path, IpAddress exporter, int port)
            throws Exception {
        UdpDatagramExtractor extractor = new UdpDatagramExtractor();
        List<RawDatagram> out = new ArrayList<>();
        try (PcapReader r = PcapReader.open(path)) {
            while (r.next()) {
                UdpDatagram u =
                        extractor.extract(r.packetLinkType(), r.packet(), r.timestampNanos());
                if (u == null) {
                    continue;
                }
                ByteBuffer p = u.payload();
                byte[] b = new byte[p.remaining()];
                p.duplicate().get(b);
                out.add(
                        RawDatagram.of(
                                exporter, port, u.timestampNanos() / 1_000_000L, "itcase", b));
            }
        }
        return out;
    }

    /** Produces datagrams to a topic, keyed by exporter, and waits for every ack. */
    static long produce(String bootstrap, String topic, List<RawDatagram> datagrams)
            throws Exception {
        return produce(bootstrap, topic, datagrams, RawDatagram::partitionKey);
    }

    /** Produces datagrams to a topic with the agent's key for each, and waits for every ack. */
    static long produce(
            String bootstrap,
            String topic,
            List<RawDatagram> datagrams,
            Function<RawDatagram, byte[]> key)
            throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        List<Future<RecordMetadata>> acks = new ArrayList<>(datagrams.size());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (RawDatagram d : datagrams) {
                acks.add(
                        producer.send(
                                new ProducerRecord<>(
                                        topic,
                                        null,
                                        d.receivedMillis(),
                                        key.apply(d),
                                        RawDatagramCodec.encode(d))));
            }
            producer.flush();
            for (Future<RecordMetadata> f : acks) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        return acks.size();
    }
}
