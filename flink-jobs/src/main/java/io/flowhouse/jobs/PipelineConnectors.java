// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.packet.PacketSummary;
import io.flowhouse.jobs.ageing.PacketFlowTopology;
import io.flowhouse.jobs.config.FanOutSettings;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.rollup.ContextRollups;
import io.flowhouse.jobs.rollup.ContextRow;
import io.flowhouse.jobs.rollup.RollupRow;
import io.flowhouse.jobs.rollup.RollupSettings;
import io.flowhouse.jobs.rollup.RollupTopology;
import io.flowhouse.jobs.serde.ArchivedTemplateDeserializationSchema;
import io.flowhouse.jobs.serde.ArchivedTemplateRecords;
import io.flowhouse.jobs.serde.RawDatagramDeserializationSchema;
import io.flowhouse.jobs.serde.RejectedDatagramSerializationSchema;
import io.flowhouse.jobs.tables.FlowsRowIds;
import io.flowhouse.jobs.tables.JobTables;
import io.flowhouse.sinks.ipfix.IpfixExporterSink;
import io.flowhouse.sinks.kafka.FlowsTopicSink;
import io.flowhouse.sinks.zmq.ZmqSink;
import java.time.Duration;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;

/**
 * The production sources and sinks of {@link FlowPipelineJob}: Kafka, ClickHouse and the configured
 * fan-out (ZMQ, IPFIX, the decoded-flows topic). Every Kafka source and sink gets the pass-through
 * client properties ({@link PipelineSettings#kafkaClientProperties()}: TLS, SASL, ...) after the
 * job's own settings, so the operator's value wins where both set a key.
 */
public final class PipelineConnectors {

    private PipelineConnectors() {}

    /** The Kafka sources: raw datagrams, the template archive (when on), packets (when on). */
    public static PipelineSources sources(PipelineSettings s) {
        return new PipelineSources(
                rawSource(s), templatesSource(s), s.ageing().enabled() ? packetsSource(s) : null);
    }

    /** {@code packets.raw} from the configured start; bounded at the latest with stop=latest. */
    public static KafkaSource<PacketSummary> packetsSource(PipelineSettings s) {
        return PacketFlowTopology.kafkaSource(
                s.bootstrapServers(),
                s.ageing().topic(),
                s.groupId(),
                s.start().toOffsetsInitializer(),
                s.boundedToLatest() ? OffsetsInitializer.latest() : null,
                s.kafkaClientProperties());
    }

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

    /**
     * Every production sink, ClickHouse with the settings' connection; without any ClickHouse table
     * (and so without rollups) when {@code clickhouse.enabled} is false.
     */
    public static PipelineSinks sinks(PipelineSettings s) {
        PipelineSinks all = sinks(s, s.clickhouse().tables());
        if (s.clickhouse().enabled()) {
            return all;
        }
        return all.withFlows(null)
                .withPacketFlows(null)
                .withStats(null)
                .withRollups(null)
                .withInterfaceCounters(null)
                .withEnrichedFlows(null);
    }

    /** Every production sink, ClickHouse through {@code ch}. */
    public static PipelineSinks sinks(PipelineSettings s, JobTables ch) {
        RollupSettings rollup = s.rollup();
        FanOutSettings fanOut = s.fanOut();
        boolean enrich = s.enrich().enabled();
        return new PipelineSinks(
                ch.flows(),
                ch.exporterStats(),
                rejectedSink(s),
                s.decode().archiveTemplates() ? templatesSink(s) : null,
                ch.flows(),
                new RollupSinks(ch, rollup),
                fanOut.zmq() == null ? null : ZmqSink.of(fanOut.zmq()),
                fanOut.ipfix() == null ? null : IpfixExporterSink.of(fanOut.ipfix()),
                enrich ? null : flowsTopicSink(s),
                ch.interfaceCounters(),
                enrich ? ch.enrichedFlows() : null,
                enrich ? enrichedFlowsTopicSink(s) : null);
    }

    /** The decoded-flows topic with each flow's context, or null when it is off. */
    public static KafkaSink<EnrichedFlow> enrichedFlowsTopicSink(PipelineSettings s) {
        if (s.flowsTopic() == null) {
            return null;
        }
        return FlowsTopicSink.create(
                s.flowsTopic(),
                s.bootstrapServers(),
                s.kafkaClientProperties(),
                FlowsRowIds.INSTANCE,
                EnrichedFlow.FLOW_INPUT);
    }

    /** The decoded-flows topic, or null when it is off. */
    public static KafkaSink<FlowRecord> flowsTopicSink(PipelineSettings s) {
        if (s.flowsTopic() == null) {
            return null;
        }
        return FlowsTopicSink.create(
                s.flowsTopic(),
                s.bootstrapServers(),
                s.kafkaClientProperties(),
                FlowsRowIds.INSTANCE);
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

    /**
     * Learned templates and the ends of templates, best effort: at least once while Kafka takes
     * them, skipped and counted when it does not ({@link BestEffortKafkaSink}); compaction keeps
     * the last value per key.
     */
    public static BestEffortKafkaSink<ArchivedTemplate> templatesSink(PipelineSettings s) {
        return new BestEffortKafkaSink<>(
                s.bootstrapServers(),
                s.kafkaClientProperties(),
                new ArchivedTemplateRecords(s.templatesTopic()),
                "templates_archive");
    }

    /** The plain and the context rollup tables of each resolution. */
    private record RollupSinks(JobTables ch, RollupSettings rollup)
            implements RollupTopology.SinkFactory, ContextRollups.SinkFactory {
        @Override
        public Sink<RollupRow> sinkFor(Duration resolution) {
            return ch.rollup(resolution, rollup.ttlDays(resolution));
        }

        @Override
        public Sink<ContextRow> contextSinkFor(Duration resolution) {
            return ch.contextRollup(resolution, rollup.ttlDays(resolution));
        }
    }
}
