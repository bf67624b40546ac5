// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.packet.PacketBatchCodec;
import io.flowhouse.codec.packet.PacketSummary;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** The fixed-layout summary serializer round-trips every summary a batch can carry. */
class PacketSummaryTypeInfoTest {

    private static final TypeSerializer<PacketSummary> SERIALIZER =
            PacketSummaryTypeInfo.INSTANCE.createSerializer(new SerializerConfigImpl());

    /** The widest values the packets.raw format carries, in every field. */
    private static PacketSummary extremes() {
        return new PacketSummary(
                -1L,
                -1,
                0xffff,
                0xffff,
                0xffff_ffff_ffffL,
                0xffff_ffff_ffffL,
                6,
                new IpAddress(-1L, -1L),
                new IpAddress(Long.MIN_VALUE, 1L),
                0xffff,
                0xffff,
                0xff,
                0xff,
                0xff,
                0xffff,
                -1,
                -1,
                true);
    }

    private static List<PacketSummary> roundTrip(List<PacketSummary> in) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        for (PacketSummary p : in) {
            SERIALIZER.serialize(p, out);
        }
        assertThat(out.length()).isEqualTo(in.size() * SERIALIZER.getLength());
        // copy(in, out) moves the bytes of a record without reading it.
        DataInputDeserializer src = new DataInputDeserializer(out.getCopyOfBuffer());
        // (DataOutputSerializer does not grow for write(DataInputView, int): size it up front.)
        DataOutputSerializer copied = new DataOutputSerializer(out.length());
        for (int i = 0; i < in.size(); i++) {
            SERIALIZER.copy(src, copied);
        }
        DataInputDeserializer back = new DataInputDeserializer(copied.getCopyOfBuffer());
        List<PacketSummary> result = new ArrayList<>();
        for (int i = 0; i < in.size(); i++) {
            result.add(SERIALIZER.deserialize(back));
        }
        assertThat(back.available()).isZero();
        return result;
    }

    @Test
    void everyTracePacketRoundTrips() throws IOException {
        List<PacketSummary> trace = Packets.trace();
        assertThat(roundTrip(trace)).isEqualTo(trace);
    }

    @Test
    void theWidestValuesOfTheBatchFormatRoundTrip() throws IOException {
        PacketSummary p = extremes();
        // What a batch carries is what the serializer carries.
        PacketBatchCodec.Encoder enc = PacketBatchCodec.encoder(1, 256);
        enc.add(p);
        List<PacketSummary> decoded = PacketBatchCodec.decode(enc.finish());
        assertThat(roundTrip(decoded)).isEqualTo(decoded);
        assertThat(roundTrip(List.of(p))).containsExactly(p);
    }

    @Test
    void aRestoredSerializerIsCompatibleAsIs() throws IOException {
        TypeSerializerSnapshot<PacketSummary> snapshot = SERIALIZER.snapshotConfiguration();
        DataOutputSerializer out = new DataOutputSerializer(64);
        snapshot.writeSnapshot(out);
        TypeSerializerSnapshot<PacketSummary> restored = new PacketSummaryTypeInfo.Snapshot();
        restored.readSnapshot(
                snapshot.getCurrentVersion(),
                new DataInputDeserializer(out.getCopyOfBuffer()),
                getClass().getClassLoader());
        assertThat(
                        SERIALIZER
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAsIs())
                .isTrue();
        assertThat(restored.restoreSerializer()).isEqualTo(SERIALIZER);
    }
}
