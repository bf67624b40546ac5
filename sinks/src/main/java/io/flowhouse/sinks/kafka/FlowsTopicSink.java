// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.FlowInput;
import java.util.Properties;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaSinkBuilder;

/**
 * The decoded-flows topic: Flink's {@link KafkaSink} with the options' guarantee. Exactly once,
 * each subtask writes in a Kafka transaction that commits when the checkpoint completes, so a
 * {@code read_committed} consumer sees a flow once, after the checkpoint that follows it; a failure
 * aborts the open transactions and the job replays from the last checkpoint.
 */
public final class FlowsTopicSink {

    private FlowsTopicSink() {}

    /**
     * @param bootstrapServers the cluster
     * @param clientProperties pass-through client settings (TLS, SASL), applied after the sink's
     *     own, so the operator's win
     * @param ids the row ids the job gives this flow in {@code flows}
     */
    public static KafkaSink<FlowRecord> create(
            FlowsTopicOptions o,
            String bootstrapServers,
            Properties clientProperties,
            FlowRowIds ids) {
        return create(o, bootstrapServers, clientProperties, ids, FlowInput.FLOWS);
    }

    /**
     * As {@link #create(FlowsTopicOptions, String, Properties, FlowRowIds)}, for a stream whose
     * elements {@code input} takes apart into the flow and its context.
     */
    public static <T> KafkaSink<T> create(
            FlowsTopicOptions o,
            String bootstrapServers,
            Properties clientProperties,
            FlowRowIds ids,
            FlowInput<T> input) {
        KafkaSinkBuilder<T> b =
                KafkaSink.<T>builder()
                        .setBootstrapServers(bootstrapServers)
                        .setDeliveryGuarantee(o.delivery().guarantee())
                        .setRecordSerializer(
                                new FlowsTopicSerializer<>(o.topic(), o.format(), ids, input))
                        .setProperty("compression.type", o.compression())
                        .setProperty("batch.size", Long.toString(o.batchBytes()))
                        .setProperty("linger.ms", Long.toString(o.linger().toMillis()))
                        .setProperty("enable.idempotence", "true")
                        .setProperty(
                                "transaction.timeout.ms",
                                Long.toString(o.transactionTimeout().toMillis()));
        if (o.delivery() == FlowsTopicDelivery.EXACTLY_ONCE) {
            b.setTransactionalIdPrefix(o.transactionalIdPrefix());
        }
        return b.setKafkaProducerConfig(clientProperties).build();
    }
}
