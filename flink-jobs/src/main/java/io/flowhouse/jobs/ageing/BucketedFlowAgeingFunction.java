// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import static io.flowhouse.jobs.ageing.FlowAgeingFunction.END_ACTIVE;
import static io.flowhouse.jobs.ageing.FlowAgeingFunction.END_IDLE;
import static io.flowhouse.jobs.ageing.FlowAgeingFunction.END_LACK_OF_RESOURCES;
import static io.flowhouse.jobs.ageing.FlowAgeingFunction.END_OF_FLOW;
import static io.flowhouse.jobs.ageing.FlowAgeingFunction.endsTcp;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.packet.PacketSummary;
import java.util.Arrays;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The packet flow cache as a bucketed flow table: packets keyed by {@link PacketBucketSelector} (a
 * hash bucket of the flow key), one keyed {@link FlowTable} per bucket holding its flows in
 * primitive arrays, and one event-time timer per bucket at the earliest deadline of its flows.
 * Compared with {@link FlowAgeingFunction} (one state entry, TTL wrapper and timer per flow) it
 * touches one state entry per packet and no timer unless a deadline moves earlier, and holds no
 * object per flow.
 *
 * <p>The semantics are exactly those of {@link FlowAgeingFunction}, flow by flow: the same timeouts
 * on packet time (idle, active, TCP FIN/RST + linger), a packet at or past its flow's deadline ends
 * it first, uniflows or biflows, the same memory bound (flows cached per instance; beyond it a new
 * flow is exported at once with end reason 5), the same metrics and the same records. A flow ends
 * when the watermark reaches its deadline: the bucket's timer fires at its earliest deadline and
 * ends every flow of the bucket whose deadline the watermark has reached, in slot order
 * (deterministic for a given input), then re-arms at the next deadline. At the end of the input
 * (watermark at its maximum) every flow ends.
 *
 * <p>The state TTL (processing time, the backstop for a watermark that never comes) now drops a
 * whole bucket untouched for that long; the flows it held are counted in {@code
 * packet_flows_ttl_expired_total} from a per-instance count of each bucket's flows.
 */
public class BucketedFlowAgeingFunction
        extends KeyedProcessFunction<Integer, PacketSummary, FlowRecord> {

    private static final long serialVersionUID = 1L;

    private final AgeingSettings settings;
    private final boolean biflow;
    private final long activeMillis;
    private final long idleMillis;
    private final long tcpEndMillis;

    private transient IpAddress exporter;
    private transient ValueState<FlowTable> state;
    private transient FlowTable.Key key;

    /** Flows cached by this instance, for the memory bound (as in {@link FlowAgeingFunction}). */
    private transient long activeFlows;

    /**
     * Flows of each bucket as last written by this instance, to count the flows of a bucket the
     * state TTL dropped. Like {@link #activeFlows} it starts at zero after a restore and catches up
     * as each bucket is touched.
     */
    private transient int[] bucketFlows;

    private transient AgeingMetrics metrics;

    public BucketedFlowAgeingFunction(AgeingSettings settings) {
        this.settings = settings;
        this.biflow = settings.biflow();
        this.activeMillis = settings.activeTimeout().toMillis();
        this.idleMillis = settings.idleTimeout().toMillis();
        this.tcpEndMillis = settings.tcpEndTimeout().toMillis();
    }

    static ValueStateDescriptor<FlowTable> descriptor(AgeingSettings s) {
        ValueStateDescriptor<FlowTable> d =
                new ValueStateDescriptor<>("flow-table", FlowTableSerializer.INSTANCE);
        d.enableTimeToLive(AgeingMetrics.ttl(s.stateTtl()));
        return d;
    }

    @Override
    public void open(OpenContext ctx) {
        exporter = settings.exporter();
        state = getRuntimeContext().getState(descriptor(settings));
        key = new FlowTable.Key();
        bucketFlows = new int[settings.flowTableBuckets()];
        activeFlows = 0;
        metrics = new AgeingMetrics(getRuntimeContext().getMetricGroup(), () -> activeFlows);
    }

    /** Flows cached by this instance (tests). */
    long activeFlows() {
        return activeFlows;
    }

    @Override
    public void processElement(PacketSummary p, Context ctx, Collector<FlowRecord> out)
            throws Exception {
        long ts = metrics.packet(p, ctx.timerService().currentWatermark());
        int bucket = ctx.getCurrentKey();
        FlowTable t = state.value();
        if (t == null) {
            dropped(bucket);
            t = new FlowTable();
        }
        FlowTable.Key k = key.set(p, biflow);
        int s = t.find(k);
        if (s >= 0) {
            long deadline = deadline(t, s);
            if (ts >= deadline) {
                end(t, s, reason(t, s, deadline), out);
                t.remove(s);
                s = -1;
            }
        }
        if (s < 0) {
            if (settings.maxActiveFlows() > 0 && activeFlows >= settings.maxActiveFlows()) {
                // A one-packet flow, exported at once: built in a slot and taken out again.
                int single = t.insert(k);
                start(t, single, p, ts, k);
                add(t, single, p, ts, k);
                metrics.forcedFlows.inc();
                out.collect(record(t, single, END_LACK_OF_RESOURCES));
                metrics.flowsOut.inc();
                t.remove(single);
                store(t, bucket, ctx);
                return;
            }
            s = t.insert(k);
            start(t, s, p, ts, k);
            activeFlows++;
        }
        add(t, s, p, ts, k);
        int lo = s * FlowTable.LONGS;
        if (endsTcp(p) && t.longs[lo + FlowTable.END] == 0) {
            t.longs[lo + FlowTable.END] = ts + tcpEndMillis;
        }
        if (t.longs[lo + FlowTable.END] != 0 && tcpEndMillis == 0) {
            end(t, s, END_OF_FLOW, out);
            t.remove(s);
        } else {
            long deadline = deadline(t, s);
            if (t.timerMillis == 0 || deadline < t.timerMillis) {
                if (t.timerMillis != 0) {
                    ctx.timerService().deleteEventTimeTimer(t.timerMillis);
                }
                t.timerMillis = deadline;
                ctx.timerService().registerEventTimeTimer(deadline);
            }
        }
        store(t, bucket, ctx);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<FlowRecord> out)
            throws Exception {
        int bucket = ctx.getCurrentKey();
        FlowTable t = state.value();
        if (t == null) {
            // Every path that empties a bucket deletes its timer, so a timer without its table
            // belongs to one the state TTL backstop dropped (the watermark stalled for longer
            // than the TTL): its packets are gone; count its flows and give their places in the
            // memory bound back.
            dropped(bucket);
            return;
        }
        if (t.timerMillis != timestamp) {
            // The timer of a dropped table, the bucket has a new one since: counted then.
            return;
        }
        long watermark = ctx.timerService().currentWatermark();
        // At the end of the input (BATCH mode fires a key's timers once its packets are done, with
        // the watermark at its maximum, and ignores timers registered then) every flow ends: no
        // packet can extend it any more, so it ends as it would at its deadline.
        boolean all = watermark == Long.MAX_VALUE;
        long next = Long.MAX_VALUE;
        int s = 0;
        while (s < t.size) {
            long deadline = deadline(t, s);
            if (all || deadline <= watermark) {
                end(t, s, reason(t, s, deadline), out);
                // The last flow moves into slot s: look at it next.
                t.remove(s);
            } else {
                next = Math.min(next, deadline);
                s++;
            }
        }
        t.timerMillis = 0;
        if (t.size > 0) {
            t.timerMillis = next;
            ctx.timerService().registerEventTimeTimer(next);
        }
        store(t, bucket, ctx);
    }

    /** Writes the table back, or clears the bucket (state and timer) when it has no flows. */
    private void store(FlowTable t, int bucket, Context ctx) throws Exception {
        if (t.size == 0) {
            if (t.timerMillis != 0) {
                ctx.timerService().deleteEventTimeTimer(t.timerMillis);
                t.timerMillis = 0;
            }
            state.clear();
        } else {
            state.update(t);
        }
        if (bucket >= bucketFlows.length) {
            // A bucket restored from a run with more buckets (flow-table-buckets lowered).
            bucketFlows = Arrays.copyOf(bucketFlows, bucket + 1);
        }
        bucketFlows[bucket] = t.size;
    }

    /** The bucket's table is gone (state TTL): its flows are lost; count them. */
    private void dropped(int bucket) {
        int n = bucket < bucketFlows.length ? bucketFlows[bucket] : 0;
        if (n > 0) {
            metrics.ttlExpiredFlows.inc(n);
            activeFlows = Math.max(0, activeFlows - n);
            bucketFlows[bucket] = 0;
        }
    }

    private long deadline(FlowTable t, int s) {
        int lo = s * FlowTable.LONGS;
        long[] l = t.longs;
        long d =
                Math.min(
                        l[lo + FlowTable.LAST] + idleMillis,
                        l[lo + FlowTable.FIRST] + activeMillis);
        long end = l[lo + FlowTable.END];
        return end != 0 ? Math.min(d, end) : d;
    }

    private int reason(FlowTable t, int s, long deadline) {
        int lo = s * FlowTable.LONGS;
        long end = t.longs[lo + FlowTable.END];
        if (end != 0 && deadline == end) {
            return END_OF_FLOW;
        }
        return deadline == t.longs[lo + FlowTable.FIRST] + activeMillis ? END_ACTIVE : END_IDLE;
    }

    private void end(FlowTable t, int s, int reason, Collector<FlowRecord> out) {
        out.collect(record(t, s, reason));
        metrics.flowsOut.inc();
        if (activeFlows > 0) {
            activeFlows--;
        }
    }

    private void start(FlowTable t, int s, PacketSummary p, long ts, FlowTable.Key k) {
        int lo = s * FlowTable.LONGS;
        t.longs[lo + FlowTable.FIRST] = ts;
        t.longs[lo + FlowTable.LAST] = ts;
        t.longs[lo + FlowTable.SRC_MAC] = p.srcMac();
        t.longs[lo + FlowTable.DST_MAC] = p.dstMac();
        int io = s * FlowTable.INTS;
        t.ints[io + FlowTable.META] =
                ((p.tos() & 0xff) << 16) | (k.fromA ? FlowTable.INITIATOR_IS_A : 0);
        t.ints[io + FlowTable.FIRST_DST_PORT] = p.dstPort();
    }

    private void add(FlowTable t, int s, PacketSummary p, long ts, FlowTable.Key k) {
        int lo = s * FlowTable.LONGS;
        long[] l = t.longs;
        if (ts < l[lo + FlowTable.FIRST]) {
            l[lo + FlowTable.FIRST] = ts;
        }
        if (ts > l[lo + FlowTable.LAST]) {
            l[lo + FlowTable.LAST] = ts;
        }
        int io = s * FlowTable.INTS;
        t.ints[io + FlowTable.META] |= p.tcpFlags() & 0xffff;
        boolean initiatorIsA = (t.ints[io + FlowTable.META] & FlowTable.INITIATOR_IS_A) != 0;
        long octets = p.ipLength() & 0xffff_ffffL;
        if (!biflow || k.fromA == initiatorIsA) {
            l[lo + FlowTable.PACKETS]++;
            l[lo + FlowTable.BYTES] += octets;
        } else {
            l[lo + FlowTable.REVERSE_PACKETS]++;
            l[lo + FlowTable.REVERSE_BYTES] += octets;
        }
    }

    private FlowRecord record(FlowTable t, int s, int reason) {
        int lo = s * FlowTable.LONGS;
        int io = s * FlowTable.INTS;
        long[] l = t.longs;
        int[] i = t.ints;
        int meta = i[io + FlowTable.META];
        boolean srcIsA = (meta & FlowTable.INITIATOR_IS_A) != 0;
        IpAddress a = new IpAddress(l[lo + FlowTable.A_HI], l[lo + FlowTable.A_LO]);
        IpAddress b = new IpAddress(l[lo + FlowTable.B_HI], l[lo + FlowTable.B_LO]);
        IpAddress src = srcIsA ? a : b;
        IpAddress dst = srcIsA ? b : a;
        int vlansProtocol = i[io + FlowTable.VLANS_PROTOCOL];
        int protocol = vlansProtocol >>> 24;
        int ports = i[io + FlowTable.PORTS];
        int aPort = ports >>> 16;
        int bPort = ports & 0xffff;
        int srcPort = 0;
        int dstPort = i[io + FlowTable.FIRST_DST_PORT];
        if (!PacketFlowKey.portless(protocol)) {
            srcPort = srcIsA ? aPort : bPort;
            dstPort = srcIsA ? bPort : aPort;
        }
        long interfaceIndex = i[io + FlowTable.INTERFACE] & 0xffff_ffffL;
        long first = l[lo + FlowTable.FIRST];
        long last = l[lo + FlowTable.LAST];
        return FlowRecord.builder()
                .version(0)
                .exporterAddress(exporter)
                .exporterPort(0)
                .observationDomainId(interfaceIndex)
                .exportTimeMillis(last)
                .timeReceivedMillis(last)
                .flowStartMillis(first)
                .flowEndMillis(last)
                .ipVersion(src.isIpv4() ? 4 : 6)
                .srcAddr(src)
                .dstAddr(dst)
                .srcPort(srcPort)
                .dstPort(dstPort)
                .protocol(protocol)
                .tcpFlags(meta & 0xffff)
                .tos((meta >>> 16) & 0xff)
                .bytes(l[lo + FlowTable.BYTES])
                .packets(l[lo + FlowTable.PACKETS])
                .reverseBytes(l[lo + FlowTable.REVERSE_BYTES])
                .reversePackets(l[lo + FlowTable.REVERSE_PACKETS])
                .inputInterface(interfaceIndex)
                .vlanId((vlansProtocol & 0xff_ffff) >>> 12)
                .postVlanId(0)
                .srcMac(l[lo + FlowTable.SRC_MAC])
                .dstMac(l[lo + FlowTable.DST_MAC])
                .direction(0)
                .flowEndReason(reason)
                .samplingRate(1)
                .build();
    }
}
