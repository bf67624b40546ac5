// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.jobs.stats.ExporterStatsRowEncoder;
import io.flowhouse.sinks.clickhouse.Migration;
import io.flowhouse.sinks.clickhouse.SchemaDialect;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The job's migrations rendered for both dialects, and their list, without a server. */
class MigrationTemplatesTest {

    private static final ServerCapabilities LEGACY = ServerCapabilities.legacy("18.16.1");
    private static final ServerCapabilities MODERN = ServerCapabilities.modern("24.8.4.13");

    private static List<Migration> loadAll() {
        return ClickHouseTestSupport.SCHEMA.load();
    }

    private static SchemaDialect dialect(
            String db, ServerCapabilities caps, int flowsTtlDays, int statsTtlDays) {
        return new SchemaDialect(db, caps, JobSchema.ttls(flowsTtlDays, statsTtlDays));
    }

    @Test
    void legacyRenderingUsesOnly18_16Syntax() {
        Migration v1 = loadAll().get(0);
        String sql = String.join("\n", v1.statements(dialect("flowhouse", LEGACY, 30, 400)));
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
        String sql = String.join("\n", loadAll().get(0).statements(dialect("fh", MODERN, 15, 400)));
        assertThat(sql)
                .contains("src_addr IPv6 CODEC(ZSTD(1)),")
                .contains("time_received DateTime64(3) CODEC(DoubleDelta, LZ4),")
                .contains("bytes UInt64 CODEC(T64, LZ4),")
                .contains("TTL toDateTime(time_received) + INTERVAL 15 DAY")
                .contains("ttl_only_drop_parts = 1")
                .contains("non_replicated_deduplication_window = 1000");
        String view =
                String.join("\n", loadAll().get(3).statements(dialect("fh", MODERN, 15, 400)));
        assertThat(view).contains("toString(src_addr) AS src_ip");
        String legacyView =
                String.join("\n", loadAll().get(3).statements(dialect("fh", LEGACY, 15, 400)));
        assertThat(legacyView).contains("IPv6NumToString(src_addr) AS src_ip");
    }

    @Test
    void exporterStatsRebuildKeysOnVersionOnBothDialects() {
        Migration v5 = loadAll().get(4);
        assertThat(v5.name()).isEqualTo("exporter_stats_by_version");
        List<String> modern = v5.statements(dialect("fh", MODERN, 15, 400));
        List<String> legacy = v5.statements(dialect("fh", LEGACY, 15, 400));
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
        // The copy names the columns in the order of V002's table, which are those of the encoder
        // but for the ones later migrations added (V006: duplicate_datagrams; V008: lost_samples,
        // sample_drops; V010: exporter_name).
        String copy = legacy.get(1);
        String selected = copy.substring(copy.indexOf("SELECT") + 6, copy.indexOf("FROM"));
        assertThat(selected.replaceAll("\\s+", "").split(","))
                .containsExactlyElementsOf(
                        ExporterStatsRowEncoder.COLUMNS.stream()
                                .filter(
                                        c ->
                                                !List.of(
                                                                "duplicate_datagrams",
                                                                "lost_samples",
                                                                "sample_drops",
                                                                "exporter_name")
                                                        .contains(c))
                                .toList());
    }

    @Test
    void exporterStatsNameOnBothDialects() {
        Migration v10 = loadAll().get(9);
        assertThat(v10.name()).isEqualTo("exporter_stats_exporter_name");
        assertThat(v10.statements(dialect("fh", MODERN, 15, 400)))
                .containsExactly(
                        "ALTER TABLE fh.exporter_stats ADD COLUMN exporter_name"
                                + " LowCardinality(String) AFTER version");
        assertThat(v10.statements(dialect("fh", LEGACY, 15, 400)))
                .containsExactly(
                        "ALTER TABLE fh.exporter_stats ADD COLUMN exporter_name String AFTER"
                                + " version");
    }

    @Test
    void flowsContextOnBothDialectsWithTheEncodersColumns() {
        Migration v9 = loadAll().get(8);
        assertThat(v9.name()).isEqualTo("flows_context");
        List<String> modern = v9.statements(dialect("fh", MODERN, 15, 400));
        List<String> legacy = v9.statements(dialect("fh", LEGACY, 15, 400));
        assertThat(modern.get(0))
                .isEqualTo(
                        "ALTER TABLE fh.flows ADD COLUMN exporter_name LowCardinality(String)"
                                + " AFTER exported_flow_end");
        assertThat(legacy.get(0))
                .isEqualTo(
                        "ALTER TABLE fh.flows ADD COLUMN exporter_name String"
                                + " AFTER exported_flow_end");
        // One ADD COLUMN per context column the encoder writes, in its order.
        List<String> added =
                legacy.stream()
                        .filter(st -> st.startsWith("ALTER TABLE fh.flows ADD COLUMN "))
                        .map(st -> st.split(" ")[5])
                        .toList();
        assertThat(added).containsExactlyElementsOf(EnrichedFlowRowEncoder.CONTEXT_COLUMNS);
        assertThat(String.join("\n", legacy))
                .contains("CREATE TABLE IF NOT EXISTS fh.as_names")
                .contains("CREATE VIEW IF NOT EXISTS fh.flows_readable")
                .doesNotContain("${");
    }

    @Test
    void flowsVrfOnBothDialectsWithTheEncodersColumns() {
        Migration v11 = loadAll().get(10);
        assertThat(v11.name()).isEqualTo("flows_vrf");
        List<String> modern = v11.statements(dialect("fh", MODERN, 15, 400));
        List<String> legacy = v11.statements(dialect("fh", LEGACY, 15, 400));
        assertThat(modern.subList(0, 4))
                .containsExactly(
                        "ALTER TABLE fh.flows ADD COLUMN in_vrf_id UInt32 AFTER dst_net_tenant",
                        "ALTER TABLE fh.flows ADD COLUMN out_vrf_id UInt32 AFTER in_vrf_id",
                        "ALTER TABLE fh.flows ADD COLUMN in_vrf_name LowCardinality(String)"
                                + " AFTER out_vrf_id",
                        "ALTER TABLE fh.flows ADD COLUMN out_vrf_name LowCardinality(String)"
                                + " AFTER in_vrf_name");
        assertThat(legacy.get(2))
                .isEqualTo("ALTER TABLE fh.flows ADD COLUMN in_vrf_name String AFTER out_vrf_id");
        // The ids are the flow encoder's last columns, the names the enriched encoder's.
        List<String> flowColumns = FlowRowEncoder.COLUMNS;
        assertThat(flowColumns.subList(flowColumns.size() - 2, flowColumns.size()))
                .containsExactly("in_vrf_id", "out_vrf_id");
        assertThat(EnrichedFlowRowEncoder.VRF_NAME_COLUMNS)
                .containsExactly("in_vrf_name", "out_vrf_name");
        assertThat(String.join("\n", legacy))
                .contains("CREATE VIEW IF NOT EXISTS fh.flows_readable")
                .contains("out_vrf_name")
                .doesNotContain("${");
    }

    @Test
    void interfaceCountersOnBothDialectsWithTheEncodersColumns() {
        Migration v7 = loadAll().get(6);
        assertThat(v7.name()).isEqualTo("interface_counters");
        String modern = String.join("\n", v7.statements(dialect("fh", MODERN, 15, 400)));
        String legacy = String.join("\n", v7.statements(dialect("fh", LEGACY, 15, 400)));
        assertThat(modern)
                .startsWith("CREATE TABLE IF NOT EXISTS fh.interface_counters")
                .contains("agent IPv6,")
                .endsWith("TTL toDateTime(time) + INTERVAL 400 DAY");
        assertThat(legacy)
                .contains("agent FixedString(16),")
                .doesNotContain("TTL")
                .doesNotContain("${");
        // Every column the encoder writes, in the table's order.
        List<String> columns = new java.util.ArrayList<>();
        for (String line : legacy.split("\n")) {
            java.util.regex.Matcher m =
                    java.util.regex.Pattern.compile("^    ([a-z0-9_]+) [A-Z]").matcher(line);
            if (m.find()) {
                columns.add(m.group(1));
            }
        }
        assertThat(columns)
                .containsExactlyElementsOf(
                        io.flowhouse.jobs.counters.InterfaceCountersRowEncoder.COLUMNS);
    }

    @Test
    void migrationIndexListsEveryFileInOrder() throws IOException {
        List<Migration> all = loadAll();
        assertThat(all)
                .extracting(Migration::version)
                .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
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
        assertThat(all.get(0).checksum()).hasSize(64).isEqualTo(loadAll().get(0).checksum());
    }
}
