// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;

/**
 * One bucket of a rollup table ({@code flows_<resolution>}, see {@link RollupTables}): the traffic
 * of one window and one key of one {@link #kind}. The same type carries the per-flow contributions
 * into the Flink windows and the window results out of them; a field that is not part of a kind's
 * key is zero (addresses: {@link IpAddress#UNSPECIFIED}).
 *
 * <p>Counters are estimates: the flows' octets and packets times their sampling rate, both
 * directions of a biflow added. A re-emitted bucket (late flows within the allowed lateness)
 * carries the complete new counts and a higher {@link #version}, so the table's {@code
 * ReplacingMergeTree(version)} keeps only the latest.
 *
 * @param kind what the row is keyed by (a {@link RollupKind} code)
 * @param windowStart start of the window, epoch ms
 * @param exporter the exporter (agent address for packet flows)
 * @param iface interface index: in_if for direction 0, out_if for direction 1
 * @param direction 0 ingress (in_if), 1 egress (out_if); 0 for kinds without interfaces
 * @param protocol IP protocol (kind PROTO_PORT)
 * @param port service port: the lower of source and destination port; ICMP type*256+code (kind
 *     PROTO_PORT)
 * @param srcAs source AS (kind AS_PAIR)
 * @param dstAs destination AS (kind AS_PAIR)
 * @param rank 1-based rank of a top-N row, 0 otherwise
 * @param srcAddr talker (TALKER, TOP_TALKER) or conversation source
 * @param dstAddr conversation destination (CONVERSATION, TOP_CONVERSATION)
 * @param bytes octets, scaled by sampling
 * @param packets packets, scaled by sampling
 * @param flows flows that ended in the window (a flow split over windows counts once, in its last)
 * @param version bytes + packets + flows: grows whenever a late flow updates the bucket; top-N
 *     rows: the rank's bytes (see {@link #ranked})
 * @param bytesError top-N rows: how much {@link #bytes} may exceed the true count (the address's
 *     bytes are in {@code [bytes - bytesError, bytes]}; 0 = exact); 0 for every other kind
 */
public record RollupRow(
        int kind,
        long windowStart,
        IpAddress exporter,
        long iface,
        int direction,
        int protocol,
        int port,
        long srcAs,
        long dstAs,
        int rank,
        IpAddress srcAddr,
        IpAddress dstAddr,
        long bytes,
        long packets,
        long flows,
        long version,
        long bytesError)
        implements Counted, Bucketed {

    /** A row with exact counters ({@link #bytesError} 0): every kind but the top-N rows. */
    public RollupRow(
            int kind,
            long windowStart,
            IpAddress exporter,
            long iface,
            int direction,
            int protocol,
            int port,
            long srcAs,
            long dstAs,
            int rank,
            IpAddress srcAddr,
            IpAddress dstAddr,
            long bytes,
            long packets,
            long flows,
            long version) {
        this(
                kind,
                windowStart,
                exporter,
                iface,
                direction,
                protocol,
                port,
                srcAs,
                dstAs,
                rank,
                srcAddr,
                dstAddr,
                bytes,
                packets,
                flows,
                version,
                0);
    }

    /**
     * This row as the {@code newRank}-th of a top-N ranking of its window. The version is the
     * bytes: a late update can give a rank to another address with more bytes but fewer packets and
     * flows, so bytes + packets + flows could shrink and the table would keep the stale row (the
     * same address twice, the new one missing); the bytes at a rank never shrink, and an equal
     * version keeps the row written last.
     */
    public RollupRow ranked(int newKind, long newWindowStart, int newRank) {
        return with(newKind, newWindowStart, newRank, bytes, packets, flows, bytes);
    }

    /** This row's key with new counters, window and rank; keeps {@link #bytesError}. */
    public RollupRow withCounters(
            int newKind, long newWindowStart, int newRank, long b, long p, long f) {
        return with(newKind, newWindowStart, newRank, b, p, f, b + p + f);
    }

    private RollupRow with(
            int newKind, long newWindowStart, int newRank, long b, long p, long f, long v) {
        return new RollupRow(
                newKind,
                newWindowStart,
                exporter,
                iface,
                direction,
                protocol,
                port,
                srcAs,
                dstAs,
                newRank,
                srcAddr,
                dstAddr,
                b,
                p,
                f,
                v,
                bytesError);
    }
}
