// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.jobs.serde.FixedLayoutTypeInfo;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Type;
import java.nio.ByteOrder;
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

        private static final VarHandle INT =
                MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
        private static final VarHandle LONG =
                MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

        private Serializer() {
            super(LENGTH);
        }

        @Override
        public void serialize(RollupKey k, DataOutputView out) throws IOException {
            // The layout in one write: a checkpoint stream takes every int as four one-byte
            // writes, and it writes every key of every window entry and every timer.
            byte[] b = new byte[LENGTH];
            INT.set(b, 0, k.kind());
            LONG.set(b, 4, k.exporter().hi());
            LONG.set(b, 12, k.exporter().lo());
            LONG.set(b, 20, k.iface());
            INT.set(b, 28, k.direction());
            INT.set(b, 32, k.protocol());
            INT.set(b, 36, k.port());
            LONG.set(b, 40, k.srcAs());
            LONG.set(b, 48, k.dstAs());
            LONG.set(b, 56, k.srcAddr().hi());
            LONG.set(b, 64, k.srcAddr().lo());
            LONG.set(b, 72, k.dstAddr().hi());
            LONG.set(b, 80, k.dstAddr().lo());
            out.write(b);
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
