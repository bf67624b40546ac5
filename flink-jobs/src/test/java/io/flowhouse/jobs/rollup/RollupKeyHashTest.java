// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import java.util.SplittableRandom;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

/**
 * {@link RollupKey} caches its hash; the value must stay the one the record it was before computed,
 * or keys would move to other key groups and savepoints of the rollups would not restore. The
 * reference is a record of the same components in the same order. Its serialized layout is
 * unchanged too.
 */
class RollupKeyHashTest {

    /** What {@link RollupKey} was: its hash, equality and text are the JDK's for records. */
    private record RecordKey(
            int kind,
            IpAddress exporter,
            long iface,
            int direction,
            int protocol,
            int port,
            long srcAs,
            long dstAs,
            IpAddress srcAddr,
            IpAddress dstAddr) {

        RollupKey key() {
            return new RollupKey(
                    kind, exporter, iface, direction, protocol, port, srcAs, dstAs, srcAddr,
                    dstAddr);
        }
    }

    private static IpAddress address(SplittableRandom r) {
        return switch (r.nextInt(4)) {
            case 0 -> IpAddress.UNSPECIFIED;
            case 1 -> IpAddress.ofIpv4(r.nextInt());
            case 2 -> new IpAddress(r.nextLong(), r.nextLong());
            default -> r.nextBoolean() ? new IpAddress(-1L, -1L) : null;
        };
    }

    private static long wide(SplittableRandom r) {
        return switch (r.nextInt(3)) {
            case 0 -> r.nextLong();
            case 1 -> r.nextInt(1 << 16);
            default -> r.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
        };
    }

    private static RecordKey random(SplittableRandom r) {
        return new RecordKey(
                r.nextInt(8),
                address(r),
                wide(r),
                r.nextInt(3),
                r.nextInt(256),
                r.nextInt(65_536),
                wide(r),
                wide(r),
                address(r),
                address(r));
    }

    @Test
    void cachedHashIsTheRecordsHashAndKeyGroupsStay() {
        SplittableRandom r = new SplittableRandom(0x7a5L);
        for (int i = 0; i < 50_000; i++) {
            RecordKey old = random(r);
            RollupKey key = old.key();
            assertThat(key.hashCode()).as("%s", old).isEqualTo(old.hashCode());
            assertThat(KeyGroupRangeAssignment.assignToKeyGroup(key, 128))
                    .isEqualTo(KeyGroupRangeAssignment.assignToKeyGroup(old, 128));
            assertThat(key.toString()).isEqualTo(old.toString().replace("RecordKey", "RollupKey"));
        }
    }

    @Test
    void equalityIsTheRecordsOverEveryComponent() {
        SplittableRandom r = new SplittableRandom(0x7a6L);
        for (int i = 0; i < 20_000; i++) {
            RecordKey a = random(r);
            RecordKey b = r.nextBoolean() ? a : random(r);
            assertThat(a.key().equals(b.key())).isEqualTo(a.equals(b));
            assertThat(a.key()).isEqualTo(a.key()).hasSameHashCodeAs(a.key());
        }
        IpAddress v4 = IpAddress.parse("192.0.2.1");
        RollupKey base = new RollupKey(1, v4, 2, 1, 6, 443, 3, 4, v4, v4);
        assertThat(base).isNotEqualTo(new RollupKey(2, v4, 2, 1, 6, 443, 3, 4, v4, v4));
        assertThat(base).isNotEqualTo(new RollupKey(1, v4, 2, 1, 6, 443, 3, 4, v4, null));
        assertThat(base).isNotEqualTo(new RollupKey(1, v4, 2, 1, 6, 443, 3, 5, v4, v4));
        assertThat(base).isNotEqualTo(null).isNotEqualTo("x");
    }

    @Test
    void addressHashIsTheRecordsToo() {
        record Address(long hi, long lo) {}
        SplittableRandom r = new SplittableRandom(0x7a7L);
        for (int i = 0; i < 50_000; i++) {
            long hi = r.nextLong();
            long lo = r.nextLong();
            assertThat(new IpAddress(hi, lo).hashCode()).isEqualTo(new Address(hi, lo).hashCode());
        }
    }

    /** The key written in one piece is the documented layout, field by field, big-endian. */
    @Test
    void serializedBytesAreTheFieldByFieldLayout() throws Exception {
        SplittableRandom r = new SplittableRandom(0x7a8L);
        for (int i = 0; i < 20_000; i++) {
            RecordKey k = random(r);
            if (k.exporter() == null || k.srcAddr() == null || k.dstAddr() == null) {
                continue; // keys never hold null addresses
            }
            DataOutputSerializer expected = new DataOutputSerializer(88);
            expected.writeInt(k.kind());
            expected.writeLong(k.exporter().hi());
            expected.writeLong(k.exporter().lo());
            expected.writeLong(k.iface());
            expected.writeInt(k.direction());
            expected.writeInt(k.protocol());
            expected.writeInt(k.port());
            expected.writeLong(k.srcAs());
            expected.writeLong(k.dstAs());
            expected.writeLong(k.srcAddr().hi());
            expected.writeLong(k.srcAddr().lo());
            expected.writeLong(k.dstAddr().hi());
            expected.writeLong(k.dstAddr().lo());
            DataOutputSerializer actual = new DataOutputSerializer(88);
            RollupKeyTypeInfo.Serializer.INSTANCE.serialize(k.key(), actual);
            assertThat(actual.getCopyOfBuffer()).isEqualTo(expected.getCopyOfBuffer());
            assertThat(
                            RollupKeyTypeInfo.Serializer.INSTANCE.deserialize(
                                    new DataInputDeserializer(actual.getCopyOfBuffer())))
                    .isEqualTo(k.key());
        }
    }
}
