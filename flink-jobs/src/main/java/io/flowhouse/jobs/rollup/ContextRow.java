// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;

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

    /** A bucket's key. */
    public record Key(
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
