// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.packet.PacketSummary;
import io.flowhouse.jobs.serde.FixedLayoutTypeInfo;
import java.io.IOException;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The type of packet summaries between the {@code packets.raw} source and the flow cache: a
 * fixed-layout serializer instead of Flink's reflective record serializer (which built every
 * summary through {@code Constructor.newInstance} and walked the two nested address objects field
 * by field). Summaries cross the {@code keyBy} shuffle once per packet, so this is on the hot path;
 * they are never kept in state.
 *
 * <p>Layout (83 bytes, big-endian): timestamp 8, interface 4, outer VLAN 2, inner VLAN 2, source
 * MAC 8, destination MAC 8, IP version 1, source address 16, destination address 16, ports 2 + 2,
 * protocol 1, ToS 1, TTL 1, TCP flags 2, IP length 4, wire length 4, fragment 1. Field widths are
 * those of the {@code packets.raw} format, so every summary a batch decodes to round-trips exactly.
 */
public final class PacketSummaryTypeInfo extends FixedLayoutTypeInfo<PacketSummary> {

    private static final long serialVersionUID = 1L;

    public static final PacketSummaryTypeInfo INSTANCE = new PacketSummaryTypeInfo();

    private PacketSummaryTypeInfo() {
        super(PacketSummary.class, false);
    }

    @Override
    public TypeSerializer<PacketSummary> createSerializer(SerializerConfig config) {
        return Serializer.INSTANCE;
    }

    /** The fixed-layout serializer; stateless. */
    public static final class Serializer
            extends FixedLayoutTypeInfo.ImmutableSerializer<PacketSummary> {

        private static final long serialVersionUID = 1L;

        /** Serialized size of every summary. */
        public static final int LENGTH = 83;

        public static final Serializer INSTANCE = new Serializer();

        private Serializer() {
            super(LENGTH);
        }

        @Override
        public void serialize(PacketSummary p, DataOutputView out) throws IOException {
            out.writeLong(p.timestampNanos());
            out.writeInt(p.interfaceIndex());
            out.writeShort(p.outerVlan());
            out.writeShort(p.innerVlan());
            out.writeLong(p.srcMac());
            out.writeLong(p.dstMac());
            out.writeByte(p.ipVersion());
            writeAddress(p.srcAddr(), out);
            writeAddress(p.dstAddr(), out);
            out.writeShort(p.srcPort());
            out.writeShort(p.dstPort());
            out.writeByte(p.protocol());
            out.writeByte(p.tos());
            out.writeByte(p.ttl());
            out.writeShort(p.tcpFlags());
            out.writeInt(p.ipLength());
            out.writeInt(p.wireLength());
            out.writeBoolean(p.fragment());
        }

        @Override
        public PacketSummary deserialize(DataInputView in) throws IOException {
            long ts = in.readLong();
            int ifIndex = in.readInt();
            int outer = in.readUnsignedShort();
            int inner = in.readUnsignedShort();
            long srcMac = in.readLong();
            long dstMac = in.readLong();
            int ipVersion = in.readUnsignedByte();
            IpAddress src = readAddress(in);
            IpAddress dst = readAddress(in);
            return new PacketSummary(
                    ts,
                    ifIndex,
                    outer,
                    inner,
                    srcMac,
                    dstMac,
                    ipVersion,
                    src,
                    dst,
                    in.readUnsignedShort(),
                    in.readUnsignedShort(),
                    in.readUnsignedByte(),
                    in.readUnsignedByte(),
                    in.readUnsignedByte(),
                    in.readUnsignedShort(),
                    in.readInt(),
                    in.readInt(),
                    in.readBoolean());
        }

        @Override
        public TypeSerializerSnapshot<PacketSummary> snapshotConfiguration() {
            return new Snapshot();
        }
    }

    /** Serializer snapshot: the layout has one version. */
    public static final class Snapshot extends LayoutSnapshot<PacketSummary> {
        public Snapshot() {
            super(1, () -> Serializer.INSTANCE);
        }
    }
}
