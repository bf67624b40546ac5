// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.packet.FlowHash;
import io.flowhouse.codec.packet.PacketSummary;
import java.util.Arrays;

/**
 * The flows of one bucket of the bucketed flow table ({@link BucketedFlowAgeingFunction}): a
 * compact open-addressing hash table over primitive arrays, no object per flow.
 *
 * <p>Flows sit densely in slots {@code 0 .. size - 1} of two strided arrays ({@link #LONGS} longs
 * and {@link #INTS} ints per flow: key, times, counters); {@code index} is a linear-probing table
 * of slot numbers + 1 (0 empty), at most 3/4 full. Removing a flow moves the last slot into its
 * place, so the slots stay dense and iteration stays in a deterministic order (a function of the
 * sequence of inserts and removals only). About 128 bytes per flow plus the index and the growth
 * slack; see BENCHMARKS-ageing.md.
 *
 * <p>Mutable on purpose, as {@link ActiveFlow}: the heap backend holds the object, the ageing
 * function updates it in place and writes it back; {@link FlowTableSerializer#copy} is deep, for
 * the heap backend's copy-on-write snapshots.
 */
public final class FlowTable {

    /** Long fields of a flow, offsets within its stride of {@link #LONGS}. */
    static final int A_HI = 0;

    static final int A_LO = 1;
    static final int B_HI = 2;
    static final int B_LO = 3;

    /** First and last packet, epoch ms. */
    static final int FIRST = 4;

    static final int LAST = 5;

    /** When a TCP FIN or RST ends the flow, epoch ms; 0 while open. */
    static final int END = 6;

    /** Forward and reverse packets and IP octets. */
    static final int PACKETS = 7;

    static final int BYTES = 8;
    static final int REVERSE_PACKETS = 9;
    static final int REVERSE_BYTES = 10;

    /** MACs of the first packet. */
    static final int SRC_MAC = 11;

    static final int DST_MAC = 12;

    static final int LONGS = 13;

    /** Int fields of a flow, offsets within its stride of {@link #INTS}. */
    static final int HASH = 0;

    /** Endpoint A port in bits 16..31, endpoint B port in bits 0..15. */
    static final int PORTS = 1;

    /** VLANs (outer in bits 12..23, inner in 0..11) and the protocol in bits 24..31. */
    static final int VLANS_PROTOCOL = 2;

    static final int INTERFACE = 3;

    /** TCP flags (OR of both directions) in bits 0..15, ToS in 16..23, initiator is A in 24. */
    static final int META = 4;

    /** Destination port of the first packet (ICMP: type*256+code), for portless biflow keys. */
    static final int FIRST_DST_PORT = 5;

    static final int INTS = 6;

    static final int INITIATOR_IS_A = 1 << 24;

    private static final int MIN_CAPACITY = 4;

    long[] longs;
    int[] ints;
    private int[] index;
    int size;

    /** The event-time timer registered for this bucket (its earliest deadline), ms; 0 if none. */
    long timerMillis;

    public FlowTable() {
        this(MIN_CAPACITY);
    }

    FlowTable(int capacity) {
        int c = Math.max(MIN_CAPACITY, capacity);
        longs = new long[c * LONGS];
        ints = new int[c * INTS];
        index = new int[indexLength(c)];
    }

    /** A deep copy. */
    FlowTable copy() {
        FlowTable t = new FlowTable(0);
        t.longs = longs.clone();
        t.ints = ints.clone();
        t.index = index.clone();
        t.size = size;
        t.timerMillis = timerMillis;
        return t;
    }

    public int size() {
        return size;
    }

    /** The slot of the flow with key {@code k}, or -1. */
    int find(Key k) {
        int mask = index.length - 1;
        for (int i = k.hash & mask; ; i = (i + 1) & mask) {
            int e = index[i];
            if (e == 0) {
                return -1;
            }
            int s = e - 1;
            int io = s * INTS;
            int lo = s * LONGS;
            if (ints[io + HASH] == k.hash
                    && longs[lo + A_LO] == k.aLo
                    && longs[lo + B_LO] == k.bLo
                    && ints[io + PORTS] == k.ports
                    && longs[lo + A_HI] == k.aHi
                    && longs[lo + B_HI] == k.bHi
                    && ints[io + VLANS_PROTOCOL] == k.vlansProtocol
                    && ints[io + INTERFACE] == k.interfaceIndex) {
                return s;
            }
        }
    }

    /** Adds a flow with key {@code k} (not present) and zero times and counters; its slot. */
    int insert(Key k) {
        if (size * LONGS == longs.length) {
            resize(size + Math.max(MIN_CAPACITY, size >> 1));
        }
        int s = size++;
        int lo = s * LONGS;
        Arrays.fill(longs, lo, lo + LONGS, 0L);
        longs[lo + A_HI] = k.aHi;
        longs[lo + A_LO] = k.aLo;
        longs[lo + B_HI] = k.bHi;
        longs[lo + B_LO] = k.bLo;
        int io = s * INTS;
        ints[io + HASH] = k.hash;
        ints[io + PORTS] = k.ports;
        ints[io + VLANS_PROTOCOL] = k.vlansProtocol;
        ints[io + INTERFACE] = k.interfaceIndex;
        ints[io + META] = 0;
        ints[io + FIRST_DST_PORT] = 0;
        place(s);
        return s;
    }

    /** Removes the flow in slot {@code s}; the last flow moves into slot {@code s}. */
    void remove(int s) {
        unplace(s);
        int last = --size;
        if (s != last) {
            System.arraycopy(longs, last * LONGS, longs, s * LONGS, LONGS);
            System.arraycopy(ints, last * INTS, ints, s * INTS, INTS);
            int mask = index.length - 1;
            int i = ints[s * INTS + HASH] & mask;
            while (index[i] != last + 1) {
                i = (i + 1) & mask;
            }
            index[i] = s + 1;
        }
        int capacity = longs.length / LONGS;
        if (capacity > 4 * MIN_CAPACITY && size < capacity >> 2) {
            resize(size * 2);
        }
    }

    /** Puts slot {@code s} into the index. */
    private void place(int s) {
        int mask = index.length - 1;
        int i = ints[s * INTS + HASH] & mask;
        while (index[i] != 0) {
            i = (i + 1) & mask;
        }
        index[i] = s + 1;
    }

    /** Takes slot {@code s} out of the index (backward-shift deletion, no tombstones). */
    private void unplace(int s) {
        int mask = index.length - 1;
        int i = ints[s * INTS + HASH] & mask;
        while (index[i] != s + 1) {
            i = (i + 1) & mask;
        }
        int hole = i;
        for (int j = (hole + 1) & mask; index[j] != 0; j = (j + 1) & mask) {
            int home = ints[(index[j] - 1) * INTS + HASH] & mask;
            // Move entry j back into the hole unless its home lies cyclically in (hole, j].
            if (((j - home) & mask) >= ((j - hole) & mask)) {
                index[hole] = index[j];
                hole = j;
            }
        }
        index[hole] = 0;
    }

    private void resize(int capacity) {
        int c = Math.max(MIN_CAPACITY, capacity);
        longs = Arrays.copyOf(longs, c * LONGS);
        ints = Arrays.copyOf(ints, c * INTS);
        reindex();
    }

    /** Rebuilds the index for the capacity of the arrays. */
    void reindex() {
        index = new int[indexLength(longs.length / LONGS)];
        for (int s = 0; s < size; s++) {
            place(s);
        }
    }

    /** Power of two, at most 3/4 full at {@code capacity} flows. */
    private static int indexLength(int capacity) {
        int min = capacity + (capacity + 2) / 3;
        return Integer.highestOneBit(min - 1) << 1;
    }

    /** Bucket of a flow hash: its high 32 bits modulo {@code buckets}. */
    static int bucket(long hash, int buckets) {
        return (int) Long.remainderUnsigned(hash >>> 32, buckets);
    }

    static long hash(long aHi, long aLo, long bHi, long bLo, int ports, int vlansProto, int ifc) {
        long h = mix(0x9E3779B97F4A7C15L, aHi);
        h = mix(h, aLo);
        h = mix(h, bHi);
        h = mix(h, bLo);
        h = mix(h, ((long) ports << 32) | (vlansProto & 0xffff_ffffL));
        h = mix(h, ifc);
        // Murmur3 finalizer: every input bit reaches both halves (bucket and index position).
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }

    private static long mix(long h, long v) {
        return Long.rotateLeft((h ^ v) * 0xBF58476D1CE4E5B9L, 27);
    }

    /**
     * The flow key of a packet as flat fields (a scratch object, reused per packet), the same key
     * as {@link PacketFlowKeySelector}: per direction for uniflows, endpoints ordered for biflows.
     */
    static final class Key {
        long aHi;
        long aLo;
        long bHi;
        long bLo;
        int ports;
        int vlansProtocol;
        int interfaceIndex;

        /** Whether the packet came from endpoint A (always for uniflows). */
        boolean fromA;

        /** {@link FlowTable#hash} of the key. */
        long hash64;

        /** Its low 32 bits, for the index. */
        int hash;

        Key set(PacketSummary p, boolean biflow) {
            long sHi = p.srcAddr().hi();
            long sLo = p.srcAddr().lo();
            long dHi = p.dstAddr().hi();
            long dLo = p.dstAddr().lo();
            int sPort = p.srcPort();
            int dPort = p.dstPort();
            if (biflow && PacketFlowKey.portless(p.protocol())) {
                sPort = 0;
                dPort = 0;
            }
            fromA = !biflow || PacketFlowKeySelector.sourceIsA(sHi, sLo, sPort, dHi, dLo, dPort);
            if (fromA) {
                aHi = sHi;
                aLo = sLo;
                bHi = dHi;
                bLo = dLo;
                ports = (sPort << 16) | dPort;
            } else {
                aHi = dHi;
                aLo = dLo;
                bHi = sHi;
                bLo = sLo;
                ports = (dPort << 16) | sPort;
            }
            vlansProtocol =
                    FlowHash.vlanKey(p.outerVlan() & 0xfff, p.innerVlan() & 0xfff)
                            | (p.protocol() << 24);
            interfaceIndex = p.interfaceIndex();
            hash64 = FlowTable.hash(aHi, aLo, bHi, bLo, ports, vlansProtocol, interfaceIndex);
            hash = (int) hash64;
            return this;
        }
    }
}
