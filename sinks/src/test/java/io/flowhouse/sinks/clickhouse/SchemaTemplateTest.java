// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Capability detection and template rendering, without a server. */
class SchemaTemplateTest {

    private static final ServerCapabilities LEGACY = ServerCapabilities.legacy("18.16.1");
    private static final ServerCapabilities MODERN = ServerCapabilities.modern("24.8.4.13");

    @Test
    void probeOf18_16IsLegacy() {
        ServerCapabilities c =
                ServerCapabilities.fromProbeLines(
                        List.of(
                                "version\t18.16.1",
                                "type:LowCardinality\t1",
                                "setting:allow_experimental_low_cardinality_type\t1"));
        assertThat(c).isEqualTo(LEGACY);
        assertThat(c.isModern()).isFalse();
    }

    @Test
    void probeOfACurrentServerIsModern() {
        ServerCapabilities c =
                ServerCapabilities.fromProbe(
                        Map.of(
                                "version", "24.8.4.13",
                                "type:IPv6", "1",
                                "type:DateTime64", "1",
                                "type:LowCardinality", "1",
                                "setting:insert_deduplication_token", "1",
                                "setting:allow_experimental_low_cardinality_type", "1",
                                "mt:non_replicated_deduplication_window", "1",
                                "mt:ttl_only_drop_parts", "1"));
        assertThat(c).isEqualTo(MODERN);
        assertThat(ServerCapabilities.majorMinor("24.8.4.13")).containsExactly(24, 8);
        assertThat(ServerCapabilities.majorMinor("garbage")).containsExactly(0, 0);
    }

    @Test
    void zeroTtlMeansForeverAndUnknownPlaceholdersFail() {
        SchemaDialect d =
                new SchemaDialect(
                        "fh", MODERN, Map.of("FLOWS", new SchemaDialect.Ttl("time_received", 0)));
        assertThat(d.render("x ${TTL_FLOWS} y")).isEqualTo("x  y");
        assertThatThrownBy(() -> d.render("${NOPE}")).hasMessageContaining("${NOPE}");
        assertThatThrownBy(() -> new SchemaDialect("bad-name; DROP", MODERN))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void statementsSplitOnLineEndingSemicolonsAndDropComments() {
        Migration m =
                new Migration(9, "t", "-- a comment;\nSELECT 1;\n\nSELECT ';' -- inline\n;\n");
        assertThat(m.statements(new SchemaDialect("fh", LEGACY)))
                .containsExactly("SELECT 1", "SELECT ';' -- inline");
    }
}
