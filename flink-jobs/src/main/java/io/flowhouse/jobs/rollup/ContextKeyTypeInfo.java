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
import org.apache.flink.types.StringValue;

/**
 * The type of context bucket keys ({@link ContextRow.Key}): the key of the context windows, written
 * with every window state entry and timer of a checkpoint.
 *
 * <p>Layout version 1 ({@link ContextRowTypeInfo}'s, without window and counters): kind 4, exporter
 * 16, interface 8, direction 4, interface name, in boundary 4, out boundary 4, protocol 4, source
 * AS 8, destination AS 8, source country, destination country.
 */
public final class ContextKeyTypeInfo extends FixedLayoutTypeInfo<ContextRow.Key> {

    private static final long serialVersionUID = 1L;

    public static final ContextKeyTypeInfo INSTANCE = new ContextKeyTypeInfo();

    private ContextKeyTypeInfo() {
        super(ContextRow.Key.class, true);
    }

    @Override
    public TypeSerializer<ContextRow.Key> createSerializer(SerializerConfig config) {
        return Serializer.INSTANCE;
    }

    /** What {@code @TypeInfo} on {@link ContextRow.Key} resolves to. */
    public static final class Factory extends TypeInfoFactory<ContextRow.Key> {
        @Override
        public TypeInformation<ContextRow.Key> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return INSTANCE;
        }
    }

    /** The serializer; stateless, keys immutable. */
    public static final class Serializer extends ContextRowTypeInfo.Immutable<ContextRow.Key> {

        private static final long serialVersionUID = 1L;

        public static final Serializer INSTANCE = new Serializer();

        private Serializer() {}

        @Override
        public void serialize(ContextRow.Key k, DataOutputView out) throws IOException {
            out.writeInt(k.kind());
            writeAddress(k.exporter(), out);
            out.writeLong(k.iface());
            out.writeInt(k.direction());
            StringValue.writeString(k.ifName(), out);
            out.writeInt(k.inBoundary());
            out.writeInt(k.outBoundary());
            out.writeInt(k.protocol());
            out.writeLong(k.srcAs());
            out.writeLong(k.dstAs());
            StringValue.writeString(k.srcCountry(), out);
            StringValue.writeString(k.dstCountry(), out);
        }

        @Override
        public ContextRow.Key deserialize(DataInputView in) throws IOException {
            return new ContextRow.Key(
                    in.readInt(),
                    readAddress(in),
                    in.readLong(),
                    in.readInt(),
                    StringValue.readString(in),
                    in.readInt(),
                    in.readInt(),
                    in.readInt(),
                    in.readLong(),
                    in.readLong(),
                    StringValue.readString(in),
                    StringValue.readString(in));
        }

        @Override
        public TypeSerializerSnapshot<ContextRow.Key> snapshotConfiguration() {
            return new Snapshot();
        }
    }

    /** Serializer snapshot; layout version 1. */
    public static final class Snapshot extends LayoutSnapshot<ContextRow.Key> {
        public Snapshot() {
            super(1, () -> Serializer.INSTANCE);
        }
    }
}
