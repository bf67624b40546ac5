// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.template.OptionsData;
import io.flowhouse.enrich.geo.AsnOrder;
import io.flowhouse.enrich.geo.GeoLookup;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.Boundary;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.enrich.rules.StaticRules;
import io.flowhouse.enrich.rules.StaticRulesParser;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EnricherTest {

    @TempDir Path tmp;

    private static final String V1 =
            """
            exporters:
              - prefix: 192.0.2.1/32
                name: edge1
                site: par1
                interfaces:
                  - description-match: '^transit (\\S+)'
                    boundary: external
                    provider: $1
            networks:
              - prefix: 203.0.113.0/24
                name: customers
                tenant: acme
            """;

    @Test
    void rulesOverSourcesAndNetworks() throws Exception {
        Path file = Files.writeString(tmp.resolve("rules.yaml"), V1);
        WatchedFile<StaticRules> rules =
                WatchedFile.open(
                        "enrichment rules", file, Duration.ofMillis(100), StaticRulesParser::read);
        LearnedInterfaces options = new LearnedInterfaces(16, 16);
        LearnedInterfaces snmp = new LearnedInterfaces(16, 16);
        InetAddress edge1 = InetAddress.getByName("192.0.2.1");
        InetAddress other = InetAddress.getByName("192.0.2.2");
        options.learn(edge1, 5, "ge-0/0/5", "transit Cogent");
        options.learn(edge1, 6, "ge-0/0/6", "options says");
        snmp.learn(edge1, 6, "", "transit Lumen");
        options.learn(other, 1, "eth1", "");
        Enricher e =
                new Enricher(
                        new CompositeDirectory(List.of(snmp, options)),
                        rules,
                        new GeoLookup(null, null, AsnOrder.EXPORTER_FIRST));
        FlowContext c =
                e.enrich(
                        edge1,
                        5,
                        6,
                        InetAddress.getByName("203.0.113.7"),
                        InetAddress.getByName("198.51.100.1"),
                        15169,
                        0,
                        System.nanoTime());
        assertThat(c.exporter()).isEqualTo(new Attributes("edge1", "", "par1", "", ""));
        assertThat(c.in())
                .isEqualTo(
                        new InterfaceContext(
                                "ge-0/0/5", "transit Cogent", 0, Boundary.EXTERNAL, "Cogent", ""));
        // SNMP's description wins over the options data's; the name still comes from options.
        assertThat(c.out().name()).isEqualTo("ge-0/0/6");
        assertThat(c.out().provider()).isEqualTo("Lumen");
        assertThat(c.srcNetwork().name()).isEqualTo("customers");
        assertThat(c.dstNetwork()).isEqualTo(Attributes.NONE);
        assertThat(c.srcAs()).isEqualTo(15169);
        assertThat(c.dstAs()).isZero();
        assertThat(c.srcCountry()).isEmpty();

        FlowContext o = e.enrich(other, 1, 0, edge1, edge1, 0, 0, System.nanoTime());
        assertThat(o.exporter()).isEqualTo(Attributes.NONE);
        assertThat(o.in().name()).isEqualTo("eth1");
        assertThat(o.out()).isEqualTo(InterfaceContext.UNKNOWN);

        // A malformed edit keeps the last good rules, with an error and a counter.
        Files.writeString(file, "exporters: [ {prefix: 192.0.2.1/40} ]\n");
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(5)));
        Thread.sleep(200);
        c = e.enrich(edge1, 5, 6, edge1, edge1, 0, 0, System.nanoTime());
        assertThat(c.exporter().name()).isEqualTo("edge1");
        assertThat(rules.loadErrors()).isEqualTo(1);
        assertThat(rules.lastError())
                .contains("rules.yaml")
                .contains("exporters[0].prefix")
                .contains("keeping the last good one");

        // A good edit is taken without a restart.
        Files.writeString(file, V1.replace("name: edge1", "name: edge1-par"));
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(10)));
        Thread.sleep(200);
        c = e.enrich(edge1, 5, 6, edge1, edge1, 0, 0, System.nanoTime());
        assertThat(c.exporter().name()).isEqualTo("edge1-par");
        assertThat(rules.loads()).isEqualTo(2);
        assertThat(rules.lastError()).isNull();
    }

    @Test
    void keptAnswersFollowTheSourcesAndRules() throws Exception {
        Path file = Files.writeString(tmp.resolve("rules.yaml"), V1);
        WatchedFile<StaticRules> rules =
                WatchedFile.open(
                        "enrichment rules", file, Duration.ofMillis(100), StaticRulesParser::read);
        LearnedInterfaces options = new LearnedInterfaces(16, 16);
        InetAddress a = InetAddress.getByName("10.0.0.1");
        InetAddress b = InetAddress.getByName("10.0.0.2");
        InetAddress customer = InetAddress.getByName("203.0.113.7");
        options.learn(a, 3, "a-three", "");
        options.learn(b, 3, "b-three", "");
        Enricher e =
                new Enricher(
                        new CompositeDirectory(List.of(options)),
                        rules,
                        new GeoLookup(null, null, AsnOrder.EXPORTER_FIRST));
        // Two exporters without a rules entry, the same ifIndex: each keeps its own name.
        for (int round = 0; round < 3; round++) {
            assertThat(e.enrich(a, 3, 0, customer, a, 0, 0, System.nanoTime()).in().name())
                    .isEqualTo("a-three");
            assertThat(e.enrich(b, 3, 0, customer, a, 0, 0, System.nanoTime()).in().name())
                    .isEqualTo("b-three");
        }
        // A name learned later replaces the kept one at once.
        options.learn(a, 3, "a-renamed", "");
        assertThat(e.enrich(a, 3, 0, customer, a, 0, 0, System.nanoTime()).in().name())
                .isEqualTo("a-renamed");
        assertThat(e.enrich(b, 3, 0, customer, a, 0, 0, System.nanoTime()).in().name())
                .isEqualTo("b-three");
        // A reloaded rules file changes the kept network of an address.
        assertThat(e.enrich(a, 3, 0, customer, a, 0, 0, System.nanoTime()).srcNetwork().name())
                .isEqualTo("customers");
        Files.writeString(file, V1.replace("name: customers", "name: clients"));
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(5)));
        Thread.sleep(200);
        assertThat(e.enrich(a, 3, 0, customer, a, 0, 0, System.nanoTime()).srcNetwork().name())
                .isEqualTo("clients");
    }

    @Test
    void learnedInterfacesAreBounded() throws Exception {
        LearnedInterfaces l = new LearnedInterfaces(2, 3);
        InetAddress a = InetAddress.getByName("10.0.0.1");
        for (int i = 0; i < 10; i++) {
            l.learn(a, i, "if" + i, "");
        }
        assertThat(l.size()).isEqualTo(3);
        assertThat(l.learn(a, 1, "renamed", "")).isTrue();
        assertThat(l.lookupInterface(a, 1).orElseThrow().name()).isEqualTo("renamed");
        l.learn(InetAddress.getByName("10.0.0.2"), 1, "x", "");
        assertThat(l.learn(InetAddress.getByName("10.0.0.3"), 1, "x", "")).isFalse();
        assertThat(l.dropped()).isEqualTo(8);
    }

    @Test
    void theObservedInterfaceNamesWhatNoOtherNameDoes() throws Exception {
        LearnedInterfaces l = new LearnedInterfaces(2, 3);
        InetAddress softflowd = InetAddress.getByName("10.0.0.1");
        InetAddress other = InetAddress.getByName("10.0.0.2");
        assertThat(l.learn(softflowd, OptionsData.OBSERVED_INTERFACE, "eth0", "")).isTrue();
        l.learn(softflowd, 7, "eth7", "");
        l.learn(other, 1, "xe-0/0/1", "");
        assertThat(l.lookupInterface(softflowd, 0).orElseThrow().name()).isEqualTo("eth0");
        assertThat(l.lookupInterface(softflowd, 3).orElseThrow().name()).isEqualTo("eth0");
        assertThat(l.lookupInterface(softflowd, 7).orElseThrow().name()).isEqualTo("eth7");
        assertThat(l.lookupInterface(other, 0)).isEmpty();
        // One entry against the bound, as any other.
        assertThat(l.size()).isEqualTo(3);
    }
}
