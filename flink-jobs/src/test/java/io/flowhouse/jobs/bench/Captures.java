// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.bench;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.pcap.PcapReader;
import io.flowhouse.codec.pcap.UdpDatagram;
import io.flowhouse.codec.pcap.UdpDatagramExtractor;
import io.flowhouse.testkit.TestDataDir;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Capture replay for the harness: shared pcaps to RawDatagrams to Kafka. */
final class Captures {

    private Captures() {}

    static List<RawDatagram> datagrams(String file, IpAddress exporter, int port) throws Exception {
        UdpDatagramExtractor extractor = new UdpDatagramExtractor();
        List<RawDatagram> out = new ArrayList<>();
        try (PcapReader r = PcapReader.open(TestDataDir.file(file))) {
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
                                exporter, port, u.timestampNanos() / 1_000_000L, "bench", b));
            }
        }
        return out;
    }

    static void produce(String bootstrap, String topic, List<RawDatagram> datagrams) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(1 << 20));
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (RawDatagram d : datagrams) {
                producer.send(
                        new ProducerRecord<>(
                                topic,
                                null,
                                d.receivedMillis(),
                                d.partitionKey(),
                                RawDatagramCodec.encode(d)));
            }
            producer.flush();
        }
    }
}
