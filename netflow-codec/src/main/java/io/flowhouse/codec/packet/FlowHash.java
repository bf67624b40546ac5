// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.packet;

/**
 * An order-independent hash of a packet's flow key (VLANs, protocol, both endpoints), so that both
 * directions of a flow land in the same {@code packets.raw} partition.
 *
 * <p>Algorithm (version 1, other languages must do the same to co-partition): order the two
 * endpoints (address as two unsigned 64-bit halves, then port) so the smaller comes first; for ICMP
 * (1) and ICMPv6 (58) both ports count as 0, since echo request and reply carry different types.
 * Then fold the values {@code lowHi, lowLo, lowPort, highHi, highLo, highPort, protocol,
 * outerVlan<<12|innerVlan} into {@code h = 0x9E3779B97F4A7C15} with {@code h = (h ^ v) *
 * 0xBF58476D1CE4E5B9; h ^= h >>> 31}, and return the low 32 bits of {@code h ^ (h >>> 32)}.
 */
public final class FlowHash {

    private static final long SEED = 0x9E3779B97F4A7C15L;
    private static final long MULTIPLIER = 0xBF58476D1CE4E5B9L;

    private FlowHash() {}

    public static int of(PacketSummary s) {
        return of(
                s.srcAddr().hi(),
                s.srcAddr().lo(),
                s.srcPort(),
                s.dstAddr().hi(),
                s.dstAddr().lo(),
                s.dstPort(),
                s.protocol(),
                vlanKey(s.outerVlan(), s.innerVlan()));
    }

    public static int of(
            long srcHi,
            long srcLo,
            int srcPort,
            long dstHi,
            long dstLo,
            int dstPort,
            int protocol,
            int vlanKey) {
        if (protocol == 1 || protocol == 58) {
            srcPort = 0;
            dstPort = 0;
        }
        int c = Long.compareUnsigned(srcHi, dstHi);
        if (c == 0) {
            c = Long.compareUnsigned(srcLo, dstLo);
        }
        if (c == 0) {
            c = Integer.compare(srcPort, dstPort);
        }
        long h = SEED;
        if (c <= 0) {
            h = mix(h, srcHi);
            h = mix(h, srcLo);
            h = mix(h, srcPort);
            h = mix(h, dstHi);
            h = mix(h, dstLo);
            h = mix(h, dstPort);
        } else {
            h = mix(h, dstHi);
            h = mix(h, dstLo);
            h = mix(h, dstPort);
            h = mix(h, srcHi);
            h = mix(h, srcLo);
            h = mix(h, srcPort);
        }
        h = mix(h, protocol);
        h = mix(h, vlanKey);
        return (int) (h ^ (h >>> 32));
    }

    /** The VLAN part of the key: {@code outerVlan << 12 | innerVlan}. */
    public static int vlanKey(int outerVlan, int innerVlan) {
        return (outerVlan << 12) | innerVlan;
    }

    private static long mix(long h, long v) {
        h = (h ^ v) * MULTIPLIER;
        return h ^ (h >>> 31);
    }

    /** The partition for a hash: non-negative modulo, as the agent assigns it. */
    public static int partition(int hash, int partitions) {
        return Math.floorMod(hash, partitions);
    }
}
