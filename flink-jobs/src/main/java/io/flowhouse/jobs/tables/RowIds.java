// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;

/**
 * Deterministic row ids: the same flow decoded twice (a spool re-send that got through, a replay
 * after a failure, {@code job reprocess}) gets the same id, so {@code ReplacingMergeTree} collapses
 * the copies; two different flows never share one.
 *
 * <p>A record from a stamped datagram (envelope schema 2, {@link FlowRecord#streamId()} not 0) is
 * named by where it entered the pipeline and where it sits in its datagram: the agent stream, the
 * datagram's sequence in it and the record's position ({@link FlowRecord#recordIndex()}: set
 * ordinal and record in set, from the datagram's bytes alone). Never by the exporter's own sequence
 * number, which repeats when an exporter restarts on the same port. The id is 128 bits: {@link #of}
 * in {@code row_id} and {@link #high} in {@code row_id_hi}, two SplitMix64 chains with different
 * seeds over the same three values.
 *
 * <p>Records without a stamp (envelope schema 1, written by agents from before the stamp) keep the
 * ids they always had, in {@code row_id} with {@code row_id_hi = 0}: exporter address and port,
 * domain, the exporter's sequence number and the position. Flows built from packets (version 0) are
 * named by their key and start time, also with {@code row_id_hi = 0}.
 *
 * <p>Collisions: the ids are the last columns of the sorting key, after the 5-minute bucket, the
 * exporter address and the interface pair, so two different flows collapse only if they agree on
 * all of those and on all 128 bits: about n²/2¹²⁹ for n flows in one such group. At 10¹⁰ flows a
 * day all in one group (the worst case: 3.5·10⁷ per bucket) that is 2·10⁻²⁴ per bucket, 5·10⁻²² a
 * day. With 64 bits it would have been n²/2⁶⁵ = 3·10⁻⁵ per bucket, about 1 % a day: one flow lost
 * every few months at that rate, which is why the stamped id has a second word.
 */
public final class RowIds {

    private static final long SEED = 0x666c_6f77_686f_7573L; // "flowhous"
    private static final long SEED_HIGH = 0x726f_775f_6964_5f68L; // "row_id_h"

    private RowIds() {}

    /** The {@code row_id} column: the low word of a stamped record's id, or the unstamped id. */
    public static long of(FlowRecord r) {
        if (r.streamId() != 0 && r.version() != 0) {
            return stamped(SEED, r);
        }
        return unstamped(r);
    }

    /** The {@code row_id_hi} column: the high word of a stamped record's id, else 0. */
    public static long high(FlowRecord r) {
        if (r.streamId() != 0 && r.version() != 0) {
            return stamped(SEED_HIGH, r);
        }
        return 0L;
    }

    private static long stamped(long seed, FlowRecord r) {
        long h = mix(seed, r.streamId());
        h = mix(h, r.streamSequence());
        return mix(h, r.recordIndex());
    }

    private static long unstamped(FlowRecord r) {
        long h = SEED;
        h = mix(h, r.version());
        h = mix(h, r.exporterAddress());
        h = mix(h, r.exporterPort());
        h = mix(h, r.observationDomainId());
        if (r.version() == 0) {
            h = mix(h, r.srcAddr());
            h = mix(h, r.dstAddr());
            h = mix(h, ((long) r.srcPort() << 32) | ((long) r.dstPort() << 8) | r.protocol());
            h = mix(h, r.vlanId());
            h = mix(h, r.flowStartMillis());
        } else {
            h = mix(h, r.sequenceNumber());
            // Set ordinal and record ordinal in the set, as one packed value (v5, and a datagram
            // whose first set is its only data set, keep the ids they had as a decode ordinal).
            h = mix(h, r.recordIndex());
        }
        return h;
    }

    private static long mix(long h, IpAddress a) {
        return mix(mix(h, a.hi()), a.lo());
    }

    /** One round: add the value to the state and run the SplitMix64 finalizer. */
    static long mix(long h, long v) {
        long z = h + v * 0x9e37_79b9_7f4a_7c15L + 0x9e37_79b9_7f4a_7c15L;
        z = (z ^ (z >>> 30)) * 0xbf58_476d_1ce4_e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d0_49bb_1331_11ebL;
        return z ^ (z >>> 31);
    }
}
