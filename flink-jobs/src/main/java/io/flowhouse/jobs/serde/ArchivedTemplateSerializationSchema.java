// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.serde;

import io.flowhouse.jobs.model.ArchivedTemplate;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Writes {@link ArchivedTemplate}s to the compacted templates topic. */
public final class ArchivedTemplateSerializationSchema
        implements KafkaRecordSerializationSchema<ArchivedTemplate> {

    private final String topic;

    public ArchivedTemplateSerializationSchema(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            ArchivedTemplate t, KafkaSinkContext context, Long timestamp) {
        return new ProducerRecord<>(
                topic,
                null,
                t.learnedMillis(),
                ArchivedTemplateCodec.key(t),
                ArchivedTemplateCodec.encode(t));
    }
}
