// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.SflowFields;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
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
 */
public final class SflowSampleAgeing {

    public static final String UID = "age-sflow-samples";
    public static final String UID_SAMPLES = "sflow-samples";
    public static final String UID_OTHERS = "not-sflow-samples";

    private SflowSampleAgeing() {}

    /** The decoded flows with sFlow samples aged into flows. */
    public static DataStream<FlowRecord> apply(DataStream<FlowRecord> decoded, AgeingSettings s) {
        DataStream<FlowRecord> samples =
                decoded.filter(new IsSample(true)).uid(UID_SAMPLES).name("sflow samples");
        DataStream<FlowRecord> others =
                decoded.filter(new IsSample(false)).uid(UID_OTHERS).name("not sflow samples");
        DataStream<FlowRecord> aged =
                samples.keyBy(new SampleFlowKey(), Types.STRING)
                        .process(
                                new AgeSamples(
                                        s.idleTimeout().toMillis(), s.activeTimeout().toMillis()),
                                TypeInformation.of(FlowRecord.class))
                        .uid(UID)
                        .name("sflow sample ageing");
        return others.union(aged);
    }

    static boolean isSample(FlowRecord f) {
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
    static final class AgeSamples extends KeyedProcessFunction<String, FlowRecord, FlowRecord> {
        private static final long serialVersionUID = 1L;

        private final long idleMillis;
        private final long activeMillis;
        private transient ValueState<FlowRecord> flow;
        private transient ValueState<Long> timer;

        AgeSamples(long idleMillis, long activeMillis) {
            this.idleMillis = idleMillis;
            this.activeMillis = activeMillis;
        }

        @Override
        public void open(OpenContext ctx) {
            flow =
                    getRuntimeContext()
                            .getState(
                                    new ValueStateDescriptor<>(
                                            "sflow-flow", TypeInformation.of(FlowRecord.class)));
            timer =
                    getRuntimeContext()
                            .getState(new ValueStateDescriptor<>("sflow-timer", Types.LONG));
        }

        @Override
        public void processElement(FlowRecord r, Context ctx, Collector<FlowRecord> out)
                throws Exception {
            long t = ctx.timestamp() != null ? ctx.timestamp() : r.timeReceivedMillis();
            FlowRecord f = flow.value();
            if (f == null) {
                f = r.toBuilder().flowStartMillis(t).flowEndMillis(t).build();
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
            }
            flow.clear();
            timer.clear();
        }
    }
}
