// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

/**
 * {@code if_counters} (counter record 0:1): the generic interface counters of RFC 2233's ifTable
 * and ifXTable, as the agent read them (running totals: take differences between samples). uint32
 * values are widened to {@code long}; the 64-bit ones ({@code ifSpeed}, the octet counters) are
 * unsigned in a {@code long}. Agents send 0xFFFFFFFF for a 32-bit counter they do not have.
 *
 * @param ifIndex the interface (uint32)
 * @param ifType IANAifType (uint32; 6 is ethernetCsmacd)
 * @param ifSpeed bits per second (uint64)
 * @param ifDirection 0 unknown, 1 full-duplex, 2 half-duplex, 3 in, 4 out
 * @param ifStatus bit 0 ifAdminStatus up, bit 1 ifOperStatus up
 * @param ifInOctets octets in (uint64)
 * @param ifInUcastPkts unicast packets in (uint32)
 * @param ifInMulticastPkts multicast packets in (uint32)
 * @param ifInBroadcastPkts broadcast packets in (uint32)
 * @param ifInDiscards discards in (uint32)
 * @param ifInErrors errors in (uint32)
 * @param ifInUnknownProtos unknown protocols in (uint32)
 * @param ifOutOctets octets out (uint64)
 * @param ifOutUcastPkts unicast packets out (uint32)
 * @param ifOutMulticastPkts multicast packets out (uint32)
 * @param ifOutBroadcastPkts broadcast packets out (uint32)
 * @param ifOutDiscards discards out (uint32)
 * @param ifOutErrors errors out (uint32)
 * @param ifPromiscuousMode 1 promiscuous, 0 not (uint32)
 */
public record GenericInterfaceCounters(
        long ifIndex,
        long ifType,
        long ifSpeed,
        int ifDirection,
        int ifStatus,
        long ifInOctets,
        long ifInUcastPkts,
        long ifInMulticastPkts,
        long ifInBroadcastPkts,
        long ifInDiscards,
        long ifInErrors,
        long ifInUnknownProtos,
        long ifOutOctets,
        long ifOutUcastPkts,
        long ifOutMulticastPkts,
        long ifOutBroadcastPkts,
        long ifOutDiscards,
        long ifOutErrors,
        long ifPromiscuousMode) {

    static final int FORMAT = 1;

    /** The record's body: 16 unsigned ints and 3 unsigned hypers. */
    static final int SIZE = 88;

    /** Reads the body at {@code at}; the caller checked that {@link #SIZE} bytes are there. */
    static GenericInterfaceCounters read(byte[] b, int at) {
        return new GenericInterfaceCounters(
                Xdr.u32(b, at),
                Xdr.u32(b, at + 4),
                Xdr.u64(b, at + 8),
                FlowRecords.u31(b, at + 16),
                FlowRecords.u31(b, at + 20),
                Xdr.u64(b, at + 24),
                Xdr.u32(b, at + 32),
                Xdr.u32(b, at + 36),
                Xdr.u32(b, at + 40),
                Xdr.u32(b, at + 44),
                Xdr.u32(b, at + 48),
                Xdr.u32(b, at + 52),
                Xdr.u64(b, at + 56),
                Xdr.u32(b, at + 64),
                Xdr.u32(b, at + 68),
                Xdr.u32(b, at + 72),
                Xdr.u32(b, at + 76),
                Xdr.u32(b, at + 80),
                Xdr.u32(b, at + 84));
    }
}
