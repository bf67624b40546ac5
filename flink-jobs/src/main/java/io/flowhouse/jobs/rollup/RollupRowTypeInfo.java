// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.jobs.serde.FixedLayoutTypeInfo;
import java.io.IOException;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The type of rollup pieces and rows: a fixed-layout serializer instead of Flink's reflective
 * record serializer. Every piece crosses the bucket {@code keyBy}, every talker and conversation
 * sum the ranking {@code keyBy}, and the top-N accumulators hold rows in window state.
 *
 * <p>Layout version 2 (140 bytes, big-endian, every component at its full Java width so every row
 * round-trips exactly): kind 4, window start 8, exporter 16, interface 8, direction 4, protocol 4,
 * port 4, source AS 8, destination AS 8, rank 4, source address 16, destination address 16, bytes
 * 8, packets 8, flows 8, version 8, bytes error 8. (Version 1, without the bytes error, was only
 * ever in the state of the ranking operators, whose uids changed with it.)
 */
public final class RollupRowTypeInfo extends FixedLayoutTypeInfo<RollupRow> {

    private static final long serialVersionUID = 1L;

    public static final RollupRowTypeInfo INSTANCE = new RollupRowTypeInfo();

    private RollupRowTypeInfo() {
        super(RollupRow.class, false);
    }

    @Override
    public TypeSerializer<RollupRow> createSerializer(SerializerConfig config) {
        return Serializer.INSTANCE;
    }

    /** The fixed-layout serializer; stateless. */
    public static final class Serializer
            extends FixedLayoutTypeInfo.ImmutableSerializer<RollupRow> {

        private static final long serialVersionUID = 1L;

        /** Serialized size of every row. */
        public static final int LENGTH = 140;

        public static final Serializer INSTANCE = new Serializer();

        private Serializer() {
            super(LENGTH);
        }

        @Override
        public void serialize(RollupRow r, DataOutputView out) throws IOException {
            out.writeInt(r.kind());
            out.writeLong(r.windowStart());
            writeAddress(r.exporter(), out);
            out.writeLong(r.iface());
            out.writeInt(r.direction());
            out.writeInt(r.protocol());
            out.writeInt(r.port());
            out.writeLong(r.srcAs());
            out.writeLong(r.dstAs());
            out.writeInt(r.rank());
            writeAddress(r.srcAddr(), out);
            writeAddress(r.dstAddr(), out);
            out.writeLong(r.bytes());
            out.writeLong(r.packets());
            out.writeLong(r.flows());
            out.writeLong(r.version());
            out.writeLong(r.bytesError());
        }

        @Override
        public RollupRow deserialize(DataInputView in) throws IOException {
            return new RollupRow(
                    in.readInt(),
                    in.readLong(),
                    readAddress(in),
                    in.readLong(),
                    in.readInt(),
                    in.readInt(),
                    in.readInt(),
                    in.readLong(),
                    in.readLong(),
                    in.readInt(),
                    readAddress(in),
                    readAddress(in),
                    in.readLong(),
                    in.readLong(),
                    in.readLong(),
                    in.readLong(),
                    in.readLong());
        }

        @Override
        public TypeSerializerSnapshot<RollupRow> snapshotConfiguration() {
            return new Snapshot();
        }
    }

    /** Serializer snapshot; layout version 2. */
    public static final class Snapshot extends LayoutSnapshot<RollupRow> {
        public Snapshot() {
            super(2, () -> Serializer.INSTANCE);
        }
    }
}
