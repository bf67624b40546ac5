// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import java.util.Arrays;
import java.util.Random;

/** Structure-aware mutations of a datagram: bit flips, length fields, truncation, splices. */
public final class Mutator {

    private Mutator() {}

    /** A mutated copy of {@code in}; 1 to 4 mutations. */
    public static byte[] mutate(byte[] in, Random rnd) {
        byte[] b = in.clone();
        int n = 1 + rnd.nextInt(4);
        for (int i = 0; i < n; i++) {
            b = mutateOnce(b, rnd);
        }
        return b;
    }

    /**
     * 1 to 4 mutations of 4-byte-aligned words to values that matter in XDR (sFlow): lengths and
     * counts just below, at and above what is left, zero, one, the sign bit and all ones.
     */
    public static byte[] mutateWords(byte[] in, Random rnd) {
        byte[] b = in.clone();
        int n = 1 + rnd.nextInt(4);
        for (int i = 0; i < n && b.length >= 4; i++) {
            int at = rnd.nextInt(b.length / 4) * 4;
            int left = b.length - at;
            int[] v = {
                0,
                1,
                2,
                3,
                4,
                8,
                0x3fffffff,
                0x40000000,
                0x7fffffff,
                0x80000000,
                -1,
                left - 8,
                left - 4,
                left,
                left + 4,
                rnd.nextInt(64),
                rnd.nextInt()
            };
            int x = v[rnd.nextInt(v.length)];
            b[at] = (byte) (x >>> 24);
            b[at + 1] = (byte) (x >>> 16);
            b[at + 2] = (byte) (x >>> 8);
            b[at + 3] = (byte) x;
        }
        return b;
    }

    private static byte[] mutateOnce(byte[] b, Random rnd) {
        if (b.length == 0) {
            return new byte[] {(byte) rnd.nextInt()};
        }
        int p = rnd.nextInt(b.length);
        switch (rnd.nextInt(9)) {
            case 0:
                b[p] ^= (byte) (1 << rnd.nextInt(8));
                return b;
            case 1:
                b[p] = (byte) rnd.nextInt();
                return b;
            case 2: // an interesting 16-bit value at an even offset (lengths, counts, ids)
                int q = p & ~1;
                if (q + 1 < b.length) {
                    int[] v = {
                        0,
                        1,
                        2,
                        3,
                        4,
                        0xff,
                        0x100,
                        0x7fff,
                        0x8000,
                        0xfffe,
                        0xffff,
                        b.length,
                        b.length + 1
                    };
                    int x = v[rnd.nextInt(v.length)];
                    b[q] = (byte) (x >>> 8);
                    b[q + 1] = (byte) x;
                }
                return b;
            case 3:
                return Arrays.copyOf(b, p);
            case 4: // grow with zeros or random bytes
                byte[] g = Arrays.copyOf(b, b.length + 1 + rnd.nextInt(64));
                if (rnd.nextBoolean()) {
                    for (int i = b.length; i < g.length; i++) {
                        g[i] = (byte) rnd.nextInt();
                    }
                }
                return g;
            case 5: // delete a range
                int len = Math.min(b.length - p, 1 + rnd.nextInt(16));
                byte[] d = new byte[b.length - len];
                System.arraycopy(b, 0, d, 0, p);
                System.arraycopy(b, p + len, d, p, b.length - p - len);
                return d;
            case 6: // duplicate a range (repeated sets, template floods)
                int l = Math.min(b.length - p, 1 + rnd.nextInt(256));
                byte[] e = new byte[b.length + l];
                System.arraycopy(b, 0, e, 0, p + l);
                System.arraycopy(b, p, e, p + l, b.length - p);
                return e;
            case 7: // enterprise bit on a field id
                b[p] |= (byte) 0x80;
                return b;
            default: // 32-bit interesting value
                int r = p & ~3;
                if (r + 3 < b.length) {
                    int[] v = {0, -1, 0x7fffffff, 0x80000000, 1};
                    int x = v[rnd.nextInt(v.length)];
                    b[r] = (byte) (x >>> 24);
                    b[r + 1] = (byte) (x >>> 16);
                    b[r + 2] = (byte) (x >>> 8);
                    b[r + 3] = (byte) x;
                }
                return b;
        }
    }
}
