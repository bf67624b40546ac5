// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * One bucket of a context rollup table ({@code flows_context_<resolution>}, {@link
 * ContextRollupTables}): the traffic of one window and one key of one kind, keyed by what the
 * enrich stage found. A field that is not part of a kind's key is zero or "".
 *
 * @param kind {@link #INTERFACE}, {@link #COUNTRY_PAIR} or {@link #BOUNDARY_AS}
 * @param windowStart start of the window, epoch ms
 * @param exporter the exporter
 * @param iface in_if for direction 0, out_if for direction 1 (INTERFACE); in_if (BOUNDARY_AS)
 * @param direction 0 in, 1 out (INTERFACE)
 * @param ifName the interface's name (INTERFACE)
 * @param inBoundary the in interface's boundary: 0 undefined, 1 external, 2 internal (INTERFACE
 *     direction 0, BOUNDARY_AS)
 * @param outBoundary the out interface's boundary (INTERFACE direction 1, BOUNDARY_AS)
 * @param protocol IP protocol (BOUNDARY_AS)
 * @param srcAs source AS as stored in {@code flows} (BOUNDARY_AS)
 * @param dstAs destination AS as stored in {@code flows} (BOUNDARY_AS)
 * @param srcCountry ISO 3166-1 alpha-2 or "" (COUNTRY_PAIR)
 * @param dstCountry ISO 3166-1 alpha-2 or "" (COUNTRY_PAIR)
 * @param bytes octets, scaled by sampling, both directions of a biflow
 * @param packets packets, scaled by sampling
 * @param flows flows that ended in the window
 * @param version bytes + packets + flows: grows when a late flow updates the bucket
 */
@TypeInfo(ContextRowTypeInfo.Factory.class)
public record ContextRow(
        int kind,
        long windowStart,
        IpAddress exporter,
        long iface,
        int direction,
        String ifName,
        int inBoundary,
        int outBoundary,
        int protocol,
        long srcAs,
        long dstAs,
        String srcCountry,
        String dstCountry,
        long bytes,
        long packets,
        long flows,
        long version)
        implements Counted, Bucketed {

    /** Exporter, interface, direction, the interface's name and boundary. */
    public static final int INTERFACE = 1;

    /** Exporter, source country, destination country. */
    public static final int COUNTRY_PAIR = 2;

    /** Exporter, in interface, in and out boundary, protocol, source AS, destination AS. */
    public static final int BOUNDARY_AS = 3;

    /** The {@code Enum8} declaration of the kinds. */
    static final String KIND_ENUM = "Enum8('interface' = 1, 'country_pair' = 2, 'boundary_as' = 3)";

    /** The bucket identity: everything but the window and the counters. */
    public Key key() {
        return new Key(
                kind,
                exporter,
                iface,
                direction,
                ifName,
                inBoundary,
                outBoundary,
                protocol,
                srcAs,
                dstAs,
                srcCountry,
                dstCountry);
    }

    /**
     * A bucket's key: the key of the context windows (hashed on every piece they take and every
     * timer they compare) and of the local sums before them. Its hash is computed once, from the
     * fields' own specified hashes (stable across JVMs, as key groups need); the strings are the
     * pieces' own, not copies.
     */
    @TypeInfo(ContextKeyTypeInfo.Factory.class)
    public static final class Key {
        private final int kind;
        private final IpAddress exporter;
        private final long iface;
        private final int direction;
        private final String ifName;
        private final int inBoundary;
        private final int outBoundary;
        private final int protocol;
        private final long srcAs;
        private final long dstAs;
        private final String srcCountry;
        private final String dstCountry;
        private final int hash;

        public Key(
                int kind,
                IpAddress exporter,
                long iface,
                int direction,
                String ifName,
                int inBoundary,
                int outBoundary,
                int protocol,
                long srcAs,
                long dstAs,
                String srcCountry,
                String dstCountry) {
            this.kind = kind;
            this.exporter = Objects.requireNonNull(exporter, "exporter");
            this.iface = iface;
            this.direction = direction;
            this.ifName = Objects.requireNonNull(ifName, "ifName");
            this.inBoundary = inBoundary;
            this.outBoundary = outBoundary;
            this.protocol = protocol;
            this.srcAs = srcAs;
            this.dstAs = dstAs;
            this.srcCountry = Objects.requireNonNull(srcCountry, "srcCountry");
            this.dstCountry = Objects.requireNonNull(dstCountry, "dstCountry");
            int h = kind;
            h = 31 * h + Long.hashCode(exporter.hi());
            h = 31 * h + Long.hashCode(exporter.lo());
            h = 31 * h + Long.hashCode(iface);
            h = 31 * h + direction;
            h = 31 * h + ifName.hashCode();
            h = 31 * h + inBoundary;
            h = 31 * h + outBoundary;
            h = 31 * h + protocol;
            h = 31 * h + Long.hashCode(srcAs);
            h = 31 * h + Long.hashCode(dstAs);
            h = 31 * h + srcCountry.hashCode();
            h = 31 * h + dstCountry.hashCode();
            this.hash = h;
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

        public String ifName() {
            return ifName;
        }

        public int inBoundary() {
            return inBoundary;
        }

        public int outBoundary() {
            return outBoundary;
        }

        public int protocol() {
            return protocol;
        }

        public long srcAs() {
            return srcAs;
        }

        public long dstAs() {
            return dstAs;
        }

        public String srcCountry() {
            return srcCountry;
        }

        public String dstCountry() {
            return dstCountry;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            if (o == this) {
                return true;
            }
            return o instanceof Key k
                    && hash == k.hash
                    && kind == k.kind
                    && iface == k.iface
                    && direction == k.direction
                    && inBoundary == k.inBoundary
                    && outBoundary == k.outBoundary
                    && protocol == k.protocol
                    && srcAs == k.srcAs
                    && dstAs == k.dstAs
                    && exporter.equals(k.exporter)
                    && ifName.equals(k.ifName)
                    && srcCountry.equals(k.srcCountry)
                    && dstCountry.equals(k.dstCountry);
        }

        @Override
        public String toString() {
            return "Key[kind="
                    + kind
                    + ", exporter="
                    + exporter
                    + ", iface="
                    + iface
                    + ", direction="
                    + direction
                    + ", ifName="
                    + ifName
                    + ", inBoundary="
                    + inBoundary
                    + ", outBoundary="
                    + outBoundary
                    + ", protocol="
                    + protocol
                    + ", srcAs="
                    + srcAs
                    + ", dstAs="
                    + dstAs
                    + ", srcCountry="
                    + srcCountry
                    + ", dstCountry="
                    + dstCountry
                    + "]";
        }

        ContextRow row(long windowStart, long bytes, long packets, long flows, long version) {
            return new ContextRow(
                    kind,
                    windowStart,
                    exporter,
                    iface,
                    direction,
                    ifName,
                    inBoundary,
                    outBoundary,
                    protocol,
                    srcAs,
                    dstAs,
                    srcCountry,
                    dstCountry,
                    bytes,
                    packets,
                    flows,
                    version);
        }
    }
}
