// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.serde;

import io.flowhouse.codec.envelope.ExporterPartitionKey;
import io.flowhouse.codec.envelope.MalformedEnvelopeException;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.envelope.SflowAgentKey;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Reads {@code flows.raw} records ({@code flowhouse.v1.RawDatagram} protobuf values, keyed by
 * {@link ExporterPartitionKey}, sFlow v5 by {@link SflowAgentKey}) into {@link RawDatagram}s. The
 * key is the exporter (or sFlow agent and sub-agent) the partitioner placed the record by; a record
 * whose key names another exporter than its envelope (a producer bug that would put one exporter's
 * datagrams in two partitions, out of order) is malformed. An envelope that does not parse, or does
 * not match its key, is counted ({@code flowhouse_decode_malformed_envelopes_total}), logged at
 * most once a minute, and skipped: it is not a datagram, so there is nothing to dead-letter. A
 * record without a key is taken as it is. A batch record ({@link RawDatagramCodec#decodeAll}) gives
 * its datagrams in order, each checked against the key and skipped alone if it names another
 * exporter.
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
        List<RawDatagram> datagrams;
        try {
            datagrams = RawDatagramCodec.decodeAll(record.value());
        } catch (MalformedEnvelopeException e) {
            skip(record, e);
            return;
        }
        // A batch is read as its datagrams one after another, each checked against the key.
        for (RawDatagram d : datagrams) {
            if (record.key() != null
                    && !ExporterPartitionKey.matches(record.key(), d.exporter())
                    && !SflowAgentKey.matches(record.key(), d.payload())) {
                skip(
                        record,
                        new MalformedEnvelopeException(
                                "record key "
                                        + keyText(record.key())
                                        + " names another exporter than the envelope's "
                                        + d.exporter()
                                        + " (or another sFlow agent than its datagram's)"));
                continue;
            }
            out.collect(d);
        }
    }

    private static String keyText(byte[] key) {
        if (key.length == SflowAgentKey.SIZE) {
            return "sFlow agent " + SflowAgentKey.decode(key);
        }
        try {
            return ExporterPartitionKey.decode(key).toString();
        } catch (MalformedEnvelopeException e) {
            return "of " + key.length + " bytes";
        }
    }

    @Override
    public TypeInformation<RawDatagram> getProducedType() {
        return TypeInformation.of(RawDatagram.class);
    }
}
