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
 * The type of the bucket accumulators (the window state of every rollup bucket): three longs,
 * bytes, packets, flows (24 bytes, big-endian). Counters are mutable, so copies are real copies.
 */
public final class RollupCountersTypeInfo extends FixedLayoutTypeInfo<RollupCounters> {

    private static final long serialVersionUID = 1L;

    public static final RollupCountersTypeInfo INSTANCE = new RollupCountersTypeInfo();

    private RollupCountersTypeInfo() {
        super(RollupCounters.class, false);
    }

    @Override
    public TypeSerializer<RollupCounters> createSerializer(SerializerConfig config) {
        return Serializer.INSTANCE;
    }

    /** What {@code @TypeInfo} on {@link RollupCounters} resolves to. */
    public static final class Factory extends TypeInfoFactory<RollupCounters> {
        @Override
        public TypeInformation<RollupCounters> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return INSTANCE;
        }
    }

    /** The fixed-layout serializer; stateless. */
    public static final class Serializer extends FixedLayoutTypeInfo.Serializer<RollupCounters> {

        private static final long serialVersionUID = 1L;

        /** Serialized size of every accumulator. */
        public static final int LENGTH = 24;

        public static final Serializer INSTANCE = new Serializer();

        private Serializer() {
            super(LENGTH);
        }

        @Override
        public boolean isImmutableType() {
            return false;
        }

        @Override
        public RollupCounters createInstance() {
            return new RollupCounters();
        }

        @Override
        public RollupCounters copy(RollupCounters from) {
            return copy(from, new RollupCounters());
        }

        @Override
        public RollupCounters copy(RollupCounters from, RollupCounters reuse) {
            reuse.bytes = from.bytes;
            reuse.packets = from.packets;
            reuse.flows = from.flows;
            return reuse;
        }

        @Override
        public void serialize(RollupCounters c, DataOutputView out) throws IOException {
            out.writeLong(c.bytes);
            out.writeLong(c.packets);
            out.writeLong(c.flows);
        }

        @Override
        public RollupCounters deserialize(DataInputView in) throws IOException {
            return deserialize(new RollupCounters(), in);
        }

        @Override
        public RollupCounters deserialize(RollupCounters reuse, DataInputView in)
                throws IOException {
            reuse.bytes = in.readLong();
            reuse.packets = in.readLong();
            reuse.flows = in.readLong();
            return reuse;
        }

        @Override
        public TypeSerializerSnapshot<RollupCounters> snapshotConfiguration() {
            return new Snapshot();
        }
    }

    /** Serializer snapshot; layout version 1. */
    public static final class Snapshot extends LayoutSnapshot<RollupCounters> {
        public Snapshot() {
            super(1, () -> Serializer.INSTANCE);
        }
    }
}
