// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded mutations of the real NetFlow v5/v9 and IPFIX captures in {@code testdata/}: bit flips,
 * random bytes, 16-bit lengths and counts set to 0 or 0xffff, cuts and random tails, a slice of
 * another datagram pasted in. One in twenty is sent unchanged, so that templates are learned and
 * the mutated data sets after them reach the record decoder rather than stopping at a missing
 * template. Shared (the codec's test jar) by the job's and the fault suite's mutation tests.
 */
public final class CaptureMutator {

    public static final List<String> CAPTURES =
            List.of(
                    "netflow-v5-softflowd.pcap",
                    "netflow-v9-pmacct.pcap",
                    "netflow-v9-softflowd.pcap",
                    "netflow-v9-nfreplay.pcap",
                    "ipfix-pmacct.pcap",
                    "ipfix-softflowd.pcap",
                    "ipfix-biflow-softflowd.pcap");

    /** The sFlow v5 captures in {@code testdata/} (the pmacct one gzipped). */
    public static final List<String> SFLOW_CAPTURES =
            List.of("sflow-pmacct-rate1.pcap.gz", "sflow-ovs-rate10.pcap");

    private final List<byte[]> originals;
    private final SplittableRandom random;
    private long unchanged;

    public CaptureMutator(long seed) throws IOException {
        this(seed, CAPTURES);
    }

    /** Mutations of the datagrams of {@code captures} (file names in {@code testdata/}). */
    public CaptureMutator(long seed, List<String> captures) throws IOException {
        this.originals = new ArrayList<>();
        for (String c : captures) {
            for (CaptureDatagrams.Datagram d : CaptureDatagrams.datagrams(c)) {
                if (d.payload().length > 0) {
                    originals.add(d.payload());
                }
            }
        }
        this.random = new SplittableRandom(seed);
    }

    public int originals() {
        return originals.size();
    }

    /** How many of the datagrams handed out were sent unchanged. */
    public long unchanged() {
        return unchanged;
    }

    /** The next datagram: an original one time in twenty, else 1-4 mutations of one. */
    public byte[] next() {
        byte[] src = originals.get(random.nextInt(originals.size()));
        if (random.nextInt(20) == 0) {
            unchanged++;
            return src.clone();
        }
        byte[] b = src.clone();
        int n = 1 + random.nextInt(4);
        for (int i = 0; i < n && b.length > 0; i++) {
            b = mutate(b);
        }
        return b.length == 0 ? new byte[] {0} : b;
    }

    private byte[] mutate(byte[] b) {
        switch (random.nextInt(6)) {
            case 0 -> b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
            case 1 -> b[random.nextInt(b.length)] = (byte) random.nextInt(256);
            case 2 -> {
                // A length, count or id: the 16-bit words the walkers trust most.
                if (b.length >= 2) {
                    int at = random.nextInt(b.length / 2) * 2;
                    int v = random.nextBoolean() ? 0 : 0xffff;
                    b[at] = (byte) (v >>> 8);
                    b[at + 1] = (byte) v;
                }
            }
            case 3 -> {
                return java.util.Arrays.copyOf(b, random.nextInt(b.length));
            }
            case 4 -> {
                int extra = 1 + random.nextInt(64);
                byte[] longer = java.util.Arrays.copyOf(b, Math.min(b.length + extra, 9000));
                for (int i = b.length; i < longer.length; i++) {
                    longer[i] = (byte) random.nextInt(256);
                }
                return longer;
            }
            default -> {
                byte[] other = originals.get(random.nextInt(originals.size()));
                int len = Math.min(other.length, 1 + random.nextInt(32));
                int from = random.nextInt(other.length - len + 1);
                int to = random.nextInt(Math.max(1, b.length - len + 1));
                System.arraycopy(other, from, b, to, Math.min(len, b.length - to));
            }
        }
        return b;
    }
}
