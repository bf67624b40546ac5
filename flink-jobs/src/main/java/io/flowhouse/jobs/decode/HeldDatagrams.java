// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.jobs.model.HeldDatagram;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.TimerService;

/**
 * The datagrams of the current exporter that wait for a template, in keyed state (the whole
 * datagram, in arrival order), with one processing-time timer at the earliest deadline. At most
 * {@code maxHeld} wait per exporter: the oldest is released at once when one more comes.
 */
final class HeldDatagrams {

    static final ListStateDescriptor<HeldDatagram> HELD =
            new ListStateDescriptor<>("held", TypeInformation.of(HeldDatagram.class));
    static final ValueStateDescriptor<Long> HOLD_TIMER =
            new ValueStateDescriptor<>("hold-timer", Types.LONG);

    /** Decides what becomes of one held datagram. */
    @FunctionalInterface
    interface Release {
        /**
         * @param expired whether its deadline has passed (decode what can be, reject the rest)
         * @return true when it is done with (emitted, maybe partly rejected), false to keep it
         */
        boolean release(HeldDatagram h, boolean expired) throws Exception;
    }

    private final ListState<HeldDatagram> held;
    private final ValueState<Long> holdTimer;
    private final long holdMillis;
    private final int maxHeld;

    HeldDatagrams(RuntimeContext runtime, long holdMillis, int maxHeld) {
        this.held = runtime.getListState(HELD);
        this.holdTimer = runtime.getState(HOLD_TIMER);
        this.holdMillis = holdMillis;
        this.maxHeld = maxHeld;
    }

    /** Holds a datagram; the oldest is released (expired) at once when the limit is hit. */
    void hold(RawDatagram d, TimerService timers, Release release) throws Exception {
        long deadline = timers.currentProcessingTime() + holdMillis;
        List<HeldDatagram> list = new ArrayList<>();
        for (HeldDatagram h : held.get()) {
            list.add(h);
        }
        list.add(new HeldDatagram(d, deadline));
        while (list.size() > maxHeld) {
            release.release(list.remove(0), true);
        }
        held.update(list);
        schedule(timers, list);
    }

    /** Whether {@code timestamp} is this exporter's hold timer; it is cleared if so. */
    boolean fired(long timestamp) throws Exception {
        Long t = holdTimer.value();
        if (t != null && t == timestamp) {
            holdTimer.clear();
            return true;
        }
        return false;
    }

    /**
     * Offers every held datagram to {@code release}: those past their deadline ({@code now}; {@code
     * Long.MIN_VALUE} for none) as expired. Keeps those it returns false for.
     */
    void releaseAll(long now, TimerService timers, Release release) throws Exception {
        Iterable<HeldDatagram> current = held.get();
        if (current == null || !current.iterator().hasNext()) {
            return;
        }
        List<HeldDatagram> keep = new ArrayList<>();
        for (HeldDatagram h : current) {
            if (!release.release(h, h.deadlineMillis() <= now)) {
                keep.add(h);
            }
        }
        if (keep.isEmpty()) {
            held.clear();
            Long t = holdTimer.value();
            if (t != null) {
                timers.deleteProcessingTimeTimer(t);
                holdTimer.clear();
            }
        } else {
            held.update(keep);
            schedule(timers, keep);
        }
    }

    private void schedule(TimerService timers, List<HeldDatagram> list) throws Exception {
        long earliest = Long.MAX_VALUE;
        for (HeldDatagram h : list) {
            earliest = Math.min(earliest, h.deadlineMillis());
        }
        Long t = holdTimer.value();
        if (t != null && t == earliest) {
            return;
        }
        if (t != null) {
            timers.deleteProcessingTimeTimer(t);
        }
        timers.registerProcessingTimeTimer(earliest);
        holdTimer.update(earliest);
    }
}
