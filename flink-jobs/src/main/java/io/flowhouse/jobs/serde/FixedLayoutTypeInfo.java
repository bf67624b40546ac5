// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.serde;

import io.flowhouse.codec.flow.IpAddress;
import java.io.IOException;
import java.util.function.Supplier;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The common part of the job's hand-written {@link TypeInformation}s (packet summaries, rollup
 * rows, keys and counters): one class, one stateless serializer (fixed-length, or with
 * length-prefixed strings for the context rows), no nested fields. Subclasses are singletons, so
 * equality is by class.
 */
public abstract class FixedLayoutTypeInfo<T> extends TypeInformation<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;
    private final boolean keyType;

    protected FixedLayoutTypeInfo(Class<T> type, boolean keyType) {
        this.type = type;
        this.keyType = keyType;
    }

    @Override
    public final boolean isBasicType() {
        return false;
    }

    @Override
    public final boolean isTupleType() {
        return false;
    }

    @Override
    public final int getArity() {
        return 1;
    }

    @Override
    public final int getTotalFields() {
        return 1;
    }

    @Override
    public final Class<T> getTypeClass() {
        return type;
    }

    @Override
    public final boolean isKeyType() {
        return keyType;
    }

    @Override
    public abstract TypeSerializer<T> createSerializer(SerializerConfig config);

    @Override
    public final String toString() {
        return type.getSimpleName() + " (fixed layout)";
    }

    @Override
    public final boolean equals(Object o) {
        return o != null && o.getClass() == getClass();
    }

    @Override
    public final int hashCode() {
        return getClass().hashCode();
    }

    @Override
    public final boolean canEqual(Object o) {
        return o != null && o.getClass() == getClass();
    }

    /** A stateless serializer of a fixed number of bytes per value (never null). */
    public abstract static class Serializer<T> extends TypeSerializerSingleton<T> {

        private static final long serialVersionUID = 1L;

        private final int length;

        protected Serializer(int length) {
            this.length = length;
        }

        @Override
        public final int getLength() {
            return length;
        }

        @Override
        public final void copy(DataInputView in, DataOutputView out) throws IOException {
            out.write(in, length);
        }

        @Override
        public T deserialize(T reuse, DataInputView in) throws IOException {
            return deserialize(in);
        }

        protected static void writeAddress(IpAddress a, DataOutputView out) throws IOException {
            out.writeLong(a.hi());
            out.writeLong(a.lo());
        }

        /** Reads an address; {@code ::} (absent in most pieces) is the shared constant. */
        protected static IpAddress readAddress(DataInputView in) throws IOException {
            long hi = in.readLong();
            long lo = in.readLong();
            return hi == 0 && lo == 0 ? IpAddress.UNSPECIFIED : new IpAddress(hi, lo);
        }
    }

    /**
     * A serializer of immutable values (records): a copy is the value itself, and there is no empty
     * instance to reuse.
     */
    public abstract static class ImmutableSerializer<T> extends Serializer<T> {

        private static final long serialVersionUID = 1L;

        protected ImmutableSerializer(int length) {
            super(length);
        }

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
    }

    /**
     * Snapshot of a fixed-layout serializer. The layout is the version: a restore from a snapshot
     * of another layout version is incompatible (there is no migration between layouts yet), and a
     * snapshot newer than this code cannot be read.
     */
    public abstract static class LayoutSnapshot<T> implements TypeSerializerSnapshot<T> {

        private final int layoutVersion;
        private final Supplier<TypeSerializer<T>> serializer;
        private int readVersion;

        protected LayoutSnapshot(int layoutVersion, Supplier<TypeSerializer<T>> serializer) {
            this.layoutVersion = layoutVersion;
            this.serializer = serializer;
            this.readVersion = layoutVersion;
        }

        @Override
        public final int getCurrentVersion() {
            return layoutVersion;
        }

        @Override
        public final void writeSnapshot(DataOutputView out) {
            // Nothing beyond the version: the layout is fixed by the class.
        }

        @Override
        public final void readSnapshot(int version, DataInputView in, ClassLoader loader)
                throws IOException {
            if (version < 1 || version > layoutVersion) {
                throw new IOException(
                        getClass().getName()
                                + " layout version "
                                + version
                                + " (expected: 1.."
                                + layoutVersion
                                + ")");
            }
            readVersion = version;
        }

        @Override
        public final TypeSerializer<T> restoreSerializer() {
            if (readVersion != layoutVersion) {
                throw new IllegalStateException(
                        "no serializer for layout version "
                                + readVersion
                                + " of "
                                + getClass().getName());
            }
            return serializer.get();
        }

        @Override
        public final TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
                TypeSerializerSnapshot<T> old) {
            if (old.getClass() == getClass()
                    && ((LayoutSnapshot<T>) old).readVersion == layoutVersion) {
                return TypeSerializerSchemaCompatibility.compatibleAsIs();
            }
            return TypeSerializerSchemaCompatibility.incompatible();
        }
    }
}
