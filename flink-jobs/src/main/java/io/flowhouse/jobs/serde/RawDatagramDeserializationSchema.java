// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.serde;

import io.flowhouse.codec.envelope.MalformedEnvelopeException;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Reads {@code flows.raw} values ({@code flowhouse.v1.RawDatagram} protobuf) into {@link
 * RawDatagram}s. An envelope that does not parse is counted ({@code
 * flowhouse_decode_malformed_envelopes_total}), logged at most once a minute, and skipped: it is
 * not a datagram, so there is nothing to dead-letter.
 */
public final class RawDatagramDeserializationSchema
        extends SkippingDeserializationSchema<RawDatagram> {

    private static final long serialVersionUID = 1L;

    public RawDatagramDeserializationSchema() {
        super("decode_malformed_envelopes_total", "envelope");
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RawDatagram> out) {
        if (record.value() == null) {
            return;
        }
        try {
            out.collect(RawDatagramCodec.decode(record.value()));
        } catch (MalformedEnvelopeException e) {
            skip(record, e);
        }
    }

    @Override
    public TypeInformation<RawDatagram> getProducedType() {
        return TypeInformation.of(RawDatagram.class);
    }
}
