// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.generate;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.loadgen.profile.TrafficProfile;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlowGeneratorTest {

    private static final long NOW = 1_700_000_000_000L;
    private static final TrafficProfile PROFILE = TrafficProfile.defaults();

    @Test
    void sameSeedSameFlowsInAnyOrder() {
        FlowGenerator a = new FlowGenerator(PROFILE, 42);
        FlowGenerator b = new FlowGenerator(PROFILE, 42);
        for (int i = 999; i >= 0; i--) {
            assertThat(b.flow(3, i, NOW, true)).isEqualTo(a.flow(3, i, NOW, true));
        }
        assertThat(a.flow(0, 7, NOW, true)).isEqualTo(a.flow(0, 7, NOW, true));
    }

    @Test
    void differentSeedsDiffer() {
        FlowGenerator a = new FlowGenerator(PROFILE, 1);
        FlowGenerator b = new FlowGenerator(PROFILE, 2);
        int same = 0;
        for (int i = 0; i < 100; i++) {
            if (a.flow(0, i, NOW, true).equals(b.flow(0, i, NOW, true))) {
                same++;
            }
        }
        assertThat(same).isLessThan(5);
    }

    @Test
    void onlyDocumentationAddressesAndPrivateAsns() {
        FlowGenerator g = new FlowGenerator(PROFILE, 7);
        for (int i = 0; i < 20_000; i++) {
            FlowRecord f = g.flow(i % 5, i, NOW, true);
            assertThat(isDocumentation(f.srcAddr())).as("%s", f.srcAddr()).isTrue();
            assertThat(isDocumentation(f.dstAddr())).as("%s", f.dstAddr()).isTrue();
            assertThat(isDocumentation(f.nextHop())).isTrue();
            assertThat(f.srcAs()).isBetween(64_512L, 65_534L);
            assertThat(f.dstAs()).isBetween(64_512L, 65_534L);
            assertThat(f.srcAddr().isIpv4()).isEqualTo(f.ipVersion() == 4);
        }
    }

    @Test
    void countersTimesAndProtocolsAreRealistic() {
        FlowGenerator g = new FlowGenerator(PROFILE, 11);
        Map<Integer, Integer> protocols = new HashMap<>();
        int ipv6 = 0;
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            FlowRecord f = g.flow(0, i, NOW, true);
            protocols.merge(f.protocol(), 1, Integer::sum);
            if (f.ipVersion() == 6) {
                ipv6++;
            }
            assertThat(f.packets()).isBetween(1L, 1_000_000L);
            int min = (f.protocol() == 6 ? 40 : 28) + (f.ipVersion() == 6 ? 20 : 0);
            assertThat(f.bytes()).isBetween(f.packets() * min, f.packets() * 1500);
            assertThat(f.flowEndMillis()).isLessThanOrEqualTo(NOW);
            assertThat(f.flowEndMillis())
                    .isGreaterThanOrEqualTo(NOW - PROFILE.maxExportDelayMillis());
            assertThat(f.flowEndMillis() - f.flowStartMillis())
                    .isBetween(0L, PROFILE.activeTimeoutMillis());
            if (f.protocol() == 1 || f.protocol() == 58) {
                assertThat(f.srcPort()).isZero();
                assertThat(f.dstPort() >>> 8).isIn(8, 3, 128, 1);
            }
        }
        assertThat(protocols).containsKeys(6, 17, 1, 58);
        assertThat(protocols.get(6)).isGreaterThan(protocols.get(17) / 2);
        // 30 % IPv6 by default, within a generous margin of sampling noise.
        assertThat(ipv6).isBetween(n * 25 / 100, n * 35 / 100);
    }

    @Test
    void talkersFollowZipf() {
        FlowGenerator g = new FlowGenerator(PROFILE.withIpv6Share(0), 5);
        Map<IpAddress, Integer> servers = new HashMap<>();
        int n = 50_000;
        for (int i = 0; i < n; i++) {
            FlowRecord f = g.flow(0, i, NOW, false);
            IpAddress server = (f.srcAddr().ipv4() >>> 8) == 0xc00002 ? f.srcAddr() : f.dstAddr();
            servers.merge(server, 1, Integer::sum);
        }
        int top = servers.values().stream().max(Integer::compare).orElseThrow();
        // Rank 1 of a Zipf(1.1) over 500 servers holds about 19 % of the flows (252 addresses).
        assertThat(top).isGreaterThan(n / 10);
        assertThat(servers.size()).isGreaterThan(200);
    }

    @Test
    void ipv4OnlyWhenIpv6IsNotAllowed() {
        FlowGenerator g = new FlowGenerator(PROFILE.withIpv6Share(1.0), 3);
        for (int i = 0; i < 1000; i++) {
            assertThat(g.flow(0, i, NOW, false).ipVersion()).isEqualTo(4);
            assertThat(g.flow(0, i, NOW, true).ipVersion()).isEqualTo(6);
        }
    }

    @Test
    void zipfRanksAreSkewedAndBounded() {
        Zipf z = new Zipf(100, 1.0);
        assertThat(z.rank(0.0)).isZero();
        assertThat(z.rank(0.999_999)).isEqualTo(99);
        assertThat(z.probability(0)).isGreaterThan(z.probability(1));
        assertThat(z.probability(0) / z.probability(9))
                .isCloseTo(10.0, org.assertj.core.data.Offset.offset(1e-9));
    }

    private static boolean isDocumentation(IpAddress a) {
        if (a.isIpv4()) {
            int net = a.ipv4() >>> 8;
            return net == 0xc00002 || net == 0xc63364 || net == 0xcb0071;
        }
        return (a.hi() >>> 32) == 0x2001_0db8L;
    }
}
