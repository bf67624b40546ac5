// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.api.java.typeutils.GenericTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.junit.jupiter.api.Test;

/**
 * The fixed-layout rollup serializers round-trip every value of every component, restore from their
 * own snapshots as-is, and leave no reflective or Kryo serializer in the rollup topology.
 */
class RollupTypesTest {

    private static final IpAddress V4 = IpAddress.parse("192.0.2.10");
    private static final IpAddress V6 = IpAddress.parse("2001:db8::1");
    private static final IpAddress ALL_ONES = new IpAddress(-1L, -1L);
    private static final IpAddress SIGN = new IpAddress(Long.MIN_VALUE, 1L);

    private static RollupRow row(int i, long l, IpAddress a, IpAddress b, IpAddress c) {
        return new RollupRow(i, l, a, l, i, i, i, l, l, i, b, c, l, l, l, l, l);
    }

    private static List<RollupRow> rows() {
        return List.of(
                row(0, 0L, IpAddress.UNSPECIFIED, IpAddress.UNSPECIFIED, IpAddress.UNSPECIFIED),
                row(Integer.MAX_VALUE, Long.MAX_VALUE, ALL_ONES, SIGN, V6),
                row(Integer.MIN_VALUE, Long.MIN_VALUE, SIGN, ALL_ONES, V4),
                row(-1, -1L, V4, V6, ALL_ONES),
                new RollupRow(
                        3,
                        1_705_320_000_000L,
                        V4,
                        7L,
                        1,
                        17,
                        53,
                        64_500L,
                        4_200_000_000L,
                        2,
                        V6,
                        V4,
                        1_500L,
                        3L,
                        1L,
                        1_504L));
    }

    private static List<RollupKey> keys() {
        List<RollupKey> out = new ArrayList<>();
        for (RollupRow r : rows()) {
            out.add(new RollupKey.OfRow().getKey(r));
            out.add(new RollupKey.OfRanking().getKey(r));
        }
        return out;
    }

    private static <T> List<T> roundTrip(TypeSerializer<T> ser, List<T> in) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        for (T v : in) {
            ser.serialize(v, out);
        }
        assertThat(out.length()).isEqualTo(in.size() * ser.getLength());
        // copy(in, out) moves the bytes of a value without reading it.
        DataInputDeserializer src = new DataInputDeserializer(out.getCopyOfBuffer());
        DataOutputSerializer copied = new DataOutputSerializer(out.length());
        for (int i = 0; i < in.size(); i++) {
            ser.copy(src, copied);
        }
        DataInputDeserializer back = new DataInputDeserializer(copied.getCopyOfBuffer());
        List<T> result = new ArrayList<>();
        for (int i = 0; i < in.size(); i++) {
            result.add(ser.deserialize(back));
        }
        assertThat(back.available()).isZero();
        return result;
    }

    private static <T> TypeSerializer<T> serializer(TypeInformation<T> type) {
        return type.createSerializer(
                new org.apache.flink.api.common.serialization.SerializerConfigImpl());
    }

    @Test
    void everyRowComponentRoundTripsAtItsExtremes() throws IOException {
        List<RollupRow> rows = rows();
        assertThat(roundTrip(serializer(RollupRowTypeInfo.INSTANCE), rows))
                .containsExactlyElementsOf(rows);
    }

    @Test
    void everyKeyComponentRoundTripsAtItsExtremes() throws IOException {
        List<RollupKey> keys = keys();
        List<RollupKey> back = roundTrip(serializer(RollupKeyTypeInfo.INSTANCE), keys);
        assertThat(back).containsExactlyElementsOf(keys);
        assertThat(back.get(0).srcAddr()).isSameAs(IpAddress.UNSPECIFIED);
        for (int i = 0; i < keys.size(); i++) {
            assertThat(back.get(i).hashCode()).isEqualTo(keys.get(i).hashCode());
        }
    }

    @Test
    void countersRoundTripAndCopiesAreIndependent() throws IOException {
        TypeSerializer<RollupCounters> ser = serializer(RollupCountersTypeInfo.INSTANCE);
        RollupCounters c = new RollupCounters();
        c.bytes = Long.MIN_VALUE;
        c.packets = Long.MAX_VALUE;
        c.flows = -1L;
        RollupCounters back = roundTrip(ser, List.of(c)).get(0);
        assertThat(back).isNotSameAs(c).usingRecursiveComparison().isEqualTo(c);

        DataOutputSerializer out = new DataOutputSerializer(32);
        ser.serialize(c, out);
        RollupCounters reuse = new RollupCounters();
        assertThat(ser.deserialize(reuse, new DataInputDeserializer(out.getCopyOfBuffer())))
                .isSameAs(reuse)
                .usingRecursiveComparison()
                .isEqualTo(c);

        RollupCounters copy = ser.copy(c);
        copy.bytes++;
        assertThat(c.bytes).isEqualTo(Long.MIN_VALUE);
    }

    private static <T> void restoresAsIs(TypeSerializer<T> ser) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, ser.snapshotConfiguration());
        TypeSerializerSnapshot<T> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(out.getCopyOfBuffer()),
                        RollupTypesTest.class.getClassLoader());
        assertThat(restored).isInstanceOf(ser.snapshotConfiguration().getClass());
        assertThat(
                        ser.snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAsIs())
                .isTrue();
        assertThat(restored.restoreSerializer()).isEqualTo(ser);
    }

    @Test
    void aRestoredSnapshotIsCompatibleAsIs() throws IOException {
        restoresAsIs(serializer(RollupRowTypeInfo.INSTANCE));
        restoresAsIs(serializer(RollupKeyTypeInfo.INSTANCE));
        restoresAsIs(serializer(RollupCountersTypeInfo.INSTANCE));
    }

    @Test
    void aSnapshotOfAnUnknownLayoutIsRefused() {
        TypeSerializerSnapshot<RollupRow> s = new RollupRowTypeInfo.Snapshot();
        assertThatThrownBy(
                        () ->
                                s.readSnapshot(
                                        s.getCurrentVersion() + 1,
                                        new DataInputDeserializer(new byte[0]),
                                        getClass().getClassLoader()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("layout version 3");
    }

    @Test
    void theTypeExtractorFindsTheFactories() {
        assertThat(TypeInformation.of(RollupKey.class)).isSameAs(RollupKeyTypeInfo.INSTANCE);
        assertThat(TypeInformation.of(RollupCounters.class))
                .isSameAs(RollupCountersTypeInfo.INSTANCE);
    }

    private static void collect(Transformation<?> t, Set<Transformation<?>> seen) {
        if (seen.add(t)) {
            for (Transformation<?> p : t.getInputs()) {
                collect(p, seen);
            }
        }
    }

    @Test
    void theRollupTopologyHasNoGenericOrReflectiveRollupTypes() {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        RollupSettings s =
                new RollupSettings(
                        true,
                        List.of(Duration.ofMinutes(1), Duration.ofHours(1)),
                        5,
                        Duration.ZERO,
                        Duration.ofMinutes(2),
                        Duration.ZERO,
                        Map.of());
        FlowRecord f =
                FlowRecord.builder()
                        .version(10)
                        .exporterAddress(V4)
                        .flowStartMillis(1_705_320_000_000L)
                        .flowEndMillis(1_705_320_000_000L)
                        .bytes(1)
                        .packets(1)
                        .build();
        RollupTopology.attach(
                env.fromData(List.of(f), TypeInformation.of(FlowRecord.class)), s, null);
        SerializerConfig config = env.getConfig().getSerializerConfig();
        assertThat(config.hasGenericTypesDisabled()).isTrue();
        Set<Transformation<?>> all = new LinkedHashSet<>();
        env.getTransformations().forEach(t -> collect(t, all));
        int keyed = 0;
        for (Transformation<?> t : all) {
            TypeInformation<?> out = t.getOutputType();
            assertThat(out).as(t.getName()).isNotInstanceOf(GenericTypeInfo.class);
            // Kryo would throw here with generic types disabled, also for nested types.
            out.createSerializer(config);
            if (out.getTypeClass() == RollupRow.class) {
                assertThat(out).as(t.getName()).isSameAs(RollupRowTypeInfo.INSTANCE);
            }
            if (t instanceof OneInputTransformation<?, ?> one && one.getStateKeyType() != null) {
                assertThat(one.getStateKeyType()).isSameAs(RollupKeyTypeInfo.INSTANCE);
                keyed++;
            }
        }
        // Bucket sums and top N per resolution, one talker summary operator for both.
        assertThat(keyed).isEqualTo(5);
    }
}
