// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PrefixTableTest {

    /** The longest prefix holding {@code address}, the last of equal ones: the plain definition. */
    private static String bruteForce(List<Map.Entry<Prefix, String>> entries, byte[] address) {
        Prefix best = null;
        String value = null;
        for (Map.Entry<Prefix, String> e : entries) {
            Prefix p = e.getKey();
            if (p.contains(address) && (best == null || p.length() >= best.length())) {
                best = p;
                value = e.getValue();
            }
        }
        return value;
    }

    private static byte[] near(Random r, List<Map.Entry<Prefix, String>> entries, boolean v6) {
        // Half the addresses inside a random network of the table, so most lookups hit something.
        byte[] a = new byte[v6 ? 16 : 4];
        r.nextBytes(a);
        Prefix p = entries.get(r.nextInt(entries.size())).getKey();
        if (r.nextBoolean() && p.network().length == a.length) {
            byte[] n = p.network();
            for (int bit = 0; bit < p.length(); bit++) {
                int mask = 0x80 >>> (bit % 8);
                a[bit / 8] = (byte) ((a[bit / 8] & ~mask) | (n[bit / 8] & mask));
            }
        }
        return a;
    }

    @Test
    void longsAndBytesGiveTheLongestMatchOfEveryLength() {
        Random r = new Random(7);
        List<Map.Entry<Prefix, String>> entries = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            boolean v6 = i % 3 == 0;
            byte[] n = new byte[v6 ? 16 : 4];
            r.nextBytes(n);
            if (i % 7 == 0) {
                n[0] = 10; // nested networks in one place
            }
            entries.add(new SimpleEntry<>(new Prefix(n, r.nextInt(n.length * 8 + 1)), "n" + i));
        }
        entries.add(new SimpleEntry<>(new Prefix(new byte[4], 0), "v4 default"));
        PrefixTable<String> table = new PrefixTable<>(entries);
        for (int i = 0; i < 20_000; i++) {
            byte[] a = near(r, entries, i % 4 == 3);
            String expected = bruteForce(entries, a);
            assertThat(table.lookup(a)).as("%s", IpAddress.ofBytes(a)).isEqualTo(expected);
            IpAddress ip = IpAddress.ofBytes(a);
            String viaLongs =
                    ip.isIpv4()
                            ? table.lookupV4(ip.ipv4() & 0xffff_ffffL)
                            : table.lookupV6(ip.hi(), ip.lo());
            assertThat(viaLongs).isEqualTo(expected);
        }
    }

    @Test
    void aLaterEntryForTheSameNetworkWins() {
        Prefix p = Prefix.parse("2001:db8::/32");
        PrefixTable<String> t =
                new PrefixTable<>(
                        List.of(new SimpleEntry<>(p, "first"), new SimpleEntry<>(p, "second")));
        assertThat(t.lookupV6(0x2001_0db8_0000_0001L, 5)).isEqualTo("second");
        assertThat(t.lookupV6(0x2001_0db9_0000_0000L, 0)).isNull();
        assertThat(t.lookupV4(0x0a000001L)).isNull();
    }
}
