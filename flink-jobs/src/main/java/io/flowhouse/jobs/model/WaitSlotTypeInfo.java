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
 * The type of {@link WaitSlot}, a map key of the held datagrams' wait queues.
 *
 * <p>Layout (24 bytes, big-endian): version 4, observation domain 8, template id 4, ordinal 8.
 */
public final class WaitSlotTypeInfo extends FixedLayoutTypeInfo<WaitSlot> {

    private static final long serialVersionUID = 1L;

    public static final WaitSlotTypeInfo INSTANCE = new WaitSlotTypeInfo();

    private WaitSlotTypeInfo() {
        super(WaitSlot.class, true);
    }

    @Override
    public TypeSerializer<WaitSlot> createSerializer(SerializerConfig config) {
        return Serializer.INSTANCE;
    }

    /** What {@code @TypeInfo} on {@link WaitSlot} resolves to. */
    public static final class Factory extends TypeInfoFactory<WaitSlot> {
        @Override
        public TypeInformation<WaitSlot> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return INSTANCE;
        }
    }

    /** The fixed-layout serializer; stateless. */
    public static final class Serializer extends FixedLayoutTypeInfo.ImmutableSerializer<WaitSlot> {

        private static final long serialVersionUID = 1L;

        public static final int LENGTH = 24;

        public static final Serializer INSTANCE = new Serializer();

        private Serializer() {
            super(LENGTH);
        }

        @Override
        public void serialize(WaitSlot k, DataOutputView out) throws IOException {
            out.writeInt(k.version());
            out.writeLong(k.observationDomainId());
            out.writeInt(k.templateId());
            out.writeLong(k.ordinal());
        }

        @Override
        public WaitSlot deserialize(DataInputView in) throws IOException {
            return new WaitSlot(in.readInt(), in.readLong(), in.readInt(), in.readLong());
        }

        @Override
        public TypeSerializerSnapshot<WaitSlot> snapshotConfiguration() {
            return new Snapshot();
        }
    }

    /** Serializer snapshot; layout version 1. */
    public static final class Snapshot extends LayoutSnapshot<WaitSlot> {
        public Snapshot() {
            super(1, () -> Serializer.INSTANCE);
        }
    }
}
