// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.packet.PacketSummary;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The packet flow cache: packets keyed by {@link PacketFlowKey} become flows, ended on event time
 * (packet timestamps) by whichever comes first of the idle timeout (last packet + idle), the active
 * timeout (first packet + active) and a TCP FIN/RST (+ the TCP end linger).
 *
 * <p>A flow ends on either of two paths, which always agree: a packet whose timestamp is at or past
 * the current flow's deadline closes it before starting a new one (so a BATCH run, where a key's
 * timers fire only after all its packets, cuts flows exactly where a streaming run does), and the
 * event-time timer at the deadline closes it when the watermark passes. There is one timer per
 * flow: a packet that moves the deadline later does not touch it; when it fires early it re-arms at
 * the new deadline. State and timer are cleared on every path; a processing-time state TTL is the
 * backstop for a watermark that never comes.
 *
 * <p>Memory bound: at most {@code maxActiveFlows} flows are cached per parallel instance (a count
 * kept by this instance and checkpointed, {@link ActiveFlowCount}: a restore at the same
 * parallelism resumes it; after a rescale it is approximate until the restored flows age out).
 * Beyond it, a packet of a new flow is exported at once as a one-packet flow with end reason 5
 * (lack of resources), as probes do when their flow table is full. The count falls when a timer
 * fires, so near the bound a replay that gets its watermark elsewhere, or runs at another
 * parallelism, may cut other flows; the bucketed table counts per bucket and does not.
 *
 * <p>A late packet (at or behind the watermark) joins its flow if that is still open; otherwise it
 * is dropped and counted, never a new flow: whether its flow ended depends on where the watermark
 * reached the operator, which a replay does not reproduce.
 *
 * <p>Output: {@link FlowRecord}s with version 0, the configured exporter address, the capture
 * interface as observation domain and in_if, and the flow's last packet time as receive time, so a
 * replay produces byte-identical rows ({@code row_id} from key and start time).
 */
public class FlowAgeingFunction
        extends KeyedProcessFunction<PacketFlowKey, PacketSummary, FlowRecord>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /** flowEndReason (IPFIX IE 136) values. */
    static final int END_IDLE = 1;

    static final int END_ACTIVE = 2;
    static final int END_OF_FLOW = 3;
    static final int END_LACK_OF_RESOURCES = 5;

    private static final int TCP = 6;
    private static final int TCP_FIN = 0x01;
    private static final int TCP_RST = 0x04;

    /** Whether the packet is a TCP FIN or RST: its flow ends after the TCP end linger. */
    static boolean endsTcp(PacketSummary p) {
        return p.protocol() == TCP && (p.tcpFlags() & (TCP_FIN | TCP_RST)) != 0;
    }

    private final AgeingSettings settings;
    private final long activeMillis;
    private final long idleMillis;
    private final long tcpEndMillis;

    private transient IpAddress exporter;
    private transient ValueState<ActiveFlow> state;

    /**
     * Flows cached by this instance, for the memory bound; checkpointed ({@link ActiveFlowCount}),
     * so a restore cuts near the bound as the run before it did.
     */
    private transient long activeFlows;

    private transient ActiveFlowCount count;

    private transient AgeingMetrics metrics;

    public FlowAgeingFunction(AgeingSettings settings) {
        this.settings = settings;
        this.activeMillis = settings.activeTimeout().toMillis();
        this.idleMillis = settings.idleTimeout().toMillis();
        this.tcpEndMillis = settings.tcpEndTimeout().toMillis();
    }

    static ValueStateDescriptor<ActiveFlow> descriptor(AgeingSettings s) {
        ValueStateDescriptor<ActiveFlow> d = new ValueStateDescriptor<>("flow", ActiveFlow.class);
        d.enableTimeToLive(AgeingMetrics.ttl(s.stateTtl()));
        return d;
    }

    @Override
    public void open(OpenContext ctx) {
        exporter = settings.exporter();
        state = getRuntimeContext().getState(descriptor(settings));
        activeFlows = count == null ? 0 : count.restored();
        metrics = new AgeingMetrics(getRuntimeContext().getMetricGroup(), () -> activeFlows);
    }

    /** Late packets dropped (tests). */
    long lateDropped() {
        return metrics.lateDropped.getCount();
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

    @Override
    public void processElement(PacketSummary p, Context ctx, Collector<FlowRecord> out)
            throws Exception {
        long watermark = ctx.timerService().currentWatermark();
        long ts = metrics.packet(p, watermark);
        PacketFlowKey key = ctx.getCurrentKey();
        ActiveFlow f = state.value();
        if (f != null) {
            long deadline = deadline(f);
            if (ts >= deadline) {
                end(f, key, reason(f, deadline), out);
                if (f.timerMillis != 0) {
                    ctx.timerService().deleteEventTimeTimer(f.timerMillis);
                }
                state.clear();
                f = null;
            }
        }
        if (f == null) {
            if (ts <= watermark) {
                // Late, and its flow is not open: whether it ended already depends on where the
                // watermark reached the operator, so a late packet never starts a flow.
                metrics.lateDropped.inc();
                return;
            }
            if (settings.maxActiveFlows() > 0 && activeFlows >= settings.maxActiveFlows()) {
                ActiveFlow single = start(p, ts, key);
                add(single, p, ts, key);
                metrics.forcedFlows.inc();
                out.collect(record(single, key, END_LACK_OF_RESOURCES));
                metrics.flowsOut.inc();
                return;
            }
            f = start(p, ts, key);
            activeFlows++;
        }
        add(f, p, ts, key);
        if (endsTcp(p) && f.endMillis == 0) {
            f.endMillis = ts + tcpEndMillis;
        }
        long deadline = deadline(f);
        if (f.endMillis != 0 && tcpEndMillis == 0) {
            end(f, key, END_OF_FLOW, out);
            if (f.timerMillis != 0) {
                ctx.timerService().deleteEventTimeTimer(f.timerMillis);
            }
            state.clear();
            return;
        }
        if (f.timerMillis == 0 || deadline < f.timerMillis) {
            if (f.timerMillis != 0) {
                ctx.timerService().deleteEventTimeTimer(f.timerMillis);
            }
            f.timerMillis = deadline;
            ctx.timerService().registerEventTimeTimer(deadline);
        }
        state.update(f);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<FlowRecord> out)
            throws Exception {
        ActiveFlow f = state.value();
        if (f == null || f.timerMillis != timestamp) {
            // Every path that ends or re-arms a flow deletes its timer, so a timer without its
            // flow belongs to one the state TTL backstop dropped (the watermark stalled for longer
            // than the TTL): its packets are gone; count it, and give its place in the memory
            // bound back, or the instance would stay in lack-of-resources mode.
            metrics.ttlExpiredFlows.inc();
            if (activeFlows > 0) {
                activeFlows--;
            }
            return;
        }
        long deadline = deadline(f);
        // At the end of the input (BATCH mode fires a key's timers once its packets are done, with
        // the watermark at its maximum, and ignores timers registered then) every flow ends: no
        // packet can extend it any more, so it ends as it would at its deadline.
        if (timestamp >= deadline || ctx.timerService().currentWatermark() == Long.MAX_VALUE) {
            end(f, ctx.getCurrentKey(), reason(f, deadline), out);
            state.clear();
            return;
        }
        f.timerMillis = deadline;
        ctx.timerService().registerEventTimeTimer(deadline);
        state.update(f);
    }

    private long deadline(ActiveFlow f) {
        long d = Math.min(f.lastMillis + idleMillis, f.firstMillis + activeMillis);
        return f.endMillis != 0 ? Math.min(d, f.endMillis) : d;
    }

    private int reason(ActiveFlow f, long deadline) {
        if (f.endMillis != 0 && deadline == f.endMillis) {
            return END_OF_FLOW;
        }
        return deadline == f.firstMillis + activeMillis ? END_ACTIVE : END_IDLE;
    }

    private void end(ActiveFlow f, PacketFlowKey key, int reason, Collector<FlowRecord> out) {
        out.collect(record(f, key, reason));
        metrics.flowsOut.inc();
        if (activeFlows > 0) {
            activeFlows--;
        }
    }

    private ActiveFlow start(PacketSummary p, long ts, PacketFlowKey key) {
        ActiveFlow f = new ActiveFlow();
        f.firstMillis = ts;
        f.lastMillis = ts;
        f.srcMac = p.srcMac();
        f.dstMac = p.dstMac();
        f.tos = p.tos();
        f.srcPort = PacketFlowKey.portless(p.protocol()) ? 0 : p.srcPort();
        f.dstPort = p.dstPort();
        f.initiatorIsA = fromA(p, key);
        return f;
    }

    private void add(ActiveFlow f, PacketSummary p, long ts, PacketFlowKey key) {
        if (ts < f.firstMillis) {
            f.firstMillis = ts;
        }
        if (ts > f.lastMillis) {
            f.lastMillis = ts;
        }
        f.tcpFlags |= p.tcpFlags();
        if (!settings.biflow() || fromA(p, key) == f.initiatorIsA) {
            f.packets++;
            f.bytes += p.ipLength() & 0xffff_ffffL;
        } else {
            f.reversePackets++;
            f.reverseBytes += p.ipLength() & 0xffff_ffffL;
        }
    }

    private boolean fromA(PacketSummary p, PacketFlowKey key) {
        if (!settings.biflow()) {
            return true;
        }
        if (p.srcAddr().hi() != key.aHi() || p.srcAddr().lo() != key.aLo()) {
            return false;
        }
        // Same address on both ends (a host talking to itself): the port decides.
        return PacketFlowKey.portless(p.protocol())
                || key.aHi() != key.bHi()
                || key.aLo() != key.bLo()
                || p.srcPort() == key.aPort();
    }

    private FlowRecord record(ActiveFlow f, PacketFlowKey key, int reason) {
        boolean srcIsA = f.initiatorIsA;
        IpAddress src = srcIsA ? key.a() : key.b();
        IpAddress dst = srcIsA ? key.b() : key.a();
        int srcPort = f.srcPort;
        int dstPort = f.dstPort;
        if (!PacketFlowKey.portless(key.protocol())) {
            srcPort = srcIsA ? key.aPort() : key.bPort();
            dstPort = srcIsA ? key.bPort() : key.aPort();
        }
        return FlowRecord.builder()
                .version(0)
                .exporterAddress(exporter)
                .exporterPort(0)
                .observationDomainId(key.interfaceIndex() & 0xffff_ffffL)
                .exportTimeMillis(f.lastMillis)
                .timeReceivedMillis(f.lastMillis)
                .flowStartMillis(f.firstMillis)
                .flowEndMillis(f.lastMillis)
                .ipVersion(src.isIpv4() ? 4 : 6)
                .srcAddr(src)
                .dstAddr(dst)
                .srcPort(srcPort)
                .dstPort(dstPort)
                .protocol(key.protocol())
                .tcpFlags(f.tcpFlags)
                .tos(f.tos)
                .bytes(f.bytes)
                .packets(f.packets)
                .reverseBytes(f.reverseBytes)
                .reversePackets(f.reversePackets)
                .inputInterface(key.interfaceIndex() & 0xffff_ffffL)
                .vlanId(key.outerVlan())
                .postVlanId(0)
                .srcMac(f.srcMac)
                .dstMac(f.dstMac)
                .direction(0)
                .flowEndReason(reason)
                .samplingRate(1)
                .build();
    }
}
