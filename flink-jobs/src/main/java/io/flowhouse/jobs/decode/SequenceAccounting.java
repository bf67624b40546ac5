// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.jobs.model.ScopeCounters;

/**
 * Loss accounting from export sequence numbers, per template scope, over keyed state. What the
 * number counts differs by version: NetFlow v5 counts flows sent before this datagram, NetFlow v9
 * counts export datagrams (RFC 3954 §5.1), IPFIX counts data records sent before this message (RFC
 * 7011 §3.1), all modulo 2^32. A forward jump of at most {@link #MAX_GAP} is counted as loss; a
 * step backwards or a larger jump is an exporter restart and only resynchronises. The same rules as
 * the codec's {@code SequenceTracker}, whose in-memory maps cannot live in Flink state.
 */
public final class SequenceAccounting {

    /** Largest forward jump counted as loss rather than as a restart. */
    public static final long MAX_GAP = 1L << 20;

    private static final long MOD = 1L << 32;

    private SequenceAccounting() {}

    /**
     * Counts one datagram's sequence number into {@code c}.
     *
     * @param version 5, 9 or 10
     * @param sequence the header's sequence number (uint32)
     * @param units how far the datagram advances the sequence, or -1 if unknown (a data set whose
     *     template is missing): the next datagram then only resynchronises
     */
    public static void count(ScopeCounters c, int version, long sequence, long units) {
        if (c.nextSequence >= 0) {
            long gap = Math.floorMod(sequence - c.nextSequence, MOD);
            if (gap != 0) {
                if (gap <= MAX_GAP) {
                    c.sequenceGaps++;
                    if (version == 9) {
                        c.lostDatagrams += gap;
                    } else {
                        c.lostRecords += gap;
                    }
                } else {
                    c.sequenceResets++;
                }
            }
        }
        c.nextSequence = units < 0 ? -1L : Math.floorMod(sequence + units, MOD);
    }
}
