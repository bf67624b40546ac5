// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import io.flowhouse.codec.envelope.ExporterPartitionKey;
import io.flowhouse.codec.flow.FlowRecord;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * One decoded flow to one record of the decoded-flows topic: key = the exporter (the 18-byte key of
 * {@code flows.raw}), so one exporter's flows stay in one partition in decode order; value = the
 * flow in the configured format; timestamp = when the datagram was received.
 */
public final class FlowsTopicSerializer implements KafkaRecordSerializationSchema<FlowRecord> {

    private static final long serialVersionUID = 1L;

    private final String topic;
    private final FlowsTopicFormat format;
    private final FlowRowIds ids;

    /**
     * The sink writer's own (one thread serializes): protobuf-java's bytes, without its objects.
     */
    private transient FlowhouseFlowWriter writer;

    public FlowsTopicSerializer(String topic, FlowsTopicFormat format, FlowRowIds ids) {
        this.topic = topic;
        this.format = format;
        this.ids = ids;
    }

    private FlowhouseFlowWriter writer() {
        if (writer == null) {
            writer = new FlowhouseFlowWriter();
        }
        return writer;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            FlowRecord r, KafkaSinkContext context, Long timestamp) {
        byte[] value =
                switch (format) {
                    case FLOWHOUSE -> writer().encode(r, ids);
                    case GOFLOW2 -> Goflow2FlowEncoder.encode(r);
                };
        return new ProducerRecord<>(
                topic,
                null,
                r.timeReceivedMillis(),
                ExporterPartitionKey.encode(r.exporterAddress(), r.exporterPort()),
                value);
    }
}
