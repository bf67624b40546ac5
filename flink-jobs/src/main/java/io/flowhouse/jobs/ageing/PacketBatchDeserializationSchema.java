// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.packet.PacketBatchCodec;
import io.flowhouse.codec.packet.PacketClockMark;
import io.flowhouse.codec.packet.PacketSummary;
import io.flowhouse.jobs.serde.SkippingDeserializationSchema;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Reads {@code packets.raw} batches ({@link PacketBatchCodec}) into one {@link PacketSummary} per
 * packet, so the source's per-partition watermarks follow packet time; a clock mark ({@link
 * PacketClockMark}) becomes its stream element, which moves the watermark and is then dropped. A
 * batch that does not decode is counted ({@code flowhouse_packets_malformed_batches_total}), logged
 * at most once a minute and skipped.
 */
public final class PacketBatchDeserializationSchema
        extends SkippingDeserializationSchema<PacketSummary> {

    private static final long serialVersionUID = 1L;

    public PacketBatchDeserializationSchema() {
        super("packets_malformed_batches_total", "packet batch");
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<PacketSummary> out) {
        if (record.value() == null) {
            return;
        }
        PacketClockMark mark = PacketClockMark.decode(record.value());
        if (mark != null) {
            out.collect(mark.summary());
            return;
        }
        List<PacketSummary> batch;
        try {
            batch = PacketBatchCodec.decode(record.value());
        } catch (IllegalArgumentException e) {
            skip(record, e);
            return;
        }
        for (PacketSummary s : batch) {
            out.collect(s);
        }
    }

    @Override
    public TypeInformation<PacketSummary> getProducedType() {
        return PacketSummaryTypeInfo.INSTANCE;
    }
}
