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
 * The type of {@link TemplateStateKey}, a map key in the decode and statistics state.
 *
 * <p>Layout (16 bytes, big-endian): version 4, observation domain 8, template id 4.
 */
public final class TemplateStateKeyTypeInfo extends FixedLayoutTypeInfo<TemplateStateKey> {

    private static final long serialVersionUID = 1L;

    public static final TemplateStateKeyTypeInfo INSTANCE = new TemplateStateKeyTypeInfo();

    private TemplateStateKeyTypeInfo() {
        super(TemplateStateKey.class, true);
    }

    @Override
    public TypeSerializer<TemplateStateKey> createSerializer(SerializerConfig config) {
        return Serializer.INSTANCE;
    }

    /** What {@code @TypeInfo} on {@link TemplateStateKey} resolves to. */
    public static final class Factory extends TypeInfoFactory<TemplateStateKey> {
        @Override
        public TypeInformation<TemplateStateKey> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return INSTANCE;
        }
    }

    /** The fixed-layout serializer; stateless. */
    public static final class Serializer
            extends FixedLayoutTypeInfo.ImmutableSerializer<TemplateStateKey> {

        private static final long serialVersionUID = 1L;

        public static final int LENGTH = 16;

        public static final Serializer INSTANCE = new Serializer();

        private Serializer() {
            super(LENGTH);
        }

        @Override
        public void serialize(TemplateStateKey k, DataOutputView out) throws IOException {
            out.writeInt(k.version());
            out.writeLong(k.observationDomainId());
            out.writeInt(k.templateId());
        }

        @Override
        public TemplateStateKey deserialize(DataInputView in) throws IOException {
            return new TemplateStateKey(in.readInt(), in.readLong(), in.readInt());
        }

        @Override
        public TypeSerializerSnapshot<TemplateStateKey> snapshotConfiguration() {
            return new Snapshot();
        }
    }

    /** Serializer snapshot; layout version 1. */
    public static final class Snapshot extends LayoutSnapshot<TemplateStateKey> {
        public Snapshot() {
            super(1, () -> Serializer.INSTANCE);
        }
    }
}
