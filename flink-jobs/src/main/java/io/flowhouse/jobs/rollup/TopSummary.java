// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import java.util.Arrays;

/**
 * A bounded heavy-hitter summary of the talkers (or conversations) of one window: the Space-Saving
 * algorithm (Metwally, Agrawal, El Abbadi, "Efficient computation of frequent and top-k elements in
 * data streams", ICDT 2005) over byte counts, at most {@link #capacity} addresses whatever the
 * number of distinct ones.
 *
 * <p>While fewer than {@code capacity} distinct addresses were seen, every count is exact. After
 * that, an address not held takes the slot of the smallest entry and inherits its byte count as its
 * error: its {@link #bytes} is then an upper bound and {@code bytes - error} a lower bound of its
 * true bytes. The guarantees (for any order of the input): the byte counts add up to the total
 * bytes added; every address with more than {@code total / capacity} bytes is held; an entry's
 * error is at most {@code total / capacity}. Packets and flows are counted from the time the entry
 * took its slot (exact when its error is 0).
 *
 * <p>Entries are kept in primitive arrays (an address pair is four longs): an open-addressing index
 * from address pair to entry and a min-heap on bytes for the eviction, so an update costs one probe
 * and a sift, and nothing is allocated per update. Arrays grow by doubling up to the capacity.
 * Mutable and not thread-safe, as a window accumulator is.
 */
public final class TopSummary {

    private static final int INITIAL = 16;

    private final int capacity;
    private int size;
    private long[] srcHi;
    private long[] srcLo;
    private long[] dstHi;
    private long[] dstLo;
    private long[] bytes;
    private long[] packets;
    private long[] flows;
    private long[] error;

    /** Min-heap of entry numbers, ordered by bytes. */
    private int[] heap;

    /** Position of each entry in {@link #heap}. */
    private int[] heapPos;

    /** Open addressing: entry number + 1 per slot, 0 = empty; length a power of two. */
    private int[] index;

    /** Changed since the last {@link #markEmitted}. */
    private boolean dirty;

    public TopSummary(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException(
                    "top summary capacity " + capacity + " (expected: >= 1)");
        }
        this.capacity = capacity;
        allocate(Math.min(capacity, INITIAL));
    }

    public int capacity() {
        return capacity;
    }

    /** Addresses held. */
    public int size() {
        return size;
    }

    /** Whether anything was added since the last {@link #markEmitted}. */
    public boolean dirty() {
        return dirty;
    }

    public void markEmitted() {
        dirty = false;
    }

    /** Adds the traffic of one address pair (a talker: destination 0, 0). */
    public void add(long sHi, long sLo, long dHi, long dLo, long b, long p, long f) {
        dirty = true;
        int e = find(sHi, sLo, dHi, dLo);
        if (e >= 0) {
            bytes[e] = saturated(bytes[e], b);
            packets[e] = saturated(packets[e], p);
            flows[e] = saturated(flows[e], f);
            siftDown(heapPos[e]);
            return;
        }
        if (size < capacity) {
            if (size == bytes.length) {
                allocate(Math.min(capacity, size * 2));
            }
            e = size++;
            setKey(e, sHi, sLo, dHi, dLo);
            bytes[e] = b;
            packets[e] = p;
            flows[e] = f;
            error[e] = 0;
            insertIndex(e);
            heap[e] = e;
            heapPos[e] = e;
            siftUp(e);
            return;
        }
        // Full: the smallest entry's slot goes to the new address, which inherits its bytes.
        e = heap[0];
        removeIndex(e);
        setKey(e, sHi, sLo, dHi, dLo);
        long inherited = bytes[e];
        error[e] = inherited;
        bytes[e] = saturated(inherited, b);
        packets[e] = p;
        flows[e] = f;
        insertIndex(e);
        siftDown(0);
    }

    /**
     * The entry numbers of the {@code n} largest entries: more bytes first, ties by source then
     * destination address (unsigned), so the order does not depend on the input order.
     */
    public int[] top(int n) {
        int k = Math.min(n, size);
        if (k > SELECT_MAX) {
            return sortedTop(k);
        }
        // Every window of every shard ranks on firing: keep the k best in order in one pass
        // instead of sorting all entries (the order of a stable sort: ties keep entry order).
        int[] out = new int[k];
        int len = 0;
        for (int e = 0; e < size && k > 0; e++) {
            if (len == k) {
                if (compareEntries(e, out[k - 1]) >= 0) {
                    continue;
                }
                len--;
            }
            int i = len;
            while (i > 0 && compareEntries(e, out[i - 1]) < 0) {
                out[i] = out[i - 1];
                i--;
            }
            out[i] = e;
            len++;
        }
        return out;
    }

    /** Above this many ranks a full sort is cheaper than insertion into the ranks kept. */
    private static final int SELECT_MAX = 64;

    private int[] sortedTop(int k) {
        Integer[] all = new Integer[size];
        for (int i = 0; i < size; i++) {
            all[i] = i;
        }
        Arrays.sort(all, this::compareEntries);
        int[] out = new int[k];
        for (int i = 0; i < k; i++) {
            out[i] = all[i];
        }
        return out;
    }

    private int compareEntries(int a, int b) {
        int c = Long.compare(bytes[b], bytes[a]);
        if (c == 0) {
            c = Long.compareUnsigned(srcHi[a], srcHi[b]);
        }
        if (c == 0) {
            c = Long.compareUnsigned(srcLo[a], srcLo[b]);
        }
        if (c == 0) {
            c = Long.compareUnsigned(dstHi[a], dstHi[b]);
        }
        if (c == 0) {
            c = Long.compareUnsigned(dstLo[a], dstLo[b]);
        }
        return c;
    }

    public long srcHi(int e) {
        return srcHi[e];
    }

    public long srcLo(int e) {
        return srcLo[e];
    }

    public long dstHi(int e) {
        return dstHi[e];
    }

    public long dstLo(int e) {
        return dstLo[e];
    }

    public long bytes(int e) {
        return bytes[e];
    }

    public long packets(int e) {
        return packets[e];
    }

    public long flows(int e) {
        return flows[e];
    }

    public long error(int e) {
        return error[e];
    }

    /** A deep copy. */
    public TopSummary copy() {
        TopSummary c = new TopSummary(capacity);
        c.allocate(bytes.length);
        c.size = size;
        System.arraycopy(srcHi, 0, c.srcHi, 0, size);
        System.arraycopy(srcLo, 0, c.srcLo, 0, size);
        System.arraycopy(dstHi, 0, c.dstHi, 0, size);
        System.arraycopy(dstLo, 0, c.dstLo, 0, size);
        System.arraycopy(bytes, 0, c.bytes, 0, size);
        System.arraycopy(packets, 0, c.packets, 0, size);
        System.arraycopy(flows, 0, c.flows, 0, size);
        System.arraycopy(error, 0, c.error, 0, size);
        System.arraycopy(heap, 0, c.heap, 0, size);
        System.arraycopy(heapPos, 0, c.heapPos, 0, size);
        c.index = index.clone();
        c.dirty = dirty;
        return c;
    }

    /**
     * Entry {@code i} in heap order: entries restored in this order with {@link #restore} rebuild
     * the same heap.
     */
    int heapEntry(int i) {
        return heap[i];
    }

    /**
     * Appends an entry as read from a snapshot; entries must come in heap order ({@link
     * #heapEntry}).
     */
    void restore(long sHi, long sLo, long dHi, long dLo, long b, long p, long f, long err) {
        if (size == capacity) {
            throw new IllegalStateException("top summary snapshot holds more than " + capacity);
        }
        if (size == bytes.length) {
            allocate(Math.min(capacity, size * 2));
        }
        int e = size++;
        setKey(e, sHi, sLo, dHi, dLo);
        bytes[e] = b;
        packets[e] = p;
        flows[e] = f;
        error[e] = err;
        heap[e] = e;
        heapPos[e] = e;
        insertIndex(e);
    }

    /** Sets the changed-since-emitted flag as read from a snapshot. */
    void restoreDirty(boolean changed) {
        dirty = changed;
    }

    private void setKey(int e, long sHi, long sLo, long dHi, long dLo) {
        srcHi[e] = sHi;
        srcLo[e] = sLo;
        dstHi[e] = dHi;
        dstLo[e] = dLo;
    }

    private void allocate(int n) {
        srcHi = grow(srcHi, n);
        srcLo = grow(srcLo, n);
        dstHi = grow(dstHi, n);
        dstLo = grow(dstLo, n);
        bytes = grow(bytes, n);
        packets = grow(packets, n);
        flows = grow(flows, n);
        error = grow(error, n);
        heap = heap == null ? new int[n] : Arrays.copyOf(heap, n);
        heapPos = heapPos == null ? new int[n] : Arrays.copyOf(heapPos, n);
        int slots = Integer.highestOneBit(Math.max(2, n) * 2 - 1) * 2;
        if (index == null || index.length < slots) {
            index = new int[slots];
            for (int e = 0; e < size; e++) {
                insertIndex(e);
            }
        }
    }

    private static long[] grow(long[] a, int n) {
        return a == null ? new long[n] : Arrays.copyOf(a, n);
    }

    private static long saturated(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** A 64-bit mix of all 256 bits of an address pair (also spreads the shards). */
    static long hash(long sHi, long sLo, long dHi, long dLo) {
        long h = sHi * 0x9E3779B97F4A7C15L;
        h = (h ^ sLo) * 0xC2B2AE3D27D4EB4FL;
        h = (h ^ dHi) * 0x9E3779B97F4A7C15L;
        h = (h ^ dLo) * 0xC2B2AE3D27D4EB4FL;
        return h ^ (h >>> 32);
    }

    private int slotOf(long sHi, long sLo, long dHi, long dLo) {
        return (int) hash(sHi, sLo, dHi, dLo) & (index.length - 1);
    }

    private int find(long sHi, long sLo, long dHi, long dLo) {
        int mask = index.length - 1;
        for (int s = slotOf(sHi, sLo, dHi, dLo); ; s = (s + 1) & mask) {
            int v = index[s];
            if (v == 0) {
                return -1;
            }
            int e = v - 1;
            if (srcLo[e] == sLo && dstLo[e] == dLo && srcHi[e] == sHi && dstHi[e] == dHi) {
                return e;
            }
        }
    }

    private void insertIndex(int e) {
        int mask = index.length - 1;
        int s = slotOf(srcHi[e], srcLo[e], dstHi[e], dstLo[e]);
        while (index[s] != 0) {
            s = (s + 1) & mask;
        }
        index[s] = e + 1;
    }

    /** Removes entry {@code e} from the index (backward-shift deletion, no tombstones). */
    private void removeIndex(int e) {
        int mask = index.length - 1;
        int s = slotOf(srcHi[e], srcLo[e], dstHi[e], dstLo[e]);
        while (index[s] != e + 1) {
            s = (s + 1) & mask;
        }
        int hole = s;
        for (int t = (hole + 1) & mask; index[t] != 0; t = (t + 1) & mask) {
            int o = index[t] - 1;
            int home = slotOf(srcHi[o], srcLo[o], dstHi[o], dstLo[o]);
            // Move o into the hole when its home slot is not in (hole, t] (cyclically).
            boolean between = hole <= t ? (home > hole && home <= t) : (home > hole || home <= t);
            if (!between) {
                index[hole] = index[t];
                hole = t;
            }
        }
        index[hole] = 0;
    }

    private void siftUp(int i) {
        int e = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            int pe = heap[parent];
            if (bytes[pe] <= bytes[e]) {
                break;
            }
            heap[i] = pe;
            heapPos[pe] = i;
            i = parent;
        }
        heap[i] = e;
        heapPos[e] = i;
    }

    private void siftDown(int i) {
        int e = heap[i];
        while (true) {
            int child = 2 * i + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && bytes[heap[child + 1]] < bytes[heap[child]]) {
                child++;
            }
            int ce = heap[child];
            if (bytes[e] <= bytes[ce]) {
                break;
            }
            heap[i] = ce;
            heapPos[ce] = i;
            i = child;
        }
        heap[i] = e;
        heapPos[e] = i;
    }
}
