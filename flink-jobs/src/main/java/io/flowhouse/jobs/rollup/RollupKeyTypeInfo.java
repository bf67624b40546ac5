// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.jobs.serde.FixedLayoutTypeInfo;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The type of rollup bucket keys: the key of both window operators, written with every window state
 * entry and every timer of a checkpoint and hashed into key groups on every shuffle.
 *
 * <p>Layout (88 bytes, big-endian, full Java widths): kind 4, exporter 16, interface 8, direction
 * 4, protocol 4, port 4, source AS 8, destination AS 8, source address 16, destination address 16.
 */
public final class RollupKeyTypeInfo extends FixedLayoutTypeInfo<RollupKey> {

    private static final long serialVersionUID = 1L;

    public static final RollupKeyTypeInfo INSTANCE = new RollupKeyTypeInfo();

    private RollupKeyTypeInfo() {
        super(RollupKey.class, true);
    }

    @Override
    public TypeSerializer<RollupKey> createSerializer(SerializerConfig config) {
        return Serializer.INSTANCE;
    }

    /** What {@code @TypeInfo} on {@link RollupKey} resolves to. */
    public static final class Factory extends TypeInfoFactory<RollupKey> {
        @Override
        public TypeInformation<RollupKey> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return INSTANCE;
        }
    }

    /** The fixed-layout serializer; stateless. */
    public static final class Serializer
            extends FixedLayoutTypeInfo.ImmutableSerializer<RollupKey> {

        private static final long serialVersionUID = 1L;

        /** Serialized size of every key. */
        public static final int LENGTH = 88;

        public static final Serializer INSTANCE = new Serializer();

        private Serializer() {
            super(LENGTH);
        }

        @Override
        public void serialize(RollupKey k, DataOutputView out) throws IOException {
            out.writeInt(k.kind());
            writeAddress(k.exporter(), out);
            out.writeLong(k.iface());
            out.writeInt(k.direction());
            out.writeInt(k.protocol());
            out.writeInt(k.port());
            out.writeLong(k.srcAs());
            out.writeLong(k.dstAs());
            writeAddress(k.srcAddr(), out);
            writeAddress(k.dstAddr(), out);
        }

        @Override
        public RollupKey deserialize(DataInputView in) throws IOException {
            return new RollupKey(
                    in.readInt(),
                    readAddress(in),
                    in.readLong(),
                    in.readInt(),
                    in.readInt(),
                    in.readInt(),
                    in.readLong(),
                    in.readLong(),
                    readAddress(in),
                    readAddress(in));
        }

        @Override
        public TypeSerializerSnapshot<RollupKey> snapshotConfiguration() {
            return new Snapshot();
        }
    }

    /** Serializer snapshot; layout version 1. */
    public static final class Snapshot extends LayoutSnapshot<RollupKey> {
        public Snapshot() {
            super(1, () -> Serializer.INSTANCE);
        }
    }
}
