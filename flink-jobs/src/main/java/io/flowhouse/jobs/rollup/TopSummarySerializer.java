// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.jobs.serde.FixedLayoutTypeInfo.LayoutSnapshot;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of a {@link TopSummary} in window state (the talker and conversation summaries of
 * {@link AddressSummaries}). Layout version 1, big-endian: capacity 4, size 4,
 * changed-since-emitted 1, then per entry in heap order (so the heap is rebuilt without sifting)
 * source address 16, destination address 16, bytes 8, packets 8, flows 8, error 8: 64 bytes per
 * address held.
 */
public final class TopSummarySerializer extends TypeSerializerSingleton<TopSummary> {

    private static final long serialVersionUID = 1L;

    public static final TopSummarySerializer INSTANCE = new TopSummarySerializer();

    private TopSummarySerializer() {}

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TopSummary createInstance() {
        return new TopSummary(1);
    }

    @Override
    public TopSummary copy(TopSummary from) {
        return from.copy();
    }

    @Override
    public TopSummary copy(TopSummary from, TopSummary reuse) {
        return from.copy();
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(TopSummary s, DataOutputView out) throws IOException {
        out.writeInt(s.capacity());
        out.writeInt(s.size());
        out.writeBoolean(s.dirty());
        for (int i = 0; i < s.size(); i++) {
            int e = s.heapEntry(i);
            out.writeLong(s.srcHi(e));
            out.writeLong(s.srcLo(e));
            out.writeLong(s.dstHi(e));
            out.writeLong(s.dstLo(e));
            out.writeLong(s.bytes(e));
            out.writeLong(s.packets(e));
            out.writeLong(s.flows(e));
            out.writeLong(s.error(e));
        }
    }

    @Override
    public TopSummary deserialize(DataInputView in) throws IOException {
        int capacity = in.readInt();
        int size = in.readInt();
        boolean dirty = in.readBoolean();
        if (capacity < 1 || size < 0 || size > capacity) {
            throw new IOException("top summary of " + size + " entries, capacity " + capacity);
        }
        TopSummary s = new TopSummary(capacity);
        for (int i = 0; i < size; i++) {
            s.restore(
                    in.readLong(),
                    in.readLong(),
                    in.readLong(),
                    in.readLong(),
                    in.readLong(),
                    in.readLong(),
                    in.readLong(),
                    in.readLong());
        }
        s.restoreDirty(dirty);
        return s;
    }

    @Override
    public TopSummary deserialize(TopSummary reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        serialize(deserialize(in), out);
    }

    @Override
    public TypeSerializerSnapshot<TopSummary> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Serializer snapshot; layout version 1. */
    public static final class Snapshot extends LayoutSnapshot<TopSummary> {
        public Snapshot() {
            super(1, () -> INSTANCE);
        }
    }
}
