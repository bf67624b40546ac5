// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.serde;

import io.flowhouse.codec.envelope.MalformedEnvelopeException;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code flows.raw} values ({@code flowhouse.v1.RawDatagram} protobuf) into {@link
 * RawDatagram}s. An envelope that does not parse is counted ({@code
 * flowhouse_decode_malformed_envelopes_total}), logged at most once a minute, and skipped: it is
 * not a datagram, so there is nothing to dead-letter.
 */
public final class RawDatagramDeserializationSchema
        implements KafkaRecordDeserializationSchema<RawDatagram> {

    private static final Logger LOG =
            LoggerFactory.getLogger(RawDatagramDeserializationSchema.class);
    private static final long LOG_INTERVAL_MILLIS = 60_000L;

    private transient Counter malformed;
    private transient long lastLogMillis;

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        malformed =
                context.getMetricGroup()
                        .addGroup("flowhouse")
                        .counter("decode_malformed_envelopes_total");
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RawDatagram> out) {
        if (record.value() == null) {
            return;
        }
        try {
            out.collect(RawDatagramCodec.decode(record.value()));
        } catch (MalformedEnvelopeException e) {
            if (malformed != null) {
                malformed.inc();
            }
            long now = System.currentTimeMillis();
            if (now - lastLogMillis >= LOG_INTERVAL_MILLIS) {
                lastLogMillis = now;
                LOG.warn(
                        "skipping malformed envelope at {}-{} offset {}: {}",
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        e.getMessage());
            }
        }
    }

    @Override
    public TypeInformation<RawDatagram> getProducedType() {
        return TypeInformation.of(RawDatagram.class);
    }
}
