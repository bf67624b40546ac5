// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import io.flowhouse.codec.envelope.ExporterPartitionKey;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.sinks.FlowInput;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * One decoded flow to one record of the decoded-flows topic: key = the exporter (the 18-byte key of
 * {@code flows.raw}), so one exporter's flows stay in one partition in decode order; value = the
 * flow in the configured format, with its context when it has one; timestamp = when the datagram
 * was received.
 */
public final class FlowsTopicSerializer<T> implements KafkaRecordSerializationSchema<T> {

    private static final long serialVersionUID = 1L;

    private final String topic;
    private final FlowsTopicFormat format;
    private final FlowRowIds ids;
    private final FlowInput<T> input;

    /**
     * The sink writer's own (one thread serializes): protobuf-java's bytes, without its objects.
     */
    private transient FlowhouseFlowWriter writer;

    public FlowsTopicSerializer(
            String topic, FlowsTopicFormat format, FlowRowIds ids, FlowInput<T> input) {
        this.topic = topic;
        this.format = format;
        this.ids = ids;
        this.input = input;
    }

    /** Decoded flows, without context. */
    public static FlowsTopicSerializer<FlowRecord> ofFlows(
            String topic, FlowsTopicFormat format, FlowRowIds ids) {
        return new FlowsTopicSerializer<>(topic, format, ids, FlowInput.FLOWS);
    }

    private FlowhouseFlowWriter writer() {
        if (writer == null) {
            writer = new FlowhouseFlowWriter();
        }
        return writer;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            T element, KafkaSinkContext context, Long timestamp) {
        FlowRecord r = input.flow(element);
        FlowContext c = input.context(element);
        byte[] value =
                switch (format) {
                    case FLOWHOUSE -> writer().encode(r, ids, c);
                    case GOFLOW2 -> Goflow2FlowEncoder.encode(r, c);
                };
        return new ProducerRecord<>(
                topic,
                null,
                r.timeReceivedMillis(),
                ExporterPartitionKey.encode(r.exporterAddress(), r.exporterPort()),
                value);
    }
}
