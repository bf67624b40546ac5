// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.jobs.model.ScopeCounters;

/**
 * Loss accounting from export sequence numbers, per template scope. What the number counts differs
 * by version: NetFlow v5 counts flows sent before this datagram, NetFlow v9 counts export datagrams
 * (RFC 3954 §5.1), IPFIX counts data records sent before this message (RFC 7011 §3.1), all modulo
 * 2^32. A forward jump of at most {@link #MAX_GAP} is counted as loss; a step backwards or a larger
 * jump is an exporter restart (or a second exporter behind one address) and only resynchronises.
 */
public final class SequenceAccounting {

    /** Largest forward jump counted as loss rather than as a restart. */
    public static final long MAX_GAP = 1L << 20;

    private static final long MOD = 1L << 32;

    private SequenceAccounting() {}

    /**
     * Counts one datagram.
     *
     * @param c the scope's counters so far
     * @param version 5, 9 or 10
     * @param sequence the header's sequence number (uint32)
     * @param dataRecords data records the datagram carried, or -1 if unknown (a data set whose
     *     template is missing): the next datagram then only resynchronises
     * @param receivedMillis receive time of the datagram
     */
    public static ScopeCounters count(
            ScopeCounters c, int version, long sequence, long dataRecords, long receivedMillis) {
        long lostDatagrams = c.lostDatagrams();
        long lostFlows = c.lostFlows();
        long resets = c.sequenceResets();
        if (c.nextSequence() >= 0) {
            long gap = Math.floorMod(sequence - c.nextSequence(), MOD);
            if (gap != 0) {
                if (gap <= MAX_GAP) {
                    if (version == 9) {
                        lostDatagrams += gap;
                    } else {
                        lostFlows += gap;
                    }
                } else {
                    resets++;
                }
            }
        }
        long step = version == 9 ? 1 : dataRecords;
        long next = step < 0 ? -1L : Math.floorMod(sequence + step, MOD);
        return new ScopeCounters(
                next,
                c.datagrams() + 1,
                c.flows(),
                lostDatagrams,
                lostFlows,
                resets,
                c.rejectedDatagrams(),
                Math.max(c.lastReceivedMillis(), receivedMillis));
    }
}
