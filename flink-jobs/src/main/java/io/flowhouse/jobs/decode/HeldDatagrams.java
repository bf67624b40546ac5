// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.jobs.model.ExporterFootprint;
import io.flowhouse.jobs.model.HeldDatagram;
import io.flowhouse.jobs.model.TemplateStateKey;
import io.flowhouse.jobs.model.TemplateStateKeyTypeInfo;
import io.flowhouse.jobs.model.WaitSlot;
import io.flowhouse.jobs.model.WaitSlotTypeInfo;
import java.util.List;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.TimerService;

/**
 * The datagrams of the current exporter that wait for templates, in keyed state, each on its own: a
 * {@code MapState} entry under its arrival number, so holding one is O(1) whatever is held already.
 * Each held datagram is in the wait queue of every template it waits for (a queue per template, as
 * map entries under (template, ordinal)), so a template that comes releases exactly the datagrams
 * that wait for it. Deadlines follow arrival order (processing time), so the oldest is the next to
 * expire: one timer at its deadline, and expiry walks from the oldest.
 *
 * <p>A held datagram waits for the templates missing when it arrived (at most {@link
 * io.flowhouse.codec.DecodeResult#MAX_MISSING_TEMPLATE_IDS} - 1; one missing more is not held).
 * When they have come it is released. Per exporter at most {@code maxHeld} datagrams and {@code
 * maxHeldBytes} are held: the oldest is released (expired) to make room. Their bytes count in the
 * exporter's {@link ExporterBudget}.
 */
final class HeldDatagrams {

    static final MapStateDescriptor<Long, HeldDatagram> HELD =
            new MapStateDescriptor<>(
                    "held-datagrams", Types.LONG, TypeInformation.of(HeldDatagram.class));

    /** Per template waited for: {first ordinal, next ordinal} of its queue. */
    static final MapStateDescriptor<TemplateStateKey, long[]> WAIT_HEADS =
            new MapStateDescriptor<>(
                    "held-wait-heads",
                    TemplateStateKeyTypeInfo.INSTANCE,
                    PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    /** Queue places: the arrival number of the datagram at that place. */
    static final MapStateDescriptor<WaitSlot, Long> WAITS =
            new MapStateDescriptor<>("held-waits", WaitSlotTypeInfo.INSTANCE, Types.LONG);

    /**
     * Bytes a held datagram counts for beyond its payload and agent id (its entry measures some
     * 120), and per template it waits for (a queue place and head, some 113).
     */
    static final int OVERHEAD = 256;

    static final int WAIT_BYTES = 128;

    /** Decides what becomes of one held datagram. */
    @FunctionalInterface
    interface Release {
        /**
         * @param expired whether its deadline has passed (decode what can be, reject the rest)
         * @return null when it is done with (emitted, maybe partly rejected), else the template ids
         *     it still waits for (a subset of {@link HeldDatagram#waits})
         */
        int[] release(HeldDatagram h, boolean expired) throws Exception;
    }

    private final MapState<Long, HeldDatagram> held;
    private final MapState<TemplateStateKey, long[]> heads;
    private final MapState<WaitSlot, Long> waits;
    private final ExporterBudget budget;
    private final long holdMillis;
    private final int maxHeld;
    private final long maxHeldBytes;
    private final DecodeMetrics metrics;

    HeldDatagrams(
            RuntimeContext runtime,
            ExporterBudget budget,
            long holdMillis,
            int maxHeld,
            long maxHeldBytes,
            DecodeMetrics metrics) {
        this.held = runtime.getMapState(HELD);
        this.heads = runtime.getMapState(WAIT_HEADS);
        this.waits = runtime.getMapState(WAITS);
        this.budget = budget;
        this.holdMillis = holdMillis;
        this.maxHeld = maxHeld;
        this.maxHeldBytes = maxHeldBytes;
        this.metrics = metrics;
    }

    /** Bytes a datagram would count for held. */
    static long cost(RawDatagram d, int waiting) {
        return d.payload().length
                + 3L * d.agentId().length()
                + OVERHEAD
                + (long) waiting * WAIT_BYTES;
    }

    /**
     * Whether a datagram of {@code cost} bytes can be held, if need be after releasing every
     * datagram this exporter holds.
     */
    boolean canHold(long cost) throws Exception {
        ExporterFootprint fp = budget.peek();
        long freeable = fp == null ? 0 : fp.heldBytes;
        return cost <= maxHeldBytes && budget.fits(cost, freeable);
    }

    /**
     * Holds a datagram that waits for {@code waitIds} of scope ({@code version}, {@code domain});
     * the oldest are released (expired) first when a bound would be passed. The caller has checked
     * {@link #canHold}.
     */
    void hold(
            RawDatagram d,
            int version,
            long domain,
            List<Integer> waitIds,
            TimerService timers,
            Release release)
            throws Exception {
        int[] ids = new int[waitIds.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = waitIds.get(i);
        }
        long cost = cost(d, ids.length);
        long deadline = budget.now() + holdMillis;
        HeldDatagram h = new HeldDatagram(d, deadline, version, domain, ids, cost);
        while (true) {
            ExporterFootprint fp = budget.peek();
            boolean room =
                    fp == null
                            || (fp.held < maxHeld
                                    && fp.heldBytes + cost <= maxHeldBytes
                                    && budget.fits(cost, 0));
            if (room && budget.reserve(cost)) {
                break;
            }
            if (fp == null || fp.held == 0 || !evictOldest(timers, release)) {
                // Not expected after canHold; if it happens anyway, the datagram is not held.
                metrics.refusedHeld.inc();
                release.release(h, true);
                return;
            }
            metrics.heldEvicted.inc();
        }
        ExporterFootprint fp = budget.edit();
        long seq = fp.nextHeld++;
        held.put(seq, h);
        for (int i = 0; i < ids.length; i++) {
            append(h.wait(i), seq);
        }
        fp.held++;
        fp.heldBytes += cost;
        if (fp.heldTimer == 0) {
            fp.heldTimer = deadline;
            timers.registerProcessingTimeTimer(deadline);
        }
    }

    private void append(TemplateStateKey k, long seq) throws Exception {
        long[] head = heads.get(k);
        if (head == null) {
            head = new long[2];
        }
        waits.put(WaitSlot.of(k, head[1]), seq);
        head[1]++;
        heads.put(k, head);
    }

    /**
     * Offers the datagrams that wait for template {@code k} to {@code release}, oldest first; those
     * that still wait for {@code k} (an archived template too new for them) queue again.
     */
    void templateArrived(TemplateStateKey k, TimerService timers, Release release)
            throws Exception {
        long[] head = heads.get(k);
        if (head == null) {
            return;
        }
        heads.remove(k);
        for (long o = head[0]; o < head[1]; o++) {
            WaitSlot slot = WaitSlot.of(k, o);
            Long seq = waits.get(slot);
            if (seq == null) {
                continue;
            }
            waits.remove(slot);
            HeldDatagram h = held.get(seq);
            if (h == null) {
                continue;
            }
            int[] still = release.release(h, false);
            if (still == null) {
                remove(seq, h);
            } else if (contains(still, k.templateId())) {
                append(k, seq);
            }
        }
        reschedule(timers);
    }

    /** Whether {@code timestamp} is this exporter's hold timer; it is forgotten (fired) if so. */
    boolean fired(long timestamp) throws Exception {
        ExporterFootprint fp = budget.peek();
        if (fp == null || fp.heldTimer != timestamp) {
            return false;
        }
        budget.edit().heldTimer = 0;
        return true;
    }

    /** Releases every held datagram whose deadline is at or before {@code now}, oldest first. */
    void expire(long now, TimerService timers, Release release) throws Exception {
        ExporterFootprint fp = budget.edit();
        if (fp == null) {
            return;
        }
        while (fp.firstHeld < fp.nextHeld) {
            HeldDatagram h = held.get(fp.firstHeld);
            if (h != null && h.deadlineMillis() > now) {
                break;
            }
            if (h != null) {
                release.release(h, true);
                remove(fp.firstHeld, h);
                trimWaits(h, fp.firstHeld);
            }
            fp.firstHeld++;
        }
        reschedule(timers);
    }

    /** Releases the oldest held datagram now; false if there is none. */
    private boolean evictOldest(TimerService timers, Release release) throws Exception {
        ExporterFootprint fp = budget.edit();
        while (fp.firstHeld < fp.nextHeld) {
            long seq = fp.firstHeld++;
            HeldDatagram h = held.get(seq);
            if (h != null) {
                release.release(h, true);
                remove(seq, h);
                trimWaits(h, seq);
                return true;
            }
        }
        return false;
    }

    /** Releases everything held (the key is going away). */
    void releaseAll(TimerService timers, Release release) throws Exception {
        expire(Long.MAX_VALUE, timers, release);
    }

    /**
     * Forgets every held datagram and queue without releasing them (their bytes go with the key).
     */
    void clear() {
        held.clear();
        heads.clear();
        waits.clear();
    }

    private void remove(long seq, HeldDatagram h) throws Exception {
        held.remove(seq);
        budget.release(h.bytes());
        ExporterFootprint fp = budget.edit();
        fp.held--;
        fp.heldBytes -= h.bytes();
        if (fp.held == 0) {
            fp.firstHeld = fp.nextHeld;
        }
    }

    /**
     * Takes datagram {@code seq} (the oldest held, leaving) off the front of its templates' queues,
     * with any place before it: every older datagram has left too.
     */
    private void trimWaits(HeldDatagram h, long seq) throws Exception {
        for (int i = 0; i < h.waits().length; i++) {
            TemplateStateKey k = h.wait(i);
            long[] head = heads.get(k);
            if (head == null) {
                continue;
            }
            while (head[0] < head[1]) {
                WaitSlot slot = WaitSlot.of(k, head[0]);
                Long s = waits.get(slot);
                if (s != null && s > seq) {
                    break;
                }
                waits.remove(slot);
                head[0]++;
            }
            if (head[0] == head[1]) {
                heads.remove(k);
            } else {
                heads.put(k, head);
            }
        }
    }

    /** Keeps one timer at the oldest held datagram's deadline. */
    private void reschedule(TimerService timers) throws Exception {
        ExporterFootprint fp = budget.edit();
        if (fp == null) {
            return;
        }
        long next = 0;
        while (fp.held > 0 && fp.firstHeld < fp.nextHeld) {
            HeldDatagram h = held.get(fp.firstHeld);
            if (h != null) {
                next = h.deadlineMillis();
                break;
            }
            fp.firstHeld++;
        }
        if (next == fp.heldTimer) {
            return;
        }
        if (fp.heldTimer != 0) {
            timers.deleteProcessingTimeTimer(fp.heldTimer);
        }
        fp.heldTimer = next;
        if (next != 0) {
            timers.registerProcessingTimeTimer(next);
        }
    }

    private static boolean contains(int[] a, int v) {
        for (int x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }
}
