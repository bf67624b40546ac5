// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.junit.jupiter.api.Test;

/**
 * The context rollups' own serializers ({@link ContextRowTypeInfo}, {@link ContextKeyTypeInfo})
 * round-trip every component at its extremes, restore from their own snapshots as-is and refuse an
 * unknown layout; the key's hash is the one computed from its fields (stable: key groups depend on
 * it); and the context rollup topology has no generic or reflective context type left.
 */
class ContextTypesTest {

    private static final IpAddress V6 = IpAddress.parse("2001:db8::1");
    private static final IpAddress ALL_ONES = new IpAddress(-1L, -1L);

    private static ContextRow row(int i, long l, IpAddress a, String s) {
        return new ContextRow(i, l, a, l, i, s, i, i, i, l, l, s, s + s, l, l, l, l);
    }

    private static List<ContextRow> rows() {
        return List.of(
                row(0, 0L, IpAddress.UNSPECIFIED, ""),
                row(Integer.MAX_VALUE, Long.MAX_VALUE, ALL_ONES, "xe-0/0/0.100"),
                row(Integer.MIN_VALUE, Long.MIN_VALUE, V6, "Ethernet «uplink» ÄÖ 東京"),
                row(-1, -1L, IpAddress.parse("192.0.2.1"), "x".repeat(70_000)),
                new ContextRow(
                        ContextRow.BOUNDARY_AS,
                        1_705_320_000_000L,
                        V6,
                        7L,
                        0,
                        "",
                        1,
                        2,
                        6,
                        64_500L,
                        4_200_000_000L,
                        "",
                        "",
                        1_500L,
                        3L,
                        1L,
                        1_504L));
    }

    private static <T> TypeSerializer<T> serializer(TypeInformation<T> type) {
        return type.createSerializer(new SerializerConfigImpl());
    }

    private static <T> List<T> roundTrip(TypeSerializer<T> ser, List<T> in) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        for (T v : in) {
            ser.serialize(v, out);
        }
        // copy(in, out) moves each value's bytes.
        DataInputDeserializer src = new DataInputDeserializer(out.getCopyOfBuffer());
        DataOutputSerializer copied = new DataOutputSerializer(out.length());
        for (int i = 0; i < in.size(); i++) {
            ser.copy(src, copied);
        }
        assertThat(copied.length()).isEqualTo(out.length());
        DataInputDeserializer back = new DataInputDeserializer(copied.getCopyOfBuffer());
        List<T> result = new ArrayList<>();
        for (int i = 0; i < in.size(); i++) {
            result.add(ser.deserialize(back));
        }
        assertThat(back.available()).isZero();
        return result;
    }

    @Test
    void everyRowAndKeyComponentRoundTrips() throws IOException {
        List<ContextRow> rows = rows();
        assertThat(roundTrip(serializer(ContextRowTypeInfo.INSTANCE), rows))
                .containsExactlyElementsOf(rows);
        List<ContextRow.Key> keys = rows.stream().map(ContextRow::key).toList();
        List<ContextRow.Key> back = roundTrip(serializer(ContextKeyTypeInfo.INSTANCE), keys);
        assertThat(back).containsExactlyElementsOf(keys);
        assertThat(back.get(0).exporter()).isSameAs(IpAddress.UNSPECIFIED);
        for (int i = 0; i < keys.size(); i++) {
            assertThat(back.get(i).hashCode()).isEqualTo(keys.get(i).hashCode());
            assertThat(back.get(i).toString()).isEqualTo(keys.get(i).toString());
        }
    }

    @Test
    void theKeyHashIsItsFieldsAndStable() {
        ContextRow.Key k = rows().get(4).key();
        int h = ContextRow.BOUNDARY_AS;
        h = 31 * h + Long.hashCode(V6.hi());
        h = 31 * h + Long.hashCode(V6.lo());
        h = 31 * h + Long.hashCode(7L);
        h = 31 * h;
        h = 31 * h + "".hashCode();
        h = 31 * h + 1;
        h = 31 * h + 2;
        h = 31 * h + 6;
        h = 31 * h + Long.hashCode(64_500L);
        h = 31 * h + Long.hashCode(4_200_000_000L);
        h = 31 * h;
        h = 31 * h;
        assertThat(k.hashCode()).isEqualTo(h);
        // Any field makes a different key.
        assertThat(rows().get(1).key()).isNotEqualTo(rows().get(3).key());
        ContextRow r = rows().get(4);
        assertThat(r.key())
                .isEqualTo(r.key())
                .isNotEqualTo(
                        new ContextRow.Key(
                                r.kind(),
                                r.exporter(),
                                r.iface(),
                                r.direction(),
                                "x",
                                r.inBoundary(),
                                r.outBoundary(),
                                r.protocol(),
                                r.srcAs(),
                                r.dstAs(),
                                r.srcCountry(),
                                r.dstCountry()));
    }

    private static <T> void restoresAsIs(TypeSerializer<T> ser) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, ser.snapshotConfiguration());
        TypeSerializerSnapshot<T> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(out.getCopyOfBuffer()),
                        ContextTypesTest.class.getClassLoader());
        assertThat(restored).isInstanceOf(ser.snapshotConfiguration().getClass());
        assertThat(
                        ser.snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAsIs())
                .isTrue();
        assertThat(restored.restoreSerializer()).isEqualTo(ser);
    }

    @Test
    void aRestoredSnapshotIsCompatibleAsIsAndAnUnknownLayoutIsRefused() throws IOException {
        restoresAsIs(serializer(ContextRowTypeInfo.INSTANCE));
        restoresAsIs(serializer(ContextKeyTypeInfo.INSTANCE));
        TypeSerializerSnapshot<ContextRow.Key> s = new ContextKeyTypeInfo.Snapshot();
        assertThatThrownBy(
                        () ->
                                s.readSnapshot(
                                        2,
                                        new DataInputDeserializer(new byte[0]),
                                        getClass().getClassLoader()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("layout version 2");
    }

    @Test
    void theTypeExtractorFindsTheFactories() {
        assertThat(TypeInformation.of(ContextRow.class)).isSameAs(ContextRowTypeInfo.INSTANCE);
        assertThat(TypeInformation.of(ContextRow.Key.class)).isSameAs(ContextKeyTypeInfo.INSTANCE);
    }

    private static void collect(Transformation<?> t, Set<Transformation<?>> seen) {
        if (seen.add(t)) {
            for (Transformation<?> p : t.getInputs()) {
                collect(p, seen);
            }
        }
    }

    @Test
    void theContextRollupsHaveNoGenericOrReflectiveContextTypes() {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
        RollupSettings s =
                RollupStreams.settings(
                        Duration.ofMinutes(2), Duration.ofMinutes(1), Duration.ofHours(1));
        FlowRecord f =
                FlowRecord.builder()
                        .version(10)
                        .exporterAddress(V6)
                        .flowStartMillis(1_705_320_000_000L)
                        .flowEndMillis(1_705_320_000_000L)
                        .bytes(1)
                        .packets(1)
                        .build();
        EnrichedFlow e = new EnrichedFlow(f, ContextRollups.none(f));
        ContextRollups.attach(
                env.fromData(List.of(e), TypeInformation.of(EnrichedFlow.class)), s, null, null);
        SerializerConfig config = env.getConfig().getSerializerConfig();
        Set<Transformation<?>> all = new LinkedHashSet<>();
        env.getTransformations().forEach(t -> collect(t, all));
        int keyed = 0;
        int combiners = 0;
        for (Transformation<?> t : all) {
            TypeInformation<?> out = t.getOutputType();
            if (out.getTypeClass() == ContextRow.class) {
                assertThat(out).as(t.getName()).isSameAs(ContextRowTypeInfo.INSTANCE);
                assertThat(out.createSerializer(config))
                        .isSameAs(ContextRowTypeInfo.Serializer.INSTANCE);
            }
            if (t.getName().startsWith("combine context")) {
                combiners++;
            }
            if (t instanceof OneInputTransformation<?, ?> one
                    && one.getStateKeyType() != null
                    && one.getName().startsWith("rollup context")) {
                assertThat(one.getStateKeyType()).isSameAs(ContextKeyTypeInfo.INSTANCE);
                keyed++;
            }
        }
        assertThat(keyed).isEqualTo(2);
        // The 1 h rows are derived from the 1 min ones: one combiner, for the pieces of the flows.
        assertThat(combiners).isEqualTo(1);
    }
}
