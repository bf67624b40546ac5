// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class StaticRulesTest {

    private static final String RULES =
            """
            exporters:
              - prefix: 192.0.2.0/24
                region: eu
                tenant: acme
                interfaces:
                  - description-match: '^(transit|ix|pni)[:-]\\s*(\\S+)'
                    boundary: external
                    connectivity: $1
                    provider: $2
                  - description-match: '^core'
                    boundary: internal
              - prefix: 192.0.2.1/32
                name: edge1
                site: par1
                role: edge
                interfaces:
                  - if-index: 537
                    name: xe-0/0/1
                    speed: 10000
              - prefix: 192.0.2.0/24
                region: eu-west
                tenant: acme
                interfaces:
                  - description-match: '^(transit|ix|pni)[:-]\\s*(\\S+)'
                    boundary: external
                    connectivity: $1
                    provider: $2
                  - description-match: '^core'
                    boundary: internal
              - prefix: 2001:db8::/32
                name: v6-edges
            networks:
              - prefix: 203.0.113.0/24
                name: customers
                role: customer
                site: par1
                region: eu
                tenant: acme
              - prefix: 203.0.113.128/25
                name: big-customer
              - prefix: 0.0.0.0/0
                name: internet
              - prefix: 2001:db8:1::/48
                name: v6-lab
                role: lab
            """;

    private static byte[] ip(String s) throws Exception {
        return InetAddress.getByName(s).getAddress();
    }

    @Test
    void moreSpecificWinsAndInheritsWhatItLeavesUnsaid() throws Exception {
        StaticRules r = StaticRulesParser.parse(RULES);
        assertThat(r.network(ip("203.0.113.200")))
                .isEqualTo(new Attributes("big-customer", "customer", "par1", "eu", "acme"));
        assertThat(r.network(ip("203.0.113.5")).name()).isEqualTo("customers");
        assertThat(r.network(ip("198.51.100.1")))
                .isEqualTo(new Attributes("internet", "", "", "", ""));
        assertThat(r.network(ip("2001:db8:1::5")).role()).isEqualTo("lab");
        assertThat(r.network(ip("2001:db8:2::5"))).isEqualTo(Attributes.NONE);

        ExporterEntry edge1 = r.exporter(ip("192.0.2.1"));
        // The later /24 wins over the earlier one with the same prefix: region eu-west.
        assertThat(edge1.attributes())
                .isEqualTo(new Attributes("edge1", "edge", "par1", "eu-west", "acme"));
        assertThat(r.exporter(ip("192.0.2.9")).attributes().name()).isEmpty();
        assertThat(r.exporter(ip("192.0.3.1"))).isNull();
        assertThat(r.exporter(ip("2001:db8::1")).attributes().name()).isEqualTo("v6-edges");
        assertThat(r.exporterCount()).isEqualTo(3);
    }

    @Test
    void interfaceRulesOverrideAndClassify() throws Exception {
        ExporterEntry edge1 = StaticRulesParser.parse(RULES).exporter(ip("192.0.2.1"));
        InterfaceContext fromSnmp =
                new InterfaceContext(
                        "et-0/0/0", "transit: Cogent 1-2345", 0, Boundary.UNDEFINED, "", "");
        assertThat(edge1.classify(537, fromSnmp))
                .isEqualTo(
                        new InterfaceContext(
                                "xe-0/0/1",
                                "transit: Cogent 1-2345",
                                10000,
                                Boundary.EXTERNAL,
                                "Cogent",
                                "transit"));
        InterfaceContext core =
                new InterfaceContext("ae1", "core-to-par2", 100000, Boundary.UNDEFINED, "", "");
        assertThat(edge1.classify(12, core).boundary()).isEqualTo(Boundary.INTERNAL);
        assertThat(edge1.classify(12, core).name()).isEqualTo("ae1");
        assertThat(edge1.classify(12, InterfaceContext.UNKNOWN))
                .isEqualTo(InterfaceContext.UNKNOWN);
    }

    @Test
    void templatesTakeNamedGroups() throws Exception {
        ExporterEntry e =
                StaticRulesParser.parse(
                                """
                                exporters:
                                  - prefix: 10.0.0.0/8
                                    interfaces:
                                      - description-match: 'peer (?<who>\\w+)'
                                        provider: 'p-${who}-$9'
                                """)
                        .exporter(ip("10.1.2.3"));
        InterfaceContext c =
                e.classify(
                        1, new InterfaceContext("", "to peer HE", 0, Boundary.UNDEFINED, "", ""));
        assertThat(c.provider()).isEqualTo("p-HE-");
    }

    @Test
    void malformedFilesSayWhere() {
        assertThatThrownBy(() -> StaticRulesParser.parse("exporters:\n  - prefix: 10.0.0.0/33\n"))
                .hasMessageContaining("exporters[0].prefix")
                .hasMessageContaining("out of range");
        assertThatThrownBy(() -> StaticRulesParser.parse("networks:\n  - prefix: example.com\n"))
                .hasMessageContaining("networks[0].prefix: not an IP network");
        assertThatThrownBy(
                        () ->
                                StaticRulesParser.parse(
                                        "exporters:\n  - prefix: 10.0.0.0/8\n    interfaces:\n"
                                                + "      - boundary: outside\n"))
                .hasMessageContaining("exporters[0].interfaces[0].boundary outside");
        assertThatThrownBy(
                        () ->
                                StaticRulesParser.parse(
                                        "exporters:\n  - prefix: 10.0.0.0/8\n    interfaces:\n"
                                                + "      - description-match: '(('\n"))
                .hasMessageContaining("exporters[0].interfaces[0].description-match");
        assertThatThrownBy(
                        () ->
                                StaticRulesParser.parse(
                                        "networks:\n  - prefix: 10.0.0.0/8\n    nmae: x\n"))
                .hasMessageContaining("networks[0]: unknown key nmae");
        assertThatThrownBy(() -> StaticRulesParser.parse("exporter: []\n"))
                .hasMessageContaining("unknown key exporter");
        assertThatThrownBy(() -> StaticRulesParser.parse("networks:\n  - name: x\n"))
                .hasMessageContaining("networks[0]: prefix missing");
    }

    @Test
    void prefixes() {
        assertThat(Prefix.parse("10.1.2.3/8")).isEqualTo(Prefix.parse("10.0.0.0/8"));
        assertThat(Prefix.parse("10.0.0.0/8").covers(Prefix.parse("10.9.0.0/16"))).isTrue();
        assertThat(Prefix.parse("10.0.0.0/8").covers(Prefix.parse("::/0"))).isFalse();
        assertThat(Prefix.parse("2001:db8::1").length()).isEqualTo(128);
        assertThat(Prefix.parse("2001:db8::/33").toString()).isEqualTo("2001:db8:0:0:0:0:0:0/33");
    }
}
