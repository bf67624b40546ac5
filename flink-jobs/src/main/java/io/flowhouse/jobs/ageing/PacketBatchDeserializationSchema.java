// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.packet.PacketBatchCodec;
import io.flowhouse.codec.packet.PacketSummary;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code packets.raw} batches ({@link PacketBatchCodec}) into one {@link PacketSummary} per
 * packet, so the source's per-partition watermarks follow packet time. A batch that does not decode
 * is counted ({@code flowhouse_packets_malformed_batches_total}), logged at most once a minute and
 * skipped.
 */
public final class PacketBatchDeserializationSchema
        implements KafkaRecordDeserializationSchema<PacketSummary> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG =
            LoggerFactory.getLogger(PacketBatchDeserializationSchema.class);
    private static final long LOG_INTERVAL_MILLIS = 60_000L;

    private transient Counter malformed;
    private transient long lastLogMillis;

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        malformed =
                context.getMetricGroup()
                        .addGroup("flowhouse")
                        .counter("packets_malformed_batches_total");
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<PacketSummary> out) {
        if (record.value() == null) {
            return;
        }
        java.util.List<PacketSummary> batch;
        try {
            batch = PacketBatchCodec.decode(record.value());
        } catch (IllegalArgumentException e) {
            if (malformed != null) {
                malformed.inc();
            }
            long now = System.currentTimeMillis();
            if (now - lastLogMillis >= LOG_INTERVAL_MILLIS) {
                lastLogMillis = now;
                LOG.warn(
                        "skipping malformed packet batch at {}-{} offset {}: {}",
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        e.getMessage());
            }
            return;
        }
        for (PacketSummary s : batch) {
            out.collect(s);
        }
    }

    @Override
    public TypeInformation<PacketSummary> getProducedType() {
        return TypeInformation.of(PacketSummary.class);
    }
}
