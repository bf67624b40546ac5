// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

/**
 * The keyed state of one flow in the cache: counters and times only, never the packets, so a flow
 * costs the same whatever its length (about 100 bytes on the heap backend plus the key; see
 * BENCHMARKS-ageing.md). Mutable on purpose: the heap backend holds the object, and the ageing
 * function updates it in place and writes it back. Forward is the direction of the first packet.
 */
public final class ActiveFlow {

    /** First packet, epoch ms. */
    public long firstMillis;

    /** Last packet, epoch ms. */
    public long lastMillis;

    /** Forward packets. */
    public long packets;

    /** Forward IP octets. */
    public long bytes;

    /** Reverse packets (biflows). */
    public long reversePackets;

    /** Reverse IP octets (biflows). */
    public long reverseBytes;

    /** Source MAC of the first packet. */
    public long srcMac;

    /** Destination MAC of the first packet. */
    public long dstMac;

    /** When a TCP FIN or RST ends the flow, epoch ms; 0 while open. */
    public long endMillis;

    /** The event-time timer registered for this flow, epoch ms; 0 if none. */
    public long timerMillis;

    /** OR of the TCP flags of both directions. */
    public int tcpFlags;

    /** ToS / traffic class of the first packet. */
    public int tos;

    /** Source port of the first packet (ICMP: 0). */
    public int srcPort;

    /** Destination port of the first packet (ICMP: type*256+code). */
    public int dstPort;

    /** Whether the first packet came from endpoint A of the key (biflows: the initiator). */
    public boolean initiatorIsA;

    public ActiveFlow() {}
}
