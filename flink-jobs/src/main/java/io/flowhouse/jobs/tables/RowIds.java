// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;

/**
 * Deterministic row ids: the same flow decoded twice (a replay after a failure) gets the same id,
 * so {@code ReplacingMergeTree} collapses the copies. Exported flows (v5/v9/IPFIX) are identified
 * by exporter address and port, observation domain, message sequence number and the record's
 * position in the message ({@link FlowRecord#setIndex()} and {@link FlowRecord#recordInSet()},
 * packed in {@link FlowRecord#recordIndex()}): the position comes from the datagram's bytes alone,
 * so a replay that knows templates the live decode did not still gives every record its live id.
 * Flows built from packets (version 0) are identified by their key and start time.
 *
 * <p>The id is a 64-bit mix (SplitMix64 finalizer chained over the fields); it is the last column
 * of the sorting key, after the time bucket, exporter and interfaces, so two different flows
 * collapse only if they also agree on all of those and collide in 64 bits (probability about n²/2⁶⁵
 * for n flows of one exporter, interface pair and 5-minute bucket: 3·10⁻⁶ at ten million).
 */
public final class RowIds {

    private static final long SEED = 0x666c_6f77_686f_7573L; // "flowhous"

    private RowIds() {}

    public static long of(FlowRecord r) {
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
