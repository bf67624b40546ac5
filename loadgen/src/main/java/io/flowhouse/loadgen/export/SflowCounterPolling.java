// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.sflow.EthernetInterfaceCounters;
import io.flowhouse.codec.sflow.GenericInterfaceCounters;
import io.flowhouse.codec.sflow.SflowEncoder;
import java.util.ArrayList;
import java.util.List;

/**
 * An sFlow agent's counter polling: each of its interfaces (ifIndex 1 to {@value #INTERFACES}, the
 * flow generator's) sends one counter sample, generic interface and Ethernet counters, every
 * interval, as agents do, the interfaces' first polls spread over the first interval. The counters
 * are cumulative and follow the flow samples the agent sent: each sampled packet adds its sampling
 * rate in packets and its frame length times the rate in octets to its input interface's in
 * counters and its output interface's out counters. Octets start at {@code ifIndex << 32} (so
 * 64-bit counters are exercised); discards and errors are fixed fractions of the packets. Not
 * thread-safe: one per exporter.
 */
final class SflowCounterPolling {

    /** Interfaces per agent: 1-2 uplinks, 3-10 access, as {@code FlowGenerator} picks them. */
    static final int INTERFACES = 10;

    static final long UPLINK_SPEED = 10_000_000_000L;
    static final long ACCESS_SPEED = 1_000_000_000L;

    private final long intervalMillis;
    private final long[] inOctets = new long[INTERFACES];
    private final long[] inPackets = new long[INTERFACES];
    private final long[] outOctets = new long[INTERFACES];
    private final long[] outPackets = new long[INTERFACES];
    private final long[] sequence = new long[INTERFACES];
    private final long[] due = new long[INTERFACES];

    /**
     * @param intervalMillis polling interval per interface, > 0
     * @param firstExportMillis the agent's first export time
     */
    SflowCounterPolling(long intervalMillis, long firstExportMillis) {
        if (intervalMillis <= 0) {
            throw new IllegalArgumentException("interval " + intervalMillis + " (expected: > 0)");
        }
        this.intervalMillis = intervalMillis;
        for (int i = 0; i < INTERFACES; i++) {
            due[i] = firstExportMillis + intervalMillis * (i + 1) / INTERFACES;
        }
    }

    /** Adds a sampled packet (one packet, its frame length in bytes) to its interfaces. */
    void account(FlowRecord f) {
        long rate = Math.max(1, f.samplingRate());
        int in = slot(f.inputInterface());
        if (in >= 0) {
            inPackets[in] += rate * f.packets();
            inOctets[in] += rate * f.bytes();
        }
        int out = slot(f.outputInterface());
        if (out >= 0) {
            outPackets[out] += rate * f.packets();
            outOctets[out] += rate * f.bytes();
        }
    }

    /**
     * The samples due at {@code nowMillis}, as many as {@code budgetBytes} holds, each interface's
     * next poll moved one interval on. An interface that did not fit stays due.
     */
    List<SflowEncoder.InterfaceSample> poll(long nowMillis, int budgetBytes) {
        List<SflowEncoder.InterfaceSample> out = new ArrayList<>();
        int size = SflowEncoder.counterSampleSize(true);
        for (int i = 0; i < INTERFACES && budgetBytes >= size; i++) {
            if (due[i] > nowMillis) {
                continue;
            }
            out.add(sample(i));
            budgetBytes -= size;
            due[i] += intervalMillis;
            if (due[i] <= nowMillis) {
                // Fallen behind (a long pause): the next poll one interval from now.
                due[i] = nowMillis + intervalMillis;
            }
        }
        return out;
    }

    private SflowEncoder.InterfaceSample sample(int i) {
        long ifIndex = i + 1;
        sequence[i] = (sequence[i] + 1) & 0xffff_ffffL;
        long inErrors = inPackets[i] / 10_000;
        long outErrors = outPackets[i] / 10_000;
        GenericInterfaceCounters g =
                new GenericInterfaceCounters(
                        ifIndex,
                        6, // ethernetCsmacd
                        ifIndex <= 2 ? UPLINK_SPEED : ACCESS_SPEED,
                        1, // full duplex
                        3, // admin and oper up
                        (ifIndex << 32) + inOctets[i],
                        inPackets[i] & 0xffff_ffffL,
                        0,
                        0,
                        (inPackets[i] / 5_000) & 0xffff_ffffL,
                        inErrors & 0xffff_ffffL,
                        0,
                        (ifIndex << 32) + outOctets[i],
                        outPackets[i] & 0xffff_ffffL,
                        0,
                        0,
                        (outPackets[i] / 5_000) & 0xffff_ffffL,
                        outErrors & 0xffff_ffffL,
                        2); // not promiscuous
        EthernetInterfaceCounters e =
                new EthernetInterfaceCounters(
                        0, inErrors & 0xffff_ffffL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        return new SflowEncoder.InterfaceSample(sequence[i], 0, ifIndex, g, e);
    }

    private static int slot(long ifIndex) {
        return ifIndex >= 1 && ifIndex <= INTERFACES ? (int) ifIndex - 1 : -1;
    }
}
