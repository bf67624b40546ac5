// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.enrich.EnrichSettings;
import io.flowhouse.jobs.config.DecodeSettings;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.ExporterKeyTypeInfo;
import io.flowhouse.jobs.stats.AggregateExporterStats;
import io.flowhouse.jobs.stats.ExporterStats;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.apache.flink.util.OutputTag;

/**
 * The decode step and the exporter statistics as the job wires them: the decode harness's
 * observations go to the statistics harness, in order, after every step, and both share the
 * processing time. State and timers are counted over both.
 */
final class DecodeAndStatsHarness {

    private final KeyedTwoInputStreamOperatorTestHarness<
                    ExporterKey, RawDatagram, ArchivedTemplate, FlowRecord>
            decode;
    private final KeyedOneInputStreamOperatorTestHarness<
                    ExporterKey, DatagramObservation, ExporterStats>
            stats;
    private final DecodeOperator operator;
    private final boolean rocksDb;
    private int forwarded;

    DecodeAndStatsHarness(DecodeSettings settings) throws Exception {
        this(settings, false, null);
    }

    /**
     * @param rocksDb whether the decode operator keeps its state in RocksDB (serialized copies)
     * @param restore a snapshot of a decode operator to start from, or null
     */
    DecodeAndStatsHarness(DecodeSettings settings, boolean rocksDb, OperatorSubtaskState restore)
            throws Exception {
        this(settings, rocksDb, restore, null);
    }

    /**
     * @param enrich decode's enrichment ({@link DecodeOutputs#ENRICHED}), or null for none
     */
    DecodeAndStatsHarness(
            DecodeSettings settings,
            boolean rocksDb,
            OperatorSubtaskState restore,
            EnrichSettings enrich)
            throws Exception {
        this.rocksDb = rocksDb;
        operator = new DecodeOperator(settings, Duration.ZERO, enrich);
        decode =
                new KeyedTwoInputStreamOperatorTestHarness<>(
                        operator,
                        new ExporterKeys.OfDatagram(settings.scopeMode()),
                        new ExporterKeys.OfArchived(settings.scopeMode()),
                        ExporterKeyTypeInfo.INSTANCE);
        if (rocksDb) {
            decode.setStateBackend(new EmbeddedRocksDBStateBackend());
        }
        if (restore != null) {
            decode.initializeState(restore);
        }
        decode.open();
        stats =
                ProcessFunctionTestHarnesses.forKeyedProcessFunction(
                        new AggregateExporterStats(settings.stateLimits()),
                        new ExporterKeys.OfObservation(),
                        ExporterKeyTypeInfo.INSTANCE);
    }

    void processElement1(StreamRecord<RawDatagram> d) throws Exception {
        decode.processElement1(d);
        forward();
    }

    void processElement2(StreamRecord<ArchivedTemplate> t) throws Exception {
        decode.processElement2(t);
        forward();
    }

    void setProcessingTime(long t) throws Exception {
        decode.setProcessingTime(t);
        forward();
        stats.setProcessingTime(t);
    }

    List<FlowRecord> extractOutputValues() {
        return decode.extractOutputValues();
    }

    <X> Queue<StreamRecord<X>> getSideOutput(OutputTag<X> tag) {
        return decode.getSideOutput(tag);
    }

    /** The statistics rows so far. */
    List<ExporterStats> stats() {
        return stats.extractOutputValues();
    }

    /** The observations the decode step made so far. */
    List<DatagramObservation> observations() {
        Queue<StreamRecord<DatagramObservation>> q =
                decode.getSideOutput(DecodeOutputs.OBSERVATIONS);
        return q == null ? List.of() : q.stream().map(StreamRecord::getValue).toList();
    }

    DecodeOperator operator() {
        return operator;
    }

    /** The decode function, for its metrics and its instance's state total. */
    DecodeRawFlowFunction function() {
        return (DecodeRawFlowFunction) operator.getUserFunction();
    }

    KeyedTwoInputStreamOperatorTestHarness<ExporterKey, RawDatagram, ArchivedTemplate, FlowRecord>
            decodeHarness() {
        return decode;
    }

    /** Keyed state entries of the decode operator (map entries counted one by one on RocksDB). */
    int decodeStateEntries() throws Exception {
        if (rocksDb) {
            return (int) DecodeStateBytes.of(operator).entries();
        }
        return decode.numKeyedStateEntries();
    }

    int decodeTimers() {
        return decode.numProcessingTimeTimers();
    }

    int statsStateEntries() {
        return stats.numKeyedStateEntries();
    }

    int statsTimers() {
        return stats.numProcessingTimeTimers();
    }

    /** A snapshot of the decode operator. */
    OperatorSubtaskState snapshotDecode() throws Exception {
        return decode.snapshot(1L, 1L);
    }

    int numKeyedStateEntries() throws Exception {
        return decodeStateEntries() + stats.numKeyedStateEntries();
    }

    int numProcessingTimeTimers() {
        return decode.numProcessingTimeTimers() + stats.numProcessingTimeTimers();
    }

    private void forward() throws Exception {
        List<DatagramObservation> all = observations();
        while (forwarded < all.size()) {
            stats.processElement(new StreamRecord<>(all.get(forwarded++)));
        }
    }

    void close() throws Exception {
        try {
            decode.close();
        } finally {
            stats.close();
        }
    }
}
