// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.serde.ArchivedTemplateDeserializationSchema;
import io.flowhouse.jobs.serde.ArchivedTemplateSerializationSchema;
import io.flowhouse.jobs.serde.RawDatagramDeserializationSchema;
import io.flowhouse.jobs.serde.RejectedDatagramSerializationSchema;
import io.flowhouse.jobs.tables.JobTables;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;

/**
 * The production sources and sinks of {@link FlowPipelineJob}: Kafka and ClickHouse. Every Kafka
 * source and sink gets the pass-through client properties ({@link
 * PipelineSettings#kafkaClientProperties()}: TLS, SASL, ...) after the job's own settings, so the
 * operator's value wins where both set a key.
 */
public final class PipelineConnectors {

    private PipelineConnectors() {}

    /**
     * {@code flows.raw} from the configured start; offsets committed on checkpoints (for monitoring
     * and {@code start=committed}); bounded at the latest offsets with {@code stop=latest}.
     */
    public static KafkaSource<RawDatagram> rawSource(PipelineSettings s) {
        KafkaSourceBuilder<RawDatagram> b =
                KafkaSource.<RawDatagram>builder()
                        .setBootstrapServers(s.bootstrapServers())
                        .setTopics(s.rawTopic())
                        .setGroupId(s.groupId())
                        .setClientIdPrefix(s.groupId() + "-raw")
                        .setStartingOffsets(s.start().toOffsetsInitializer())
                        .setDeserializer(new RawDatagramDeserializationSchema())
                        .setProperty("commit.offsets.on.checkpoint", "true")
                        .setProperty("partition.discovery.interval.ms", "60000")
                        .setProperty("max.partition.fetch.bytes", Integer.toString(8 << 20))
                        .setProperties(s.kafkaClientProperties());
        if (s.boundedToLatest()) {
            b.setBounded(OffsetsInitializer.latest());
        }
        return b.build();
    }

    /**
     * The compacted templates topic, read from its start up to its end at job start (bounded), or
     * null when the archive is off.
     */
    public static KafkaSource<ArchivedTemplate> templatesSource(PipelineSettings s) {
        if (!s.decode().archiveTemplates()) {
            return null;
        }
        return KafkaSource.<ArchivedTemplate>builder()
                .setBootstrapServers(s.bootstrapServers())
                .setTopics(s.templatesTopic())
                .setGroupId(s.groupId() + "-templates")
                .setClientIdPrefix(s.groupId() + "-templates")
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setBounded(OffsetsInitializer.latest())
                .setDeserializer(new ArchivedTemplateDeserializationSchema())
                .setProperty("commit.offsets.on.checkpoint", "false")
                .setProperties(s.kafkaClientProperties())
                .build();
    }

    public static PipelineSinks sinks(PipelineSettings s) {
        JobTables ch = s.clickhouse().tables();
        return new PipelineSinks(
                ch.flows(),
                ch.exporterStats(),
                rejectedSink(s),
                s.decode().archiveTemplates() ? templatesSink(s) : null);
    }

    /** Dead letters, at least once (a duplicate dead letter is harmless). */
    public static KafkaSink<RejectedDatagram> rejectedSink(PipelineSettings s) {
        return KafkaSink.<RejectedDatagram>builder()
                .setBootstrapServers(s.bootstrapServers())
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .setRecordSerializer(new RejectedDatagramSerializationSchema(s.rejectedTopic()))
                .setProperty("enable.idempotence", "true")
                .setKafkaProducerConfig(s.kafkaClientProperties())
                .build();
    }

    /** Learned templates, at least once (compaction keeps the last value per key anyway). */
    public static KafkaSink<ArchivedTemplate> templatesSink(PipelineSettings s) {
        return KafkaSink.<ArchivedTemplate>builder()
                .setBootstrapServers(s.bootstrapServers())
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .setRecordSerializer(new ArchivedTemplateSerializationSchema(s.templatesTopic()))
                .setProperty("enable.idempotence", "true")
                .setKafkaProducerConfig(s.kafkaClientProperties())
                .build();
    }
}
