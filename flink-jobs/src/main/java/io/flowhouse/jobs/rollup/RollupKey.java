// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * The identity of a rollup bucket within a window: every key field of a {@link RollupRow}.
 *
 * <p>Immutable, with a record's accessors, equality and hash: the hash is the one a record of these
 * components in this order has (so key groups, and with them savepoints, are unchanged), computed
 * once. Both window operators hash every key again for every timer they register and for every
 * timer they write into a checkpoint, so caching it saves most of their timers' cost.
 */
@TypeInfo(RollupKeyTypeInfo.Factory.class)
public final class RollupKey {

    private final int kind;
    private final IpAddress exporter;
    private final long iface;
    private final int direction;
    private final int protocol;
    private final int port;
    private final long srcAs;
    private final long dstAs;
    private final IpAddress srcAddr;
    private final IpAddress dstAddr;
    private final int hash;

    /**
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
    public RollupKey(
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
        this.kind = kind;
        this.exporter = exporter;
        this.iface = iface;
        this.direction = direction;
        this.protocol = protocol;
        this.port = port;
        this.srcAs = srcAs;
        this.dstAs = dstAs;
        this.srcAddr = srcAddr;
        this.dstAddr = dstAddr;
        this.hash = recordHash();
    }

    public int kind() {
        return kind;
    }

    public IpAddress exporter() {
        return exporter;
    }

    public long iface() {
        return iface;
    }

    public int direction() {
        return direction;
    }

    public int protocol() {
        return protocol;
    }

    public int port() {
        return port;
    }

    public long srcAs() {
        return srcAs;
    }

    public long dstAs() {
        return dstAs;
    }

    public IpAddress srcAddr() {
        return srcAddr;
    }

    public IpAddress dstAddr() {
        return dstAddr;
    }

    /** What {@code java.lang.runtime.ObjectMethods} computes for a record: h = 31 h + field. */
    private int recordHash() {
        int h = Integer.hashCode(kind);
        h = 31 * h + Objects.hashCode(exporter);
        h = 31 * h + Long.hashCode(iface);
        h = 31 * h + Integer.hashCode(direction);
        h = 31 * h + Integer.hashCode(protocol);
        h = 31 * h + Integer.hashCode(port);
        h = 31 * h + Long.hashCode(srcAs);
        h = 31 * h + Long.hashCode(dstAs);
        h = 31 * h + Objects.hashCode(srcAddr);
        return 31 * h + Objects.hashCode(dstAddr);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        return o instanceof RollupKey k
                && hash == k.hash
                && kind == k.kind
                && iface == k.iface
                && direction == k.direction
                && protocol == k.protocol
                && port == k.port
                && srcAs == k.srcAs
                && dstAs == k.dstAs
                && Objects.equals(exporter, k.exporter)
                && Objects.equals(srcAddr, k.srcAddr)
                && Objects.equals(dstAddr, k.dstAddr);
    }

    @Override
    public String toString() {
        return "RollupKey[kind="
                + kind
                + ", exporter="
                + exporter
                + ", iface="
                + iface
                + ", direction="
                + direction
                + ", protocol="
                + protocol
                + ", port="
                + port
                + ", srcAs="
                + srcAs
                + ", dstAs="
                + dstAs
                + ", srcAddr="
                + srcAddr
                + ", dstAddr="
                + dstAddr
                + "]";
    }

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
