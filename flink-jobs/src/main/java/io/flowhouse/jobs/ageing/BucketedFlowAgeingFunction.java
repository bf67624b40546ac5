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
import java.time.Duration;
import java.util.Arrays;
import java.util.function.LongSupplier;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.configuration.StateChangelogOptions;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.StreamingRuntimeContext;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * it first, uniflows or biflows, the same rule for late packets, the same metrics and the same
 * records. The memory bound differs (below). A flow ends when the watermark reaches its deadline:
 * the bucket's timer fires at its earliest deadline and ends every flow of the bucket whose
 * deadline the watermark has reached, in slot order (deterministic for a given input), then re-arms
 * at the next deadline. At the end of the input (watermark at its maximum) every flow ends.
 *
 * <p>Memory bound: {@code packets.max-active-flows} is split evenly over the buckets, and each
 * bucket holds at most its share ({@link #bucketBound}) of flows whose deadline lies after the
 * packet's time; beyond it the new flow is exported at once with end reason 5. The count is the
 * bucket's own table, taken at the packet (flows whose deadline the packet's time has passed end
 * first, as their timers would), so it is part of the restored state and a function of the bucket's
 * packets alone: not of where the watermark reached the operator (a timer only ever ends flows
 * whose deadline an on-time packet's time has passed too), nor of which subtask holds the bucket. A
 * replay from any checkpoint, at any parallelism, cuts where the first run did. The flow refused is
 * always the new one.
 *
 * <p>The state TTL (processing time, the backstop for a watermark that never comes) now drops a
 * whole bucket untouched for that long; the flows it held are counted in {@code
 * packet_flows_ttl_expired_total} from a per-instance count of each bucket's flows.
 *
 * <p>On the heap (hash-map) backend the state hands out the stored table itself, so a packet
 * updates it in place and writes nothing back: no second state-map lookup, TTL wrapper or TTL
 * cleanup step per packet (a fifth of the operator's CPU at 100 k flows, BENCHMARKS-ageing.md). The
 * table is still written when it is new, when a timer changed it, and at least every {@link
 * #ttlRenewalMillis} of processing time while packets reach it, which renews its state TTL. The
 * function finds out by itself: on the first write it reads the table back, and only the very same
 * object means in place (RocksDB and ForSt hand out a new copy on every read, so there every packet
 * writes its table back); with the changelog state backend (which records writes only) it always
 * writes.
 */
public class BucketedFlowAgeingFunction
        extends KeyedProcessFunction<Integer, PacketSummary, FlowRecord>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(BucketedFlowAgeingFunction.class);

    private final AgeingSettings settings;
    private final boolean biflow;
    private final long activeMillis;
    private final long idleMillis;
    private final long tcpEndMillis;
    private final long ttlRenewalMillis;
    private final int bucketBound;

    private transient IpAddress exporter;
    private transient ValueState<FlowTable> state;
    private transient FlowTable.Key key;

    /**
     * Flows cached by this instance, for the {@code packet_flows_active} gauge only (the bound
     * counts per bucket); checkpointed ({@link ActiveFlowCount}), approximate after a rescale.
     */
    private transient long activeFlows;

    private transient ActiveFlowCount count;

    /**
     * Flows of each bucket as last written by this instance, to count the flows of a bucket the
     * state TTL dropped. It starts at zero after a restore and catches up as each bucket is
     * written.
     */
    private transient int[] bucketFlows;

    private transient AgeingMetrics metrics;

    /** Whether tables are updated in place (the heap backend; see the class comment). */
    private transient boolean inPlace;

    /** Whether {@link #inPlace} was probed (on the first write). */
    private transient boolean probed;

    /** The changelog state backend is on: it logs writes only, so every change is written. */
    private transient boolean changelog;

    /** Processing time of each bucket's last write, for renewing its state TTL. */
    private transient long[] writtenMillis;

    /** Processing-time clock of the TTL renewal (the TTL's own clock; tests set both). */
    private transient LongSupplier clock;

    public BucketedFlowAgeingFunction(AgeingSettings settings) {
        this.settings = settings;
        this.biflow = settings.biflow();
        this.activeMillis = settings.activeTimeout().toMillis();
        this.idleMillis = settings.idleTimeout().toMillis();
        this.tcpEndMillis = settings.tcpEndTimeout().toMillis();
        this.ttlRenewalMillis = ttlRenewalMillis(settings.stateTtl());
        this.bucketBound = bucketBound(settings.maxActiveFlows(), settings.flowTableBuckets());
    }

    /**
     * The flows one bucket may hold: the job's bound divided over the buckets, rounded up (0:
     * unbounded). Per bucket, not per parallel instance, because a bucket's packets reach the
     * operator in one order on every run (one key, one source partition), while the buckets an
     * instance holds change with the parallelism and interleave differently on each run.
     */
    static int bucketBound(int maxActiveFlows, int buckets) {
        return (int) ((maxActiveFlows + (long) buckets - 1) / buckets);
    }

    static ValueStateDescriptor<FlowTable> descriptor(AgeingSettings s) {
        ValueStateDescriptor<FlowTable> d =
                new ValueStateDescriptor<>("flow-table", FlowTableSerializer.INSTANCE);
        d.enableTimeToLive(AgeingMetrics.ttl(s.stateTtl()));
        return d;
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
    public void open(OpenContext ctx) {
        exporter = settings.exporter();
        state = getRuntimeContext().getState(descriptor(settings));
        key = new FlowTable.Key();
        bucketFlows = new int[settings.flowTableBuckets()];
        writtenMillis = new long[settings.flowTableBuckets()];
        activeFlows = count == null ? 0 : count.restored();
        metrics = new AgeingMetrics(getRuntimeContext().getMetricGroup(), () -> activeFlows);
        changelog = changelogEnabled(getRuntimeContext());
        inPlace = false;
        probed = false;
        if (clock == null) {
            clock = System::currentTimeMillis;
        }
    }

    /**
     * Whether the job runs on the changelog state backend ({@code state.changelog.enabled}): the
     * job's configuration, else the TaskManager's. Unknown (not a streaming runtime context): yes,
     * so that every change is written.
     */
    static boolean changelogEnabled(RuntimeContext context) {
        if (!(context instanceof StreamingRuntimeContext c)) {
            return true;
        }
        return c.getJobConfiguration()
                .getOptional(StateChangelogOptions.ENABLE_STATE_CHANGE_LOG)
                .orElseGet(
                        () ->
                                c.getTaskManagerRuntimeInfo()
                                        .getConfiguration()
                                        .get(StateChangelogOptions.ENABLE_STATE_CHANGE_LOG));
    }

    /**
     * How often a table updated in place is written anyway, to renew its state TTL: once a minute,
     * or a quarter of the TTL when that is shorter. A bucket the TTL drops has had no packet for at
     * least the TTL minus this.
     */
    static long ttlRenewalMillis(Duration stateTtl) {
        return Math.min(60_000L, stateTtl.toMillis() / 4);
    }

    /** Tests: the clock of the TTL renewal, set to the test harness's state TTL clock. */
    void clock(LongSupplier c) {
        clock = c;
    }

    /** Whether tables are updated in place (tests). */
    boolean inPlace() {
        return inPlace;
    }

    /** Late packets dropped (tests). */
    long lateDropped() {
        return metrics.lateDropped.getCount();
    }

    /** Flows cached by this instance (tests). */
    long activeFlows() {
        return activeFlows;
    }

    @Override
    public void processElement(PacketSummary p, Context ctx, Collector<FlowRecord> out)
            throws Exception {
        long watermark = ctx.timerService().currentWatermark();
        long ts = metrics.packet(p, watermark);
        int bucket = ctx.getCurrentKey();
        FlowTable t = state.value();
        boolean created = t == null;
        if (created) {
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
            if (ts <= watermark) {
                // Late, and no flow of its key is open: whether its flow ended already depends on
                // where the watermark reached the operator, so it never starts a new one.
                metrics.lateDropped.inc();
                store(t, bucket, created, ctx);
                return;
            }
            if (bucketBound > 0 && t.size >= bucketBound && endPassed(t, ts, out) >= bucketBound) {
                // A one-packet flow, exported at once: built in a slot and taken out again.
                int single = t.insert(k);
                start(t, single, p, ts, k);
                add(t, single, p, ts, k);
                metrics.forcedFlows.inc();
                out.collect(record(t, single, END_LACK_OF_RESOURCES));
                metrics.flowsOut.inc();
                t.remove(single);
                store(t, bucket, created, ctx);
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
        store(t, bucket, created, ctx);
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
        store(t, bucket, true, ctx);
    }

    /**
     * Ends the bucket's flows whose deadline {@code ts} has passed, in slot order, as their timers
     * would (a timer left at one of them finds nothing due and re-arms); returns the flows left.
     */
    private int endPassed(FlowTable t, long ts, Collector<FlowRecord> out) {
        int s = 0;
        while (s < t.size) {
            long deadline = deadline(t, s);
            if (deadline <= ts) {
                end(t, s, reason(t, s, deadline), out);
                t.remove(s);
            } else {
                s++;
            }
        }
        return t.size;
    }

    /**
     * Writes the table back (unless it was updated in place, {@code write} is false and its TTL
     * needs no renewal yet), or clears the bucket (state and timer) when it has no flows.
     */
    private void store(FlowTable t, int bucket, boolean write, Context ctx) throws Exception {
        if (bucket >= bucketFlows.length) {
            // A bucket restored from a run with more buckets (flow-table-buckets lowered).
            bucketFlows = Arrays.copyOf(bucketFlows, bucket + 1);
            writtenMillis = Arrays.copyOf(writtenMillis, bucket + 1);
        }
        if (t.size == 0) {
            if (t.timerMillis != 0) {
                ctx.timerService().deleteEventTimeTimer(t.timerMillis);
                t.timerMillis = 0;
            }
            state.clear();
        } else if (write || !inPlace) {
            write(t, bucket, clock.getAsLong());
        } else {
            long now = clock.getAsLong();
            if (now - writtenMillis[bucket] >= ttlRenewalMillis) {
                write(t, bucket, now);
            }
        }
        bucketFlows[bucket] = t.size;
    }

    private void write(FlowTable t, int bucket, long now) throws Exception {
        state.update(t);
        writtenMillis[bucket] = now;
        if (!probed) {
            // Does the backend hand out the stored object (the heap backend)? Then the next
            // packets may update it in place.
            probed = true;
            inPlace = !changelog && state.value() == t;
            if (!inPlace && !changelog) {
                LOG.warn(
                        "bucketed flow table on a state backend that copies every value it reads"
                                + " (RocksDB/ForSt?): each packet reads and writes its bucket's whole"
                                + " table; flowhouse.packets.flow-table: keyed costs less there (auto"
                                + " picks it when the job's client sees the cluster's"
                                + " state.backend.type)");
            }
        }
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
