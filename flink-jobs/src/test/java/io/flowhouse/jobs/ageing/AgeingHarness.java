// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.packet.PacketSummary;
import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;

/**
 * The flow cache of either flow table ({@link AgeingSettings#bucketedTable()}) in Flink's keyed
 * operator test harness, so every ageing test runs against both. The bucketed table's TTL renewal
 * runs on the harness's state TTL clock ({@link #setStateTtlProcessingTime}).
 */
final class AgeingHarness implements AutoCloseable {

    private final KeyedOneInputStreamOperatorTestHarness<?, PacketSummary, FlowRecord> h;
    private final BucketedFlowAgeingFunction bucketed;
    private final FlowAgeingFunction keyed;
    private final long[] ttlTime;

    private AgeingHarness(
            KeyedOneInputStreamOperatorTestHarness<?, PacketSummary, FlowRecord> h,
            BucketedFlowAgeingFunction bucketed,
            long[] ttlTime) {
        this.h = h;
        this.bucketed = bucketed;
        this.keyed =
                bucketed == null
                        ? (FlowAgeingFunction)
                                ((KeyedProcessOperator<?, ?, ?>) h.getOneInputOperator())
                                        .getUserFunction()
                        : null;
        this.ttlTime = ttlTime;
    }

    /**
     * Subtask {@code subtask} of {@code parallelism} (max parallelism {@code maxParallelism}),
     * restored from {@code snapshot} when not null (already repartitioned for this subtask).
     */
    static AgeingHarness subtask(
            AgeingSettings s,
            OperatorSubtaskState snapshot,
            int maxParallelism,
            int parallelism,
            int subtask)
            throws Exception {
        long[] ttlTime = {0};
        KeyedOneInputStreamOperatorTestHarness<?, PacketSummary, FlowRecord> h;
        BucketedFlowAgeingFunction f = null;
        if (s.bucketedTable()) {
            f = bucketed(s, ttlTime);
            h =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            new KeyedProcessOperator<>(f),
                            new PacketBucketSelector(s.biflow(), s.flowTableBuckets()),
                            Types.INT,
                            maxParallelism,
                            parallelism,
                            subtask);
        } else {
            h =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            new KeyedProcessOperator<>(new FlowAgeingFunction(s)),
                            new PacketFlowKeySelector(s.biflow()),
                            TypeInformation.of(PacketFlowKey.class),
                            maxParallelism,
                            parallelism,
                            subtask);
        }
        h.setup();
        if (snapshot != null) {
            h.initializeState(snapshot);
        }
        h.open();
        return new AgeingHarness(h, f, ttlTime);
    }

    /** The bucketed table's function, its TTL renewal clock reading {@code ttlTime[0]}. */
    private static BucketedFlowAgeingFunction bucketed(AgeingSettings s, long[] ttlTime) {
        var f = new BucketedFlowAgeingFunction(s);
        f.clock(() -> ttlTime[0]);
        return f;
    }

    /** A harness on another state backend (the heap one otherwise). */
    static AgeingHarness openOn(AgeingSettings s, StateBackend backend) throws Exception {
        return openOn(s, backend, new Configuration());
    }

    /** As above, with {@code taskManager} added to the TaskManager's configuration. */
    static AgeingHarness openOn(AgeingSettings s, StateBackend backend, Configuration taskManager)
            throws Exception {
        long[] ttlTime = {0};
        KeyedOneInputStreamOperatorTestHarness<?, PacketSummary, FlowRecord> h;
        BucketedFlowAgeingFunction f = null;
        if (s.bucketedTable()) {
            f = bucketed(s, ttlTime);
            h =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            new KeyedProcessOperator<>(f),
                            new PacketBucketSelector(s.biflow(), s.flowTableBuckets()),
                            Types.INT);
        } else {
            h =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            new KeyedProcessOperator<>(new FlowAgeingFunction(s)),
                            new PacketFlowKeySelector(s.biflow()),
                            TypeInformation.of(PacketFlowKey.class));
        }
        h.setStateBackend(backend);
        h.getEnvironment().getTaskManagerInfo().getConfiguration().addAll(taskManager);
        h.open();
        return new AgeingHarness(h, f, ttlTime);
    }

    static AgeingHarness open(AgeingSettings s) throws Exception {
        return open(s, null);
    }

    /** A harness, restored from {@code snapshot} when not null. */
    static AgeingHarness open(AgeingSettings s, OperatorSubtaskState snapshot) throws Exception {
        if (snapshot != null) {
            return restore(s, snapshot);
        }
        long[] ttlTime = {0};
        if (s.bucketedTable()) {
            var f = bucketed(s, ttlTime);
            return new AgeingHarness(
                    ProcessFunctionTestHarnesses.forKeyedProcessFunction(
                            f,
                            new PacketBucketSelector(s.biflow(), s.flowTableBuckets()),
                            Types.INT),
                    f,
                    ttlTime);
        }
        return new AgeingHarness(
                ProcessFunctionTestHarnesses.forKeyedProcessFunction(
                        new FlowAgeingFunction(s),
                        new PacketFlowKeySelector(s.biflow()),
                        TypeInformation.of(PacketFlowKey.class)),
                null,
                ttlTime);
    }

    private static AgeingHarness restore(AgeingSettings s, OperatorSubtaskState snapshot)
            throws Exception {
        long[] ttlTime = {0};
        if (s.bucketedTable()) {
            var f = bucketed(s, ttlTime);
            var h =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            new KeyedProcessOperator<>(f),
                            new PacketBucketSelector(s.biflow(), s.flowTableBuckets()),
                            Types.INT);
            h.setup();
            h.initializeState(snapshot);
            h.open();
            return new AgeingHarness(h, f, ttlTime);
        }
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new FlowAgeingFunction(s)),
                        new PacketFlowKeySelector(s.biflow()),
                        TypeInformation.of(PacketFlowKey.class));
        h.setup();
        h.initializeState(snapshot);
        h.open();
        return new AgeingHarness(h, null, ttlTime);
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
        ttlTime[0] = millis;
    }

    /** Whether the bucketed table is updated in place (false for the keyed one). */
    boolean inPlace() {
        return bucketed != null && bucketed.inPlace();
    }

    /** Keyed state entries: one per flow (keyed table) or per bucket with flows (bucketed). */
    int stateEntries() {
        return h.numKeyedStateEntries();
    }

    /** Event-time timers: one per flow (keyed table) or per bucket with flows (bucketed). */
    int timers() {
        return h.numEventTimeTimers();
    }

    /** Late packets dropped (their flow no longer open). */
    long lateDropped() {
        return bucketed != null ? bucketed.lateDropped() : keyed.lateDropped();
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
