// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.serde;

import io.flowhouse.jobs.model.ArchivedTemplate;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Reads the templates topic back. Kafka tombstones (null values) are skipped; values in an unknown
 * format are counted ({@code flowhouse_templates_archive_malformed_total}), logged at most once a
 * minute and skipped: a lost archive entry only means that data is held until the exporter resends
 * its template.
 */
public final class ArchivedTemplateDeserializationSchema
        extends SkippingDeserializationSchema<ArchivedTemplate> {

    private static final long serialVersionUID = 1L;

    public ArchivedTemplateDeserializationSchema() {
        super("templates_archive_malformed_total", "archived template");
    }

    @Override
    public void deserialize(
            ConsumerRecord<byte[], byte[]> record, Collector<ArchivedTemplate> out) {
        if (record.value() == null) {
            return;
        }
        try {
            out.collect(ArchivedTemplateCodec.decode(record.value()));
        } catch (IllegalArgumentException e) {
            skip(record, e);
        }
    }

    @Override
    public TypeInformation<ArchivedTemplate> getProducedType() {
        return TypeInformation.of(ArchivedTemplate.class);
    }
}
