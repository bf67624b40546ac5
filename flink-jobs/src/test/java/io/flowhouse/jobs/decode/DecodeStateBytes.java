// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.jobs.model.ExporterFootprint;
import io.flowhouse.jobs.model.ExporterKeyTypeInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;

/**
 * What the decode operator's keyed state really holds, measured independently of its own
 * accounting: every entry of every state serialized with its serializer, plus the exporter key and
 * key group that prefix each entry in RocksDB. Per exporter key and in total.
 */
final class DecodeStateBytes {

    /** The Flink key and key group before every RocksDB entry. */
    static final int KEY_PREFIX = ExporterKeyTypeInfo.Serializer.LENGTH + 2;

    record Measure(long total, long maxPerKey, int keys, long entries) {}

    private DecodeStateBytes() {}

    static Measure of(AbstractStreamOperator<?> operator) throws Exception {
        KeyedStateBackend<ExporterKey> backend = operator.getKeyedStateBackend();
        Map<ExporterKey, Long> perKey = new HashMap<>();
        long[] entries = {0};
        for (MapStateDescriptor<?, ?> d :
                List.of(
                        DecodeRawFlowFunction.TEMPLATES,
                        DecodeRawFlowFunction.OPTIONS,
                        DecodeRawFlowFunction.SCOPES,
                        DecodeRawFlowFunction.WITHDRAWALS,
                        HeldDatagrams.HELD,
                        HeldDatagrams.WAIT_HEADS,
                        HeldDatagrams.WAITS)) {
            entries[0] += addMap(backend, d, perKey);
        }
        TypeSerializer<Object> fs = cast(ExporterBudget.FOOTPRINT.getSerializer());
        for (ExporterKey k : keys(backend, ExporterBudget.FOOTPRINT.getName())) {
            backend.setCurrentKey(k);
            ValueState<?> s =
                    backend.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            ExporterBudget.FOOTPRINT);
            if (s.value() != null) {
                perKey.merge(k, KEY_PREFIX + size(fs, s.value()), Long::sum);
                entries[0]++;
            }
        }
        long total = perKey.values().stream().mapToLong(Long::longValue).sum();
        long max = perKey.values().stream().mapToLong(Long::longValue).max().orElse(0);
        return new Measure(total, max, perKey.size(), entries[0]);
    }

    /** The footprint of exporter key {@code k}, or null. */
    static ExporterFootprint footprint(AbstractStreamOperator<?> operator, ExporterKey k)
            throws Exception {
        KeyedStateBackend<ExporterKey> backend = operator.getKeyedStateBackend();
        backend.setCurrentKey(k);
        ValueState<ExporterFootprint> s =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        ExporterBudget.FOOTPRINT);
        return s.value();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static long addMap(
            KeyedStateBackend<ExporterKey> backend,
            MapStateDescriptor<?, ?> d,
            Map<ExporterKey, Long> perKey)
            throws Exception {
        // The operator opened with these descriptors: their serializers are set.
        TypeSerializer<Object> ks = cast(d.getKeySerializer());
        TypeSerializer<Object> vs = cast(d.getValueSerializer());
        long n = 0;
        for (ExporterKey k : keys(backend, d.getName())) {
            backend.setCurrentKey(k);
            MapState<Object, Object> s =
                    (MapState<Object, Object>)
                            backend.getPartitionedState(
                                    VoidNamespace.INSTANCE,
                                    VoidNamespaceSerializer.INSTANCE,
                                    (MapStateDescriptor) d);
            long bytes = 0;
            for (Map.Entry<Object, Object> e : s.entries()) {
                bytes += KEY_PREFIX + size(ks, e.getKey()) + size(vs, e.getValue());
                n++;
            }
            if (bytes > 0) {
                perKey.merge(k, bytes, Long::sum);
            }
        }
        return n;
    }

    private static List<ExporterKey> keys(KeyedStateBackend<ExporterKey> backend, String state) {
        return backend.getKeys(state, VoidNamespace.INSTANCE).toList();
    }

    @SuppressWarnings("unchecked")
    private static TypeSerializer<Object> cast(TypeSerializer<?> s) {
        return (TypeSerializer<Object>) s;
    }

    private static long size(TypeSerializer<Object> s, Object v) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        s.serialize(v, out);
        return out.length();
    }
}
