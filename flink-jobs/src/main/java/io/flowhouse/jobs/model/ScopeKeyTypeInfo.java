// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

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
 * The type of {@link ScopeKey}, a map key in the decode and statistics state.
 *
 * <p>Layout (12 bytes, big-endian): version 4, observation domain 8.
 */
public final class ScopeKeyTypeInfo extends FixedLayoutTypeInfo<ScopeKey> {

    private static final long serialVersionUID = 1L;

    public static final ScopeKeyTypeInfo INSTANCE = new ScopeKeyTypeInfo();

    private ScopeKeyTypeInfo() {
        super(ScopeKey.class, true);
    }

    @Override
    public TypeSerializer<ScopeKey> createSerializer(SerializerConfig config) {
        return Serializer.INSTANCE;
    }

    /** What {@code @TypeInfo} on {@link ScopeKey} resolves to. */
    public static final class Factory extends TypeInfoFactory<ScopeKey> {
        @Override
        public TypeInformation<ScopeKey> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return INSTANCE;
        }
    }

    /** The fixed-layout serializer; stateless. */
    public static final class Serializer extends FixedLayoutTypeInfo.ImmutableSerializer<ScopeKey> {

        private static final long serialVersionUID = 1L;

        public static final int LENGTH = 12;

        public static final Serializer INSTANCE = new Serializer();

        private Serializer() {
            super(LENGTH);
        }

        @Override
        public void serialize(ScopeKey k, DataOutputView out) throws IOException {
            out.writeInt(k.version());
            out.writeLong(k.observationDomainId());
        }

        @Override
        public ScopeKey deserialize(DataInputView in) throws IOException {
            return new ScopeKey(in.readInt(), in.readLong());
        }

        @Override
        public TypeSerializerSnapshot<ScopeKey> snapshotConfiguration() {
            return new Snapshot();
        }
    }

    /** Serializer snapshot; layout version 1. */
    public static final class Snapshot extends LayoutSnapshot<ScopeKey> {
        public Snapshot() {
            super(1, () -> Serializer.INSTANCE);
        }
    }
}
