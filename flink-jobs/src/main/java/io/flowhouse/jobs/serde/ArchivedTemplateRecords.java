// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.serde;

import io.flowhouse.jobs.BestEffortKafkaSink;
import io.flowhouse.jobs.model.ArchivedTemplate;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes {@link ArchivedTemplate}s to the compacted templates topic: key {@link
 * ArchivedTemplateCodec#key}, value {@link ArchivedTemplateCodec#encode}, timestamp the receive
 * time it was learned at.
 */
public final class ArchivedTemplateRecords
        implements BestEffortKafkaSink.Records<ArchivedTemplate> {

    private static final long serialVersionUID = 1L;

    private final String topic;

    public ArchivedTemplateRecords(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> record(ArchivedTemplate t) {
        return new ProducerRecord<>(
                topic,
                null,
                t.learnedMillis(),
                ArchivedTemplateCodec.key(t),
                ArchivedTemplateCodec.encode(t));
    }
}
