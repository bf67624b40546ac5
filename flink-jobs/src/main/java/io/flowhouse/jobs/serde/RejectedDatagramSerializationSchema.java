// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.serde;

import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.envelope.RejectedDatagram;
import java.nio.charset.StandardCharsets;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes dead letters to {@code flows.rejected}: key = the exporter (as on {@code flows.raw}),
 * value = {@code flowhouse.v1.RejectedDatagram} (the datagram plus reason and detail), and the
 * reason also as header {@code reason} so consumers can filter without parsing.
 */
public final class RejectedDatagramSerializationSchema
        implements KafkaRecordSerializationSchema<RejectedDatagram> {

    private final String topic;

    public RejectedDatagramSerializationSchema(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            RejectedDatagram r, KafkaSinkContext context, Long timestamp) {
        ProducerRecord<byte[], byte[]> rec =
                new ProducerRecord<>(
                        topic,
                        null,
                        r.datagram().receivedMillis(),
                        r.datagram().partitionKey(),
                        RawDatagramCodec.encodeRejected(r));
        rec.headers().add("reason", r.reason().getBytes(StandardCharsets.UTF_8));
        return rec;
    }
}
