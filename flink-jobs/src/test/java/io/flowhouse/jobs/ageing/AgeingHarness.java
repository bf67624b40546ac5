// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.packet.PacketSummary;
import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;

/**
 * The flow cache of either flow table ({@link AgeingSettings#bucketedTable()}) in Flink's keyed
 * operator test harness, so every ageing test runs against both.
 */
final class AgeingHarness implements AutoCloseable {

    private final KeyedOneInputStreamOperatorTestHarness<?, PacketSummary, FlowRecord> h;
    private final BucketedFlowAgeingFunction bucketed;

    private AgeingHarness(
            KeyedOneInputStreamOperatorTestHarness<?, PacketSummary, FlowRecord> h,
            BucketedFlowAgeingFunction bucketed) {
        this.h = h;
        this.bucketed = bucketed;
    }

    static AgeingHarness open(AgeingSettings s) throws Exception {
        return open(s, null);
    }

    /** A harness, restored from {@code snapshot} when not null. */
    static AgeingHarness open(AgeingSettings s, OperatorSubtaskState snapshot) throws Exception {
        if (snapshot != null) {
            return restore(s, snapshot);
        }
        if (s.bucketedTable()) {
            var f = new BucketedFlowAgeingFunction(s);
            return new AgeingHarness(
                    ProcessFunctionTestHarnesses.forKeyedProcessFunction(
                            f,
                            new PacketBucketSelector(s.biflow(), s.flowTableBuckets()),
                            Types.INT),
                    f);
        }
        return new AgeingHarness(
                ProcessFunctionTestHarnesses.forKeyedProcessFunction(
                        new FlowAgeingFunction(s),
                        new PacketFlowKeySelector(s.biflow()),
                        TypeInformation.of(PacketFlowKey.class)),
                null);
    }

    private static AgeingHarness restore(AgeingSettings s, OperatorSubtaskState snapshot)
            throws Exception {
        if (s.bucketedTable()) {
            var f = new BucketedFlowAgeingFunction(s);
            var h =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            new org.apache.flink.streaming.api.operators.KeyedProcessOperator<>(f),
                            new PacketBucketSelector(s.biflow(), s.flowTableBuckets()),
                            Types.INT);
            h.setup();
            h.initializeState(snapshot);
            h.open();
            return new AgeingHarness(h, f);
        }
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new org.apache.flink.streaming.api.operators.KeyedProcessOperator<>(
                                new FlowAgeingFunction(s)),
                        new PacketFlowKeySelector(s.biflow()),
                        TypeInformation.of(PacketFlowKey.class));
        h.setup();
        h.initializeState(snapshot);
        h.open();
        return new AgeingHarness(h, null);
    }

    void push(PacketSummary p) throws Exception {
        h.processElement(p, Math.floorDiv(p.timestampNanos(), 1_000_000L));
    }

    void watermark(long millis) throws Exception {
        h.processWatermark(millis);
    }

    List<FlowRecord> output() {
        return h.extractOutputValues();
    }

    OperatorSubtaskState snapshot(long id) throws Exception {
        return h.snapshot(id, id);
    }

    void setStateTtlProcessingTime(long millis) {
        h.setStateTtlProcessingTime(millis);
    }

    /** Keyed state entries: one per flow (keyed table) or per bucket with flows (bucketed). */
    int stateEntries() {
        return h.numKeyedStateEntries();
    }

    /** Event-time timers: one per flow (keyed table) or per bucket with flows (bucketed). */
    int timers() {
        return h.numEventTimeTimers();
    }

    /** Flows cached. */
    long flows() {
        return bucketed != null ? bucketed.activeFlows() : h.numKeyedStateEntries();
    }

    @Override
    public void close() throws IOException {
        try {
            h.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } catch (Exception e) {
            throw new IOException(e);
        }
    }
}
