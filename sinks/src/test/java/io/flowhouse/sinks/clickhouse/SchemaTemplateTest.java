// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Capability detection, template rendering and the migration list, without a server. */
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
    void legacyRenderingUsesOnly18_16Syntax() {
        Migration v1 = Migration.loadAll().get(0);
        String sql =
                String.join("\n", v1.statements(new SchemaDialect("flowhouse", LEGACY, 30, 400)));
        assertThat(sql)
                .contains("CREATE TABLE IF NOT EXISTS flowhouse.flows")
                .contains("src_addr FixedString(16),")
                .contains("time_received DateTime,")
                .contains("ENGINE = ReplacingMergeTree")
                .contains("SETTINGS index_granularity = 8192")
                .doesNotContain("CODEC")
                .doesNotContain("TTL")
                .doesNotContain("IPv6,")
                .doesNotContain("${");
    }

    @Test
    void modernRenderingUsesModernTypesTtlAndCodecs() {
        String sql =
                String.join(
                        "\n",
                        Migration.loadAll()
                                .get(0)
                                .statements(new SchemaDialect("fh", MODERN, 15, 400)));
        assertThat(sql)
                .contains("src_addr IPv6 CODEC(ZSTD(1)),")
                .contains("time_received DateTime64(3) CODEC(DoubleDelta, LZ4),")
                .contains("bytes UInt64 CODEC(T64, LZ4),")
                .contains("TTL toDateTime(time_received) + INTERVAL 15 DAY")
                .contains("ttl_only_drop_parts = 1")
                .contains("non_replicated_deduplication_window = 1000");
        String view =
                String.join(
                        "\n",
                        Migration.loadAll()
                                .get(3)
                                .statements(new SchemaDialect("fh", MODERN, 15, 400)));
        assertThat(view).contains("toString(src_addr) AS src_ip");
        String legacyView =
                String.join(
                        "\n",
                        Migration.loadAll()
                                .get(3)
                                .statements(new SchemaDialect("fh", LEGACY, 15, 400)));
        assertThat(legacyView).contains("IPv6NumToString(src_addr) AS src_ip");
    }

    @Test
    void exporterStatsRebuildKeysOnVersionOnBothDialects() {
        Migration v5 = Migration.loadAll().get(4);
        assertThat(v5.name()).isEqualTo("exporter_stats_by_version");
        List<String> modern = v5.statements(new SchemaDialect("fh", MODERN, 15, 400));
        List<String> legacy = v5.statements(new SchemaDialect("fh", LEGACY, 15, 400));
        for (List<String> statements : List.of(modern, legacy)) {
            assertThat(statements).hasSize(5);
            assertThat(statements.get(0))
                    .startsWith("CREATE TABLE IF NOT EXISTS fh.exporter_stats_v005")
                    .contains("ENGINE = ReplacingMergeTree(updated_at)")
                    .contains(
                            "ORDER BY (exporter, exporter_port, observation_domain, version,"
                                    + " minute)");
            assertThat(statements.get(1))
                    .startsWith("INSERT INTO fh.exporter_stats_v005")
                    .endsWith("FROM fh.exporter_stats");
            assertThat(statements.get(2))
                    .isEqualTo(
                            "RENAME TABLE fh.exporter_stats TO fh.exporter_stats_v002,\n"
                                    + "    fh.exporter_stats_v005 TO fh.exporter_stats");
            assertThat(statements.subList(3, 5))
                    .containsExactly(
                            "DROP TABLE IF EXISTS fh.exporter_stats_v002",
                            "DROP TABLE IF EXISTS fh.exporter_stats_v005");
        }
        assertThat(modern.get(0))
                .contains("exporter IPv6,")
                .endsWith("TTL toDateTime(minute) + INTERVAL 400 DAY");
        assertThat(legacy.get(0))
                .contains("exporter FixedString(16),")
                .doesNotContain("TTL")
                .doesNotContain("${");
        // The copy names the columns in the order of V002's table, which are those of the encoder.
        String copy = legacy.get(1);
        String selected = copy.substring(copy.indexOf("SELECT") + 6, copy.indexOf("FROM"));
        assertThat(selected.replaceAll("\\s+", "").split(","))
                .containsExactlyElementsOf(ExporterStats.Encoder.COLUMNS);
    }

    @Test
    void zeroTtlMeansForeverAndUnknownPlaceholdersFail() {
        SchemaDialect d = new SchemaDialect("fh", MODERN, 0, 0);
        assertThat(d.render("x ${TTL_FLOWS} y")).isEqualTo("x  y");
        assertThatThrownBy(() -> d.render("${NOPE}")).hasMessageContaining("${NOPE}");
        assertThatThrownBy(() -> new SchemaDialect("bad-name; DROP", MODERN, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void statementsSplitOnLineEndingSemicolonsAndDropComments() {
        Migration m =
                new Migration(9, "t", "-- a comment;\nSELECT 1;\n\nSELECT ';' -- inline\n;\n");
        assertThat(m.statements(new SchemaDialect("fh", LEGACY, 0, 0)))
                .containsExactly("SELECT 1", "SELECT ';' -- inline");
    }

    @Test
    void migrationIndexListsEveryFileInOrder() throws IOException {
        List<Migration> all = Migration.loadAll();
        assertThat(all).extracting(Migration::version).containsExactly(1, 2, 3, 4, 5);
        Path dir = Path.of("src/main/resources/clickhouse/migrations");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(
                            files.map(p -> p.getFileName().toString())
                                    .filter(n -> n.endsWith(".sql"))
                                    .sorted())
                    .containsExactlyElementsOf(
                            all.stream()
                                    .map(
                                            m ->
                                                    String.format(
                                                            java.util.Locale.ROOT,
                                                            "V%03d__%s.sql",
                                                            m.version(),
                                                            m.name()))
                                    .toList());
        }
        assertThat(all.get(0).checksum())
                .hasSize(64)
                .isEqualTo(Migration.loadAll().get(0).checksum());
    }
}
