// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.serde.FixedLayoutTypeInfo;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * The type of context pieces and rows ({@link ContextRow}): a serializer of its own instead of
 * Flink's reflective record serializer, as {@link RollupRowTypeInfo} for the plain rows. Every
 * piece crosses the context windows' {@code keyBy}.
 *
 * <p>Layout version 1 (big-endian, every number at its full Java width; strings as Flink's {@link
 * StringValue} writes them, length-prefixed): kind 4, window start 8, exporter 16, interface 8,
 * direction 4, interface name, in boundary 4, out boundary 4, protocol 4, source AS 8, destination
 * AS 8, source country, destination country, bytes 8, packets 8, flows 8, version 8.
 */
public final class ContextRowTypeInfo extends FixedLayoutTypeInfo<ContextRow> {

    private static final long serialVersionUID = 1L;

    public static final ContextRowTypeInfo INSTANCE = new ContextRowTypeInfo();

    private ContextRowTypeInfo() {
        super(ContextRow.class, false);
    }

    @Override
    public TypeSerializer<ContextRow> createSerializer(SerializerConfig config) {
        return Serializer.INSTANCE;
    }

    /** What {@code @TypeInfo} on {@link ContextRow} resolves to. */
    public static final class Factory extends TypeInfoFactory<ContextRow> {
        @Override
        public TypeInformation<ContextRow> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return INSTANCE;
        }
    }

    /** The serializer; stateless, values immutable. */
    public static final class Serializer extends Immutable<ContextRow> {

        private static final long serialVersionUID = 1L;

        public static final Serializer INSTANCE = new Serializer();

        private Serializer() {}

        @Override
        public void serialize(ContextRow r, DataOutputView out) throws IOException {
            out.writeInt(r.kind());
            out.writeLong(r.windowStart());
            writeAddress(r.exporter(), out);
            out.writeLong(r.iface());
            out.writeInt(r.direction());
            StringValue.writeString(r.ifName(), out);
            out.writeInt(r.inBoundary());
            out.writeInt(r.outBoundary());
            out.writeInt(r.protocol());
            out.writeLong(r.srcAs());
            out.writeLong(r.dstAs());
            StringValue.writeString(r.srcCountry(), out);
            StringValue.writeString(r.dstCountry(), out);
            out.writeLong(r.bytes());
            out.writeLong(r.packets());
            out.writeLong(r.flows());
            out.writeLong(r.version());
        }

        @Override
        public ContextRow deserialize(DataInputView in) throws IOException {
            return new ContextRow(
                    in.readInt(),
                    in.readLong(),
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
                    StringValue.readString(in),
                    in.readLong(),
                    in.readLong(),
                    in.readLong(),
                    in.readLong());
        }

        @Override
        public TypeSerializerSnapshot<ContextRow> snapshotConfiguration() {
            return new Snapshot();
        }
    }

    /** Serializer snapshot; layout version 1. */
    public static final class Snapshot extends LayoutSnapshot<ContextRow> {
        public Snapshot() {
            super(1, () -> Serializer.INSTANCE);
        }
    }

    /**
     * A stateless serializer of immutable values of variable length (they hold strings): a copy is
     * the value itself; bytes are copied by reading and writing the value.
     */
    abstract static class Immutable<T> extends TypeSerializerSingleton<T> {

        private static final long serialVersionUID = 1L;

        @Override
        public final boolean isImmutableType() {
            return true;
        }

        @Override
        public final T createInstance() {
            return null;
        }

        @Override
        public final T copy(T from) {
            return from;
        }

        @Override
        public final T copy(T from, T reuse) {
            return from;
        }

        @Override
        public final int getLength() {
            return -1;
        }

        @Override
        public final T deserialize(T reuse, DataInputView in) throws IOException {
            return deserialize(in);
        }

        @Override
        public final void copy(DataInputView in, DataOutputView out) throws IOException {
            serialize(deserialize(in), out);
        }

        static void writeAddress(IpAddress a, DataOutputView out) throws IOException {
            out.writeLong(a.hi());
            out.writeLong(a.lo());
        }

        /** Reads an address; {@code ::} is the shared constant. */
        static IpAddress readAddress(DataInputView in) throws IOException {
            long hi = in.readLong();
            long lo = in.readLong();
            return hi == 0 && lo == 0 ? IpAddress.UNSPECIFIED : new IpAddress(hi, lo);
        }
    }
}
