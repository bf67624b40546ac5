// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.serde;

import io.flowhouse.jobs.model.ArchivedTemplate;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the templates topic back. Tombstones and values in an unknown format are skipped (logged):
 * a lost archive entry only means that data is held until the exporter resends its template.
 */
public final class ArchivedTemplateDeserializationSchema
        implements KafkaRecordDeserializationSchema<ArchivedTemplate> {

    private static final Logger LOG =
            LoggerFactory.getLogger(ArchivedTemplateDeserializationSchema.class);

    @Override
    public void deserialize(
            ConsumerRecord<byte[], byte[]> record, Collector<ArchivedTemplate> out) {
        if (record.value() == null) {
            return;
        }
        try {
            out.collect(ArchivedTemplateCodec.decode(record.value()));
        } catch (IllegalArgumentException e) {
            LOG.warn(
                    "skipping archived template at {}-{} offset {}: {}",
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    e.getMessage());
        }
    }

    @Override
    public TypeInformation<ArchivedTemplate> getProducedType() {
        return TypeInformation.of(ArchivedTemplate.class);
    }
}
