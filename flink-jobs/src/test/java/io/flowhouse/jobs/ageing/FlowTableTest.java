// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** The open-addressing table against a {@link HashMap}, and its serializer. */
class FlowTableTest {

    /** A key of a small space (many hits, removals and probe chains). */
    private static FlowTable.Key key(int i) {
        FlowTable.Key k = new FlowTable.Key();
        k.aHi = 0;
        k.aLo = 0xffff_0a00_0000L | (i & 0xff);
        k.bHi = 0;
        k.bLo = 0xffff_c633_6400L | (i >>> 8);
        k.ports = (1024 + i) << 16 | 443;
        k.vlansProtocol = 17 << 24;
        k.interfaceIndex = 1;
        k.hash64 = FlowTable.hash(k.aHi, k.aLo, k.bHi, k.bLo, k.ports, k.vlansProtocol, 1);
        k.hash = (int) k.hash64;
        return k;
    }

    @Test
    void findInsertAndRemoveAgreeWithAHashMap() {
        Random r = new Random(7);
        FlowTable t = new FlowTable();
        Map<Integer, Long> model = new HashMap<>();
        for (int op = 0; op < 200_000; op++) {
            // Grows to a few thousand flows, then shrinks back to none.
            int space = op < 150_000 ? 4_000 : 50;
            int i = r.nextInt(space);
            FlowTable.Key k = key(i);
            int s = t.find(k);
            Long expected = model.get(i);
            assertThat(s >= 0).isEqualTo(expected != null);
            if (s >= 0) {
                assertThat(t.longs[s * FlowTable.LONGS + FlowTable.PACKETS]).isEqualTo(expected);
                if (r.nextInt(3) == 0 || op >= 150_000) {
                    t.remove(s);
                    model.remove(i);
                } else {
                    t.longs[s * FlowTable.LONGS + FlowTable.PACKETS]++;
                    model.put(i, expected + 1);
                }
            } else if (op < 150_000) {
                s = t.insert(k);
                t.longs[s * FlowTable.LONGS + FlowTable.PACKETS] = 1;
                model.put(i, 1L);
            }
            assertThat(t.size()).isEqualTo(model.size());
        }
        for (int i = 0; i < 4_000; i++) {
            int s = t.find(key(i));
            if (s >= 0) {
                t.remove(s);
                model.remove(i);
            }
        }
        assertThat(model).isEmpty();
        assertThat(t.size()).isZero();
    }

    @Test
    void serializerRoundTripsAndCopiesDeeply() throws Exception {
        FlowTable t = new FlowTable();
        List<Integer> keys = new ArrayList<>();
        for (int i = 0; i < 1_000; i += 3) {
            int s = t.insert(key(i));
            for (int f = FlowTable.FIRST; f < FlowTable.LONGS; f++) {
                t.longs[s * FlowTable.LONGS + f] = Long.MIN_VALUE + i * 31L + f;
            }
            t.ints[s * FlowTable.INTS + FlowTable.META] = 0x01ff_ffff;
            t.ints[s * FlowTable.INTS + FlowTable.FIRST_DST_PORT] = 0x0800;
            keys.add(i);
        }
        t.remove(t.find(key(3)));
        keys.remove(Integer.valueOf(3));
        t.timerMillis = 1_705_320_123_456L;

        FlowTableSerializer ser = FlowTableSerializer.INSTANCE;
        DataOutputSerializer out = new DataOutputSerializer(64);
        ser.serialize(t, out);
        FlowTable back = ser.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertSame(t, back, keys);

        // copy(DataInputView, DataOutputView) copies the same bytes.
        DataOutputSerializer copied = new DataOutputSerializer(out.length());
        ser.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
        assertThat(copied.getCopyOfBuffer()).isEqualTo(out.getCopyOfBuffer());

        // A copy is deep: changing the original leaves it as it was.
        FlowTable copy = ser.copy(t);
        int s = t.find(key(0));
        t.longs[s * FlowTable.LONGS + FlowTable.PACKETS] = 42;
        t.remove(t.find(key(6)));
        t.insert(key(1));
        t.timerMillis = 1;
        keys.remove(Integer.valueOf(6));
        assertThat(copy.find(key(6))).isNotNegative();
        assertThat(copy.find(key(1))).isNegative();
        assertThat(copy.longs[copy.find(key(0)) * FlowTable.LONGS + FlowTable.PACKETS])
                .isNotEqualTo(42);
        assertThat(copy.timerMillis).isEqualTo(1_705_320_123_456L);
        assertThat(ser.snapshotConfiguration().restoreSerializer()).isSameAs(ser);
    }

    @Test
    void aRestoredTableTakesInsertsAndRemoves() throws Exception {
        for (int n = 0; n < 40; n++) {
            FlowTable t = new FlowTable();
            for (int i = 0; i < n; i++) {
                t.insert(key(i));
            }
            DataOutputSerializer out = new DataOutputSerializer(64);
            FlowTableSerializer.INSTANCE.serialize(t, out);
            FlowTable back =
                    FlowTableSerializer.INSTANCE.deserialize(
                            new DataInputDeserializer(out.getCopyOfBuffer()));
            for (int i = n; i < 2 * n + 5; i++) {
                back.insert(key(i));
            }
            for (int i = 0; i < 2 * n + 5; i++) {
                int s = back.find(key(i));
                assertThat(s).isNotNegative();
                back.remove(s);
            }
            assertThat(back.size()).isZero();
        }
    }

    private static void assertSame(FlowTable a, FlowTable b, List<Integer> keys) {
        assertThat(b.size()).isEqualTo(a.size()).isEqualTo(keys.size());
        assertThat(b.timerMillis).isEqualTo(a.timerMillis);
        for (int i : keys) {
            int sa = a.find(key(i));
            int sb = b.find(key(i));
            assertThat(sb).isEqualTo(sa).isNotNegative();
            for (int f = 0; f < FlowTable.LONGS; f++) {
                assertThat(b.longs[sb * FlowTable.LONGS + f])
                        .isEqualTo(a.longs[sa * FlowTable.LONGS + f]);
            }
            for (int f = 0; f < FlowTable.INTS; f++) {
                assertThat(b.ints[sb * FlowTable.INTS + f])
                        .isEqualTo(a.ints[sa * FlowTable.INTS + f]);
            }
        }
    }
}
