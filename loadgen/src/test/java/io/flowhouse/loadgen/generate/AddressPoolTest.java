// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.loadgen.profile.TrafficProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AddressPoolTest {

    private static final long NOW = 1_700_000_000_000L;

    @TempDir Path tmp;

    @Test
    void hostsLieInThePrefixesAndCarryTheirAs() throws Exception {
        Path file = tmp.resolve("prefixes.txt");
        Files.write(
                file,
                List.of(
                        "# real networks",
                        "8.8.8.0/24 15169",
                        "1.1.1.0/24 13335",
                        "193.0.0.0/21 3333   # RIPE NCC",
                        "2a00:1450:4001::/48 15169",
                        "2606:4700::/32 13335"));
        AddressPool pool = AddressPool.read(file);
        assertThat(pool.size()).isEqualTo(5);
        Map<String, Long> asOfNet =
                Map.of("8.8.8", 15169L, "1.1.1", 13335L, "193.0.0", 3333L, "193.0.1", 3333L);
        FlowGenerator g = new FlowGenerator(TrafficProfile.defaults(), 7, pool);
        Set<Long> seen = new HashSet<>();
        Map<Integer, Integer> versions = new HashMap<>();
        for (int i = 0; i < 20_000; i++) {
            FlowRecord f = g.flow(i % 4, i, NOW, true);
            versions.merge(f.ipVersion(), 1, Integer::sum);
            check(f.srcAddr(), f.srcAs(), asOfNet);
            check(f.dstAddr(), f.dstAs(), asOfNet);
            seen.add(f.srcAs());
        }
        assertThat(seen).containsExactlyInAnyOrder(15169L, 13335L, 3333L);
        assertThat(versions.get(6)).isGreaterThan(1000);
        // Same seed, same flows.
        FlowGenerator again = new FlowGenerator(TrafficProfile.defaults(), 7, pool);
        assertThat(again.flow(1, 123, NOW, true)).isEqualTo(g.flow(1, 123, NOW, true));
    }

    private static void check(IpAddress a, long as, Map<String, Long> asOfNet) {
        if (a.isIpv4()) {
            String text = a.toString();
            String net = text.substring(0, text.lastIndexOf('.'));
            assertThat(asOfNet).as(text).containsKey(net);
            assertThat(as).as(text).isEqualTo(asOfNet.get(net));
            int host = a.ipv4() & 0xff;
            assertThat(host).as(text).isBetween(1, 254);
        } else {
            long hi = a.hi();
            boolean google = (hi & 0xffff_ffff_ffff_0000L) == 0x2a00_1450_4001_0000L;
            boolean cloudflare = (hi >>> 32) == 0x2606_4700L;
            assertThat(google || cloudflare).as(a.toString()).isTrue();
            assertThat(as).isEqualTo(google ? 15169L : 13335L);
        }
    }

    @Test
    void v5FlowsLeaveA32BitAsToTheDatabase() throws Exception {
        Path file = tmp.resolve("wide.txt");
        Files.write(file, List.of("45.9.148.0/22 213780", "8.8.8.0/24 15169"));
        FlowGenerator g =
                new FlowGenerator(
                        TrafficProfile.defaults().withIpv6Share(0), 3, AddressPool.read(file));
        Set<Long> v5 = new HashSet<>();
        Set<Long> ipfix = new HashSet<>();
        for (int i = 0; i < 2_000; i++) {
            v5.add(g.flow(0, i, NOW, false).srcAs());
            ipfix.add(g.flow(1, i, NOW, true).srcAs());
        }
        assertThat(v5).containsExactlyInAnyOrder(0L, 15169L);
        assertThat(ipfix).containsExactlyInAnyOrder(213780L, 15169L);
    }

    @Test
    void badLinesNameTheirPlace() throws Exception {
        Path file = tmp.resolve("bad.txt");
        Files.write(file, List.of("8.8.8.0/24 15169", "8.8.8.0/33"));
        assertThatThrownBy(() -> AddressPool.read(file))
                .hasMessageContaining("line 2")
                .hasMessageContaining("8.8.8.0/33");
        Files.write(file, List.of("2606:4700::/32 13335"));
        assertThatThrownBy(() -> AddressPool.read(file)).hasMessageContaining("no IPv4 prefix");
    }
}
