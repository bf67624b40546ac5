// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

/**
 * {@code ethernet_counters} (counter record 0:2): the dot3StatsTable counters of RFC 2358, as the
 * agent read them (uint32 each, widened). Agents send 0xFFFFFFFF for a counter they do not have.
 */
public record EthernetInterfaceCounters(
        long dot3StatsAlignmentErrors,
        long dot3StatsFCSErrors,
        long dot3StatsSingleCollisionFrames,
        long dot3StatsMultipleCollisionFrames,
        long dot3StatsSQETestErrors,
        long dot3StatsDeferredTransmissions,
        long dot3StatsLateCollisions,
        long dot3StatsExcessiveCollisions,
        long dot3StatsInternalMacTransmitErrors,
        long dot3StatsCarrierSenseErrors,
        long dot3StatsFrameTooLongs,
        long dot3StatsInternalMacReceiveErrors,
        long dot3StatsSymbolErrors) {

    static final int FORMAT = 2;

    /** The record's body: 13 unsigned ints. */
    static final int SIZE = 52;

    /** Reads the body at {@code at}; the caller checked that {@link #SIZE} bytes are there. */
    static EthernetInterfaceCounters read(byte[] b, int at) {
        return new EthernetInterfaceCounters(
                Xdr.u32(b, at),
                Xdr.u32(b, at + 4),
                Xdr.u32(b, at + 8),
                Xdr.u32(b, at + 12),
                Xdr.u32(b, at + 16),
                Xdr.u32(b, at + 20),
                Xdr.u32(b, at + 24),
                Xdr.u32(b, at + 28),
                Xdr.u32(b, at + 32),
                Xdr.u32(b, at + 36),
                Xdr.u32(b, at + 40),
                Xdr.u32(b, at + 44),
                Xdr.u32(b, at + 48));
    }
}
