// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.jobs.serde.FixedLayoutTypeInfo;
import java.io.IOException;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The type of the job's exporter keys ({@link ExporterKey}): the key of the decode and statistics
 * operators, written with every keyed state entry and timer. {@link ExporterKey#hashCode()} is
 * written out in the codec, so key groups do not depend on the JVM.
 *
 * <p>Layout (18 bytes, big-endian, as the Kafka key): address 16, port 2 (uint16).
 */
public final class ExporterKeyTypeInfo extends FixedLayoutTypeInfo<ExporterKey> {

    private static final long serialVersionUID = 1L;

    public static final ExporterKeyTypeInfo INSTANCE = new ExporterKeyTypeInfo();

    private ExporterKeyTypeInfo() {
        super(ExporterKey.class, true);
    }

    @Override
    public TypeSerializer<ExporterKey> createSerializer(SerializerConfig config) {
        return Serializer.INSTANCE;
    }

    /** The fixed-layout serializer; stateless. */
    public static final class Serializer
            extends FixedLayoutTypeInfo.ImmutableSerializer<ExporterKey> {

        private static final long serialVersionUID = 1L;

        public static final int LENGTH = 18;

        public static final Serializer INSTANCE = new Serializer();

        private Serializer() {
            super(LENGTH);
        }

        @Override
        public void serialize(ExporterKey k, DataOutputView out) throws IOException {
            writeAddress(k.address(), out);
            out.writeShort(k.port());
        }

        @Override
        public ExporterKey deserialize(DataInputView in) throws IOException {
            return new ExporterKey(readAddress(in), in.readUnsignedShort());
        }

        @Override
        public TypeSerializerSnapshot<ExporterKey> snapshotConfiguration() {
            return new Snapshot();
        }
    }

    /** Serializer snapshot; layout version 1. */
    public static final class Snapshot extends LayoutSnapshot<ExporterKey> {
        public Snapshot() {
            super(1, () -> Serializer.INSTANCE);
        }
    }
}
