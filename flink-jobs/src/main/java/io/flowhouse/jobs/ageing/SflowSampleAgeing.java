// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.SflowFields;
import java.time.Duration;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * sFlow flow samples aged into flows ({@code flowhouse.packets.sflow-samples}): the samples of one
 * flow (exporter, agent, sub-agent, sampling rate, interface pair, VLAN, 5-tuple) become one row,
 * as a packet flow table makes flows of captured packets. The row is the flow's first sample with
 * {@code packets} the number of samples, {@code bytes} the sum of their frame lengths, the TCP
 * flags of all of them, and its end the last sample's receive time; its id is the first sample's,
 * so a replay names it the same. The rate stays in {@code sampling_rate}: {@code packets *
 * sampling_rate} estimates the flow's packets, exactly as for one row per sample.
 *
 * <p>A flow ends on receive time (event time of the decoded stream): {@code packets.idle-timeout}
 * after its last sample or {@code packets.active-timeout} after its first. Everything else passes
 * untouched.
 *
 * <p>Memory bound: the flow key comes from the exporter's own fields, so an exporter sending random
 * addresses or ports would open a flow per sample. At most {@code
 * packets.sflow-samples-max-active-flows} flows are held per parallel instance (a count kept by
 * this instance and checkpointed, {@link ActiveFlowCount}, as for packet flows); beyond it a sample
 * of a new flow is written at once as a flow of its own with end reason 5 (lack of resources) and
 * counted in {@code sflow_sample_flows_lack_of_resources_total}: cut early, never lost. A
 * processing-time state TTL ({@code packets.state-ttl}) is the backstop for a watermark that never
 * comes ({@code sflow_sample_flows_ttl_expired_total}).
 */
public final class SflowSampleAgeing {

    public static final String UID = "age-sflow-samples";
    public static final String UID_SAMPLES = "sflow-samples";
    public static final String UID_OTHERS = "not-sflow-samples";

    /** flowEndReason (IPFIX IE 136) of a flow cut at the memory bound. */
    static final int END_LACK_OF_RESOURCES = FlowAgeingFunction.END_LACK_OF_RESOURCES;

    private SflowSampleAgeing() {}

    /** The decoded flows with sFlow samples aged into flows. */
    public static DataStream<FlowRecord> apply(DataStream<FlowRecord> decoded, AgeingSettings s) {
        return split(decoded, s).all();
    }

    /** The decoded flows that are not sFlow samples, as they are, and the samples aged. */
    public record Split(DataStream<FlowRecord> others, DataStream<FlowRecord> aged) {
        public DataStream<FlowRecord> all() {
            return others.union(aged);
        }
    }

    /** {@link #apply}, its two parts apart. */
    public static Split split(DataStream<FlowRecord> decoded, AgeingSettings s) {
        DataStream<FlowRecord> samples =
                decoded.filter(new IsSample(true)).uid(UID_SAMPLES).name("sflow samples");
        DataStream<FlowRecord> others =
                decoded.filter(new IsSample(false)).uid(UID_OTHERS).name("not sflow samples");
        DataStream<FlowRecord> aged =
                samples.keyBy(new SampleFlowKey(), Types.STRING)
                        .process(
                                new AgeSamples(
                                        s.idleTimeout().toMillis(),
                                        s.activeTimeout().toMillis(),
                                        s.sflowSamplesMaxActiveFlows(),
                                        s.stateTtl()),
                                TypeInformation.of(FlowRecord.class))
                        .uid(UID)
                        .name("sflow sample ageing");
        return new Split(others, aged);
    }

    /** Whether {@code f} is an sFlow flow sample (what this ageing takes). */
    public static boolean isSample(FlowRecord f) {
        return f.version() == FlowRecord.VERSION_SFLOW5 && f.sflow() != null;
    }

    static final class IsSample implements FilterFunction<FlowRecord> {
        private static final long serialVersionUID = 1L;
        private final boolean want;

        IsSample(boolean want) {
            this.want = want;
        }

        @Override
        public boolean filter(FlowRecord f) {
            return isSample(f) == want;
        }
    }

    /** What tells one sampled flow from another. */
    static final class SampleFlowKey implements KeySelector<FlowRecord, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(FlowRecord f) {
            SflowFields x = f.sflow();
            return f.exporterAddress()
                    + "|"
                    + x.agentAddress()
                    + "|"
                    + x.subAgentId()
                    + "|"
                    + f.samplingRate()
                    + "|"
                    + f.inputInterface()
                    + "|"
                    + f.outputInterface()
                    + "|"
                    + f.vlanId()
                    + "|"
                    + f.srcAddr()
                    + "|"
                    + f.dstAddr()
                    + "|"
                    + f.srcPort()
                    + "|"
                    + f.dstPort()
                    + "|"
                    + f.protocol();
        }
    }

    /** One flow's samples, summed, until its idle or active timeout on receive time. */
    static final class AgeSamples extends KeyedProcessFunction<String, FlowRecord, FlowRecord>
            implements CheckpointedFunction {
        private static final long serialVersionUID = 1L;

        private final long idleMillis;
        private final long activeMillis;
        private final int maxActiveFlows;
        private final Duration stateTtl;
        private transient ValueState<FlowRecord> flow;
        private transient ValueState<Long> timer;

        /** Flows held by this instance, for the memory bound; checkpointed. */
        private transient long activeFlows;

        private transient ActiveFlowCount count;
        private transient Counter cut;
        private transient Counter ttlExpired;

        /**
         * @param maxActiveFlows flows held per parallel instance, 0 unbounded
         * @param stateTtl processing-time backstop for a flow whose timer never fires
         */
        AgeSamples(long idleMillis, long activeMillis, int maxActiveFlows, Duration stateTtl) {
            this.idleMillis = idleMillis;
            this.activeMillis = activeMillis;
            this.maxActiveFlows = maxActiveFlows;
            this.stateTtl = stateTtl;
        }

        @Override
        public void open(OpenContext ctx) {
            ValueStateDescriptor<FlowRecord> d =
                    new ValueStateDescriptor<>("sflow-flow", TypeInformation.of(FlowRecord.class));
            d.enableTimeToLive(AgeingMetrics.ttl(stateTtl));
            flow = getRuntimeContext().getState(d);
            timer =
                    getRuntimeContext()
                            .getState(new ValueStateDescriptor<>("sflow-timer", Types.LONG));
            activeFlows = count == null ? 0 : count.restored();
            MetricGroup g = getRuntimeContext().getMetricGroup().addGroup("flowhouse");
            cut = g.counter("sflow_sample_flows_lack_of_resources_total");
            ttlExpired = g.counter("sflow_sample_flows_ttl_expired_total");
            g.gauge("sflow_sample_flows_active", (Gauge<Long>) () -> activeFlows);
        }

        @Override
        public void initializeState(FunctionInitializationContext ctx) throws Exception {
            count = new ActiveFlowCount();
            count.initialize(ctx);
        }

        @Override
        public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
            count.snapshot(activeFlows);
        }

        /** Flows held now. */
        long activeFlows() {
            return activeFlows;
        }

        @Override
        public void processElement(FlowRecord r, Context ctx, Collector<FlowRecord> out)
                throws Exception {
            long t = ctx.timestamp() != null ? ctx.timestamp() : r.timeReceivedMillis();
            FlowRecord f = flow.value();
            if (f == null) {
                Long stale = timer.value();
                if (stale != null) {
                    // The flow's state outlived the TTL before its timer fired.
                    expired();
                    ctx.timerService().deleteEventTimeTimer(stale);
                    timer.clear();
                }
                f = r.toBuilder().flowStartMillis(t).flowEndMillis(t).build();
                if (maxActiveFlows > 0 && activeFlows >= maxActiveFlows) {
                    cut.inc();
                    out.collect(f.toBuilder().flowEndReason(END_LACK_OF_RESOURCES).build());
                    return;
                }
                activeFlows++;
            } else {
                f =
                        f.toBuilder()
                                .packets(f.packets() + r.packets())
                                .bytes(f.bytes() + r.bytes())
                                .tcpFlags(f.tcpFlags() | r.tcpFlags())
                                .flowEndMillis(Math.max(f.flowEndMillis(), t))
                                .build();
            }
            flow.update(f);
            long deadline =
                    Math.min(f.flowEndMillis() + idleMillis, f.flowStartMillis() + activeMillis);
            Long old = timer.value();
            if (old == null || old != deadline) {
                if (old != null) {
                    ctx.timerService().deleteEventTimeTimer(old);
                }
                ctx.timerService().registerEventTimeTimer(deadline);
                timer.update(deadline);
            }
        }

        @Override
        public void onTimer(long ts, OnTimerContext ctx, Collector<FlowRecord> out)
                throws Exception {
            FlowRecord f = flow.value();
            if (f != null) {
                out.collect(f);
                if (activeFlows > 0) {
                    activeFlows--;
                }
            } else {
                expired();
            }
            flow.clear();
            timer.clear();
        }

        /**
         * A flow dropped by the state TTL (the watermark stalled): its samples are gone; its place
         * in the bound is given back, or the instance would stay at the bound.
         */
        private void expired() {
            ttlExpired.inc();
            if (activeFlows > 0) {
                activeFlows--;
            }
        }
    }
}
