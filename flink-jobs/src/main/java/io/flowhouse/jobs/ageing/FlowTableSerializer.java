// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.jobs.serde.FixedLayoutTypeInfo;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of a {@link FlowTable}: the flow count and the bucket's timer, then per flow its 13
 * longs and 5 ints (the hash and the index are rebuilt on read, so the hash function is not part of
 * the format). {@link #copy(FlowTable)} is deep: the heap backend's copy-on-write snapshots rely on
 * it to keep a snapshot's tables apart from the ones the function goes on mutating.
 */
public final class FlowTableSerializer extends TypeSerializerSingleton<FlowTable> {

    private static final long serialVersionUID = 1L;

    public static final FlowTableSerializer INSTANCE = new FlowTableSerializer();

    /** Serialized ints per flow: every int field but the hash. */
    private static final int STORED_INTS = FlowTable.INTS - 1;

    private static final int FLOW_BYTES = FlowTable.LONGS * 8 + STORED_INTS * 4;

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public FlowTable createInstance() {
        return new FlowTable();
    }

    @Override
    public FlowTable copy(FlowTable from) {
        return from.copy();
    }

    @Override
    public FlowTable copy(FlowTable from, FlowTable reuse) {
        return from.copy();
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(FlowTable t, DataOutputView out) throws IOException {
        out.writeInt(t.size);
        out.writeLong(t.timerMillis);
        for (int s = 0; s < t.size; s++) {
            int lo = s * FlowTable.LONGS;
            for (int i = 0; i < FlowTable.LONGS; i++) {
                out.writeLong(t.longs[lo + i]);
            }
            int io = s * FlowTable.INTS;
            for (int i = FlowTable.HASH + 1; i < FlowTable.INTS; i++) {
                out.writeInt(t.ints[io + i]);
            }
        }
    }

    @Override
    public FlowTable deserialize(DataInputView in) throws IOException {
        int size = in.readInt();
        if (size < 0) {
            throw new IOException("flow table of " + size + " flows (expected: >= 0)");
        }
        FlowTable t = new FlowTable(size);
        t.timerMillis = in.readLong();
        for (int s = 0; s < size; s++) {
            int lo = s * FlowTable.LONGS;
            for (int i = 0; i < FlowTable.LONGS; i++) {
                t.longs[lo + i] = in.readLong();
            }
            int io = s * FlowTable.INTS;
            for (int i = FlowTable.HASH + 1; i < FlowTable.INTS; i++) {
                t.ints[io + i] = in.readInt();
            }
            t.ints[io + FlowTable.HASH] =
                    (int)
                            FlowTable.hash(
                                    t.longs[lo + FlowTable.A_HI],
                                    t.longs[lo + FlowTable.A_LO],
                                    t.longs[lo + FlowTable.B_HI],
                                    t.longs[lo + FlowTable.B_LO],
                                    t.ints[io + FlowTable.PORTS],
                                    t.ints[io + FlowTable.VLANS_PROTOCOL],
                                    t.ints[io + FlowTable.INTERFACE]);
        }
        t.size = size;
        t.reindex();
        return t;
    }

    @Override
    public FlowTable deserialize(FlowTable reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        int size = in.readInt();
        out.writeInt(size);
        out.writeLong(in.readLong());
        out.write(in, size * FLOW_BYTES);
    }

    @Override
    public TypeSerializerSnapshot<FlowTable> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Layout version 1: the format above. */
    public static final class Snapshot extends FixedLayoutTypeInfo.LayoutSnapshot<FlowTable> {

        public Snapshot() {
            super(1, () -> INSTANCE);
        }
    }

    /** Keeps the singleton on Java deserialization. */
    private Object readResolve() {
        return INSTANCE;
    }
}
