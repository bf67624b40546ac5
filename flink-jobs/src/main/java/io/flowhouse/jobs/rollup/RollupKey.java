// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;
import org.apache.flink.api.common.typeinfo.TypeInfo;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * The identity of a rollup bucket within a window: every key field of a {@link RollupRow}.
 *
 * @param kind rollup kind code
 * @param exporter exporter
 * @param iface interface
 * @param direction direction
 * @param protocol protocol
 * @param port port
 * @param srcAs source AS
 * @param dstAs destination AS
 * @param srcAddr talker / conversation source
 * @param dstAddr conversation destination
 */
@TypeInfo(RollupKeyTypeInfo.Factory.class)
public record RollupKey(
        int kind,
        IpAddress exporter,
        long iface,
        int direction,
        int protocol,
        int port,
        long srcAs,
        long dstAs,
        IpAddress srcAddr,
        IpAddress dstAddr) {

    /** Keys contributions by their bucket. */
    public static final class OfRow implements KeySelector<RollupRow, RollupKey> {
        private static final long serialVersionUID = 1L;

        @Override
        public RollupKey getKey(RollupRow r) {
            return new RollupKey(
                    r.kind(),
                    r.exporter(),
                    r.iface(),
                    r.direction(),
                    r.protocol(),
                    r.port(),
                    r.srcAs(),
                    r.dstAs(),
                    r.srcAddr(),
                    r.dstAddr());
        }
    }

    /** Keys talker and conversation sums by exporter and kind, for ranking. */
    public static final class OfRanking implements KeySelector<RollupRow, RollupKey> {
        private static final long serialVersionUID = 1L;

        @Override
        public RollupKey getKey(RollupRow r) {
            IpAddress none = IpAddress.UNSPECIFIED;
            return new RollupKey(r.kind(), r.exporter(), 0, 0, 0, 0, 0, 0, none, none);
        }
    }

    /**
     * Keys talker and conversation pieces by exporter, kind and a shard of the address space
     * ({@link AddressSummaries}): the shard is carried in {@link #iface} (the address summaries
     * have no interface), the addresses are left out, so the state is one summary per shard instead
     * of one bucket per address.
     */
    public static final class OfShard implements KeySelector<RollupRow, RollupKey> {
        private static final long serialVersionUID = 1L;

        private final int shards;

        public OfShard(int shards) {
            if (shards < 1) {
                throw new IllegalArgumentException("shards " + shards + " (expected: >= 1)");
            }
            this.shards = shards;
        }

        @Override
        public RollupKey getKey(RollupRow r) {
            IpAddress none = IpAddress.UNSPECIFIED;
            return new RollupKey(
                    r.kind(), r.exporter(), shard(r, shards), 0, 0, 0, 0, 0, none, none);
        }

        /** The shard of a piece's address pair: a mix of all 256 address bits. */
        static int shard(RollupRow r, int shards) {
            long h =
                    TopSummary.hash(
                            r.srcAddr().hi(), r.srcAddr().lo(), r.dstAddr().hi(), r.dstAddr().lo());
            // The summary's slots use the low bits; the shard the high ones.
            return (int) Long.remainderUnsigned(h >>> 16, shards);
        }
    }
}
