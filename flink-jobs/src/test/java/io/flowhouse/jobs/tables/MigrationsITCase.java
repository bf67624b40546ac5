// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.stats.ExporterStats;
import io.flowhouse.jobs.stats.ExporterStatsRowEncoder;
import io.flowhouse.sinks.clickhouse.ClickHouseConnection;
import io.flowhouse.sinks.clickhouse.ClickHouseMigrator;
import io.flowhouse.sinks.clickhouse.ClickHouseRowEncoder;
import io.flowhouse.sinks.clickhouse.ClickHouseSchema;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkMetrics;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkWriter;
import io.flowhouse.sinks.clickhouse.Migration;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.SchemaDialect;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.ClickHouseService;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Migrations on a real server: all of them onto an empty server give the golden schema ({@code
 * src/test/resources/clickhouse/states/<flavor>/V00n.tsv}, a dump of {@code system.tables} and
 * {@code system.columns}); every earlier state, itself checked against its golden, migrates to the
 * same final schema (Akvorado's TestMigrationFromPreviousStates); re-running, running concurrently,
 * and finishing a half-applied migration all end in the same schema. Regenerate the goldens with
 * {@code -Dfixtures.update=true}.
 */
class MigrationsITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static final Path STATES = Path.of("src/test/resources/clickhouse/states");
    private static final boolean UPDATE =
            Boolean.parseBoolean(System.getProperty("fixtures.update", "false"));

    @Test
    void allMigrationsOnAnEmptyServerGiveTheGoldenSchema() throws Exception {
        List<Migration> all = ClickHouseTestSupport.SCHEMA.load();
        String db = ClickHouseTestSupport.freshDatabase("mig_all");
        try (ClickHouseConnection conn = connection(db)) {
            ClickHouseMigrator.Result r = migrator(conn, db, all).migrate();
            assertThat(r.applied())
                    .containsExactlyElementsOf(all.stream().map(Migration::version).toList());
            assertGolden(r.capabilities(), all.get(all.size() - 1).version(), snapshot(db));
            // Idempotent: a second run applies nothing and changes nothing.
            String before = snapshot(db);
            assertThat(migrator(conn, db, all).migrate().applied()).isEmpty();
            assertThat(snapshot(db)).isEqualTo(before);
            assertThat(
                            CLICKHOUSE
                                    .service()
                                    .query(
                                            "SELECT version, name FROM "
                                                    + db
                                                    + ".schema_migrations FINAL ORDER BY version"))
                    .hasSize(all.size())
                    .first()
                    .isEqualTo("1\tflows");
        }
    }

    @Test
    void everyEarlierStateMigratesToTheSameSchema() throws Exception {
        List<Migration> all = ClickHouseTestSupport.SCHEMA.load();
        String expected = null;
        for (int k = 0; k <= all.size(); k++) {
            String db = ClickHouseTestSupport.freshDatabase("mig_from_" + k);
            try (ClickHouseConnection conn = connection(db)) {
                ServerCapabilities caps = ClickHouseMigrator.detect(conn);
                if (k > 0) {
                    migrator(conn, db, all.subList(0, k)).migrate();
                    assertGolden(caps, all.get(k - 1).version(), snapshot(db));
                }
                ClickHouseMigrator.Result r = migrator(conn, db, all).migrate();
                assertThat(r.applied()).hasSize(all.size() - k);
                String state = snapshot(db);
                if (expected == null) {
                    expected = state;
                }
                assertThat(state).as("schema after migrating from state %d", k).isEqualTo(expected);
            }
        }
    }

    @Test
    void finishesAHalfAppliedMigration() throws Exception {
        List<Migration> all = ClickHouseTestSupport.SCHEMA.load();
        String db = ClickHouseTestSupport.freshDatabase("mig_half");
        try (ClickHouseConnection conn = connection(db)) {
            migrator(conn, db, all.subList(0, 2)).migrate();
            // A start that died after the first two statements of V003, before recording it.
            Migration v3 = all.get(2);
            SchemaDialect dialect =
                    new SchemaDialect(db, ClickHouseMigrator.detect(conn), JobSchema.ttls(30, 400));
            List<String> statements = v3.statements(dialect);
            conn.execute(statements.get(0));
            conn.execute(statements.get(1));
            assertThat(migrator(conn, db, all).migrate().applied())
                    .containsExactly(3, 4, 5, 6, 7, 8, 9, 10, 11);
            String fresh = ClickHouseTestSupport.freshDatabase("mig_half_ref");
            try (ClickHouseConnection ref = connection(fresh)) {
                migrator(ref, fresh, all).migrate();
            }
            assertThat(snapshot(db)).isEqualTo(snapshot(fresh));
        }
    }

    @Test
    void concurrentStartsEndInOneSchema() throws Exception {
        List<Migration> all = ClickHouseTestSupport.SCHEMA.load();
        String db = ClickHouseTestSupport.freshDatabase("mig_conc");
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<ClickHouseMigrator.Result>> results = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Callable<ClickHouseMigrator.Result> task =
                        () -> {
                            try (ClickHouseConnection conn = connection(db)) {
                                return migrator(conn, db, all).migrate();
                            }
                        };
                results.add(pool.submit(task));
            }
            for (Future<ClickHouseMigrator.Result> f : results) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        try (ClickHouseConnection conn = connection(db)) {
            assertGolden(
                    ClickHouseMigrator.detect(conn),
                    all.get(all.size() - 1).version(),
                    snapshot(db));
            assertThat(migrator(conn, db, all).appliedVersions()).hasSize(all.size());
        }
    }

    /**
     * V005: in the V002 table the v9 and the IPFIX row of one exporter, domain and minute fold into
     * one under FINAL; after the rebuild they stay apart, the rows written before it are all there,
     * and later writes keep them apart too.
     */
    @Test
    void exporterStatsRebuildKeepsVersionsApartAndCarriesRowsOver() throws Exception {
        List<Migration> all = ClickHouseTestSupport.SCHEMA.load();
        String db = ClickHouseTestSupport.freshDatabase("mig_stats");
        try (ClickHouseConnection conn = connection(db)) {
            migrator(conn, db, all.subList(0, 4)).migrate();
            writeStats(db, statsBeforeUpgrade());
            assertThat(statsFinal(db))
                    .as("V002 folds the v9 and IPFIX rows of one minute (the bug)")
                    .hasSize(2);
            assertThat(migrator(conn, db, all.subList(0, 5)).migrate().applied())
                    .containsExactly(5);
            assertThat(statsFinal(db)).containsExactlyElementsOf(EXPECTED_AFTER_UPGRADE);
            assertGolden(ClickHouseMigrator.detect(conn), 5, snapshot(db));
            // Written after the upgrade: v9 and IPFIX stay apart.
            writeStats(
                    db,
                    List.of(
                            stats(2055, 9, MINUTE + 60_000, 5, 40),
                            stats(2055, 10, MINUTE + 60_000, 6, 41)));
            assertThat(statsFinal(db)).contains("2055\t1\t9\t5\t40", "2055\t1\t10\t6\t41");
            assertDocumentedQueriesWork(db, ClickHouseMigrator.detect(conn));
            // V006 adds duplicate_datagrams (V008 the sFlow sample columns, V010 exporter_name) to
            // the rows there are (0, '') and the queries still work; the job's encoder writes them.
            assertThat(migrator(conn, db, all).migrate().applied())
                    .containsExactly(6, 7, 8, 9, 10, 11);
            assertThat(statsFinal(db)).contains("2055\t1\t9\t5\t40", "2055\t1\t10\t6\t41");
            assertDocumentedQueriesWork(db, ClickHouseMigrator.detect(conn));
            writeStats(
                    db,
                    List.of(stats(2056, 9, MINUTE + 60_000, 7, 50)),
                    new ExporterStatsRowEncoder());
            assertThat(
                            CLICKHOUSE
                                    .service()
                                    .query(
                                            "SELECT sum(duplicate_datagrams), count() FROM "
                                                    + db
                                                    + ".exporter_stats FINAL"))
                    .containsExactly("0\t6");
        }
    }

    /**
     * The exporter statistics queries of README.md and sinks/README-clickhouse.md, as printed there
     * but for the database name, a time filter that covers the test rows (12:00-12:01 UTC) and an
     * ORDER BY.
     */
    private static void assertDocumentedQueriesWork(String db, ServerCapabilities caps) {
        String ip = caps.ipv6Type() ? "toString" : "IPv6NumToString";
        String since = "toDateTime(1705316400)"; // 11:00 UTC, for "now() - 3600"
        List<String> perExporter =
                CLICKHOUSE
                        .service()
                        .query(
                                ("SELECT IPv6NumToString(exporter) AS exporter, sum(records) AS"
                                                + " records,\n"
                                                + "       sum(lost_datagrams) AS lost_datagrams,"
                                                + " sum(lost_records) AS lost_records\n"
                                                + "FROM flowhouse.exporter_stats FINAL WHERE minute"
                                                + " >= now() - 3600 GROUP BY exporter")
                                        .replace("IPv6NumToString", ip)
                                        .replace("flowhouse.", db + ".")
                                        .replace("now() - 3600", since));
        // v9 and IPFIX rows of :2055 both count now: 3 + 4 + 6 + 5 datagrams of 20 records, and
        // :2056's 2 (its later value).
        assertThat(perExporter).containsExactly("::ffff:192.0.2.1\t400\t0\t0");
        List<String> perScope =
                CLICKHOUSE
                        .service()
                        .query(
                                ("SELECT IPv6NumToString(exporter) AS exporter, exporter_port,"
                                                + " observation_domain, version,\n"
                                                + "       sum(datagrams), sum(records),"
                                                + " sum(lost_datagrams), sum(lost_records),"
                                                + " sum(sequence_resets)\n"
                                                + "FROM flowhouse.exporter_stats FINAL\n"
                                                + "WHERE minute >= now() - 3600\n"
                                                + "GROUP BY exporter, exporter_port,"
                                                + " observation_domain, version"
                                                + " ORDER BY exporter_port, version")
                                        .replace("IPv6NumToString", ip)
                                        .replace("flowhouse.", db + ".")
                                        .replace("now() - 3600", since));
        assertThat(perScope)
                .containsExactly(
                        "::ffff:192.0.2.1\t2055\t1\t9\t8\t160\t0\t0\t0",
                        "::ffff:192.0.2.1\t2055\t1\t10\t10\t200\t0\t0\t0",
                        "::ffff:192.0.2.1\t2056\t1\t9\t2\t40\t0\t0\t0");
    }

    /** A start that died after any statement of V005 finishes it with every row kept. */
    @Test
    void halfAppliedRebuildFinishesFromAnyStatement() throws Exception {
        List<Migration> all = ClickHouseTestSupport.SCHEMA.load();
        Migration v5 = all.get(4);
        int statements = -1;
        for (int k = 1; statements < 0 || k < statements; k++) {
            String db = ClickHouseTestSupport.freshDatabase("mig_v5_half_" + k);
            try (ClickHouseConnection conn = connection(db)) {
                migrator(conn, db, all.subList(0, 4)).migrate();
                writeStats(db, statsBeforeUpgrade());
                ServerCapabilities caps = ClickHouseMigrator.detect(conn);
                List<String> v5Statements =
                        v5.statements(new SchemaDialect(db, caps, JobSchema.ttls(30, 400)));
                statements = v5Statements.size();
                for (String statement : v5Statements.subList(0, k)) {
                    conn.execute(statement);
                }
                assertThat(migrator(conn, db, all.subList(0, 5)).migrate().applied())
                        .containsExactly(5);
                assertThat(statsFinal(db))
                        .as("rows after dying after statement %d of V005", k)
                        .containsExactlyElementsOf(EXPECTED_AFTER_UPGRADE);
                assertGolden(caps, 5, snapshot(db));
            }
        }
        assertThat(statements).isEqualTo(5);
    }

    /** Several writers upgrading at once take turns through the lock: one rebuild, no row lost. */
    @Test
    void concurrentUpgradesRebuildOnce() throws Exception {
        List<Migration> all = ClickHouseTestSupport.SCHEMA.load();
        String db = ClickHouseTestSupport.freshDatabase("mig_conc_up");
        try (ClickHouseConnection conn = connection(db)) {
            migrator(conn, db, all.subList(0, 4)).migrate();
        }
        writeStats(db, statsBeforeUpgrade());
        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<Integer> applied = new ArrayList<>();
        try {
            List<Future<ClickHouseMigrator.Result>> results = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Callable<ClickHouseMigrator.Result> task =
                        () -> {
                            try (ClickHouseConnection conn = connection(db)) {
                                return migrator(conn, db, all.subList(0, 5)).migrate();
                            }
                        };
                results.add(pool.submit(task));
            }
            for (Future<ClickHouseMigrator.Result> f : results) {
                applied.addAll(f.get(120, TimeUnit.SECONDS).applied());
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(applied).containsExactly(5);
        assertThat(statsFinal(db)).containsExactlyElementsOf(EXPECTED_AFTER_UPGRADE);
        try (ClickHouseConnection conn = connection(db)) {
            assertGolden(ClickHouseMigrator.detect(conn), 5, snapshot(db));
        }
    }

    /** A lock left by a start that died is broken after the stale age. */
    @Test
    void staleLockIsBroken() throws Exception {
        List<Migration> all = ClickHouseTestSupport.SCHEMA.load();
        String db = ClickHouseTestSupport.freshDatabase("mig_stale");
        try (ClickHouseConnection conn = connection(db)) {
            migrator(conn, db, all.subList(0, 4)).migrate();
            conn.execute(
                    "CREATE TABLE "
                            + db
                            + "."
                            + ClickHouseMigrator.LOCK_TABLE
                            + " ENGINE = TinyLog AS SELECT 'a start that died' AS holder,"
                            + " now() AS acquired_at");
            ClickHouseMigrator m =
                    new ClickHouseMigrator(
                            conn,
                            db,
                            JobSchema.ttls(30, 400),
                            all.subList(0, 5),
                            Duration.ofSeconds(1));
            assertThat(m.migrate().applied()).containsExactly(5);
            assertGolden(ClickHouseMigrator.detect(conn), 5, snapshot(db));
        }
    }

    private static final long MINUTE = 1_705_320_000_000L; // 2024-01-15 12:00:00 UTC

    /** {@code statsFinal} after the upgrade: port, domain, version, datagrams, updated_at. */
    private static final List<String> EXPECTED_AFTER_UPGRADE =
            List.of("2055\t1\t9\t3\t12", "2055\t1\t10\t4\t11", "2056\t1\t9\t2\t21");

    /**
     * Exporter :2055 sends v9 and IPFIX with the same domain in one minute; exporter :2056's row is
     * written twice (a later value replaces it), and everything once more (a replay).
     */
    private static List<ExporterStats> statsBeforeUpgrade() {
        List<ExporterStats> rows = new ArrayList<>();
        for (int copy = 0; copy < 2; copy++) {
            rows.add(stats(2055, 9, MINUTE, 1, 10));
            rows.add(stats(2055, 10, MINUTE, 4, 11));
            rows.add(stats(2055, 9, MINUTE, 3, 12));
            rows.add(stats(2056, 9, MINUTE, 1, 20));
            rows.add(stats(2056, 9, MINUTE, 2, 21));
        }
        return rows;
    }

    private static ExporterStats stats(
            int port, int version, long minute, long datagrams, long updatedAt) {
        return new ExporterStats(
                minute,
                IpAddress.parse("192.0.2.1"),
                port,
                1,
                version,
                datagrams,
                datagrams * 1000,
                datagrams * 20,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                Map.of("template_missing", datagrams),
                updatedAt);
    }

    /** Writes rows as the job did up to V005 (before duplicate_datagrams), without migrating. */
    private static void writeStats(String db, List<ExporterStats> rows) throws Exception {
        writeStats(db, rows, new V005StatsEncoder());
    }

    /**
     * The exporter_stats columns up to V005: the job's encoder without duplicate_datagrams (V006),
     * the sFlow sample columns (V008) and exporter_name (V010).
     */
    private static final class V005StatsEncoder implements ClickHouseRowEncoder<ExporterStats> {
        private static final long serialVersionUID = 1L;
        private static final List<String> LATER_COLUMNS =
                List.of("duplicate_datagrams", "lost_samples", "sample_drops", "exporter_name");
        private final ExporterStatsRowEncoder current = new ExporterStatsRowEncoder();

        @Override
        public String table() {
            return current.table();
        }

        @Override
        public List<String> columns(ServerCapabilities caps) {
            return ExporterStatsRowEncoder.COLUMNS.stream()
                    .filter(c -> !LATER_COLUMNS.contains(c))
                    .toList();
        }

        @Override
        public void encode(ExporterStats s, RowBinaryOutput out, ServerCapabilities caps) {
            out.dateTime(s.minuteMillis());
            out.ipv6(s.exporterAddress());
            out.uint16(s.exporterPort());
            out.uint32(s.observationDomainId());
            out.uint8(s.version());
            out.uint64(s.datagrams());
            out.uint64(s.datagramBytes());
            out.uint64(s.records());
            out.uint64(s.templateRecords());
            out.uint64(s.sequenceGaps());
            out.uint64(s.lostDatagrams());
            out.uint64(s.lostRecords());
            out.uint64(s.sequenceResets());
            out.uint64(s.recordsBeforeTemplate());
            out.uint64(s.rejectedRecords());
            out.stringArray(java.util.Arrays.asList(s.problemKinds()));
            out.uint64Array(s.problemCounts());
            out.uint64(s.updatedAtMillis());
        }
    }

    /** Writes through the sink's writer without migrating (the table as it is). */
    private static void writeStats(
            String db, List<ExporterStats> rows, ClickHouseRowEncoder<ExporterStats> encoder)
            throws Exception {
        ClickHouseSinkOptions options =
                ClickHouseTestSupport.options(CLICKHOUSE.service(), db).migrate(false).build();
        try (ClickHouseSinkWriter<ExporterStats> w =
                ClickHouseSinkWriter.open(
                        options,
                        encoder,
                        ClickHouseSchema.NONE,
                        null,
                        new ClickHouseSinkMetrics(),
                        0)) {
            for (ExporterStats row : rows) {
                w.write(row, null);
            }
            w.flush(true);
        }
    }

    /** Port, domain, version, datagrams and updated_at of {@code exporter_stats FINAL}. */
    private static List<String> statsFinal(String db) {
        return CLICKHOUSE
                .service()
                .query(
                        "SELECT exporter_port, observation_domain, version, datagrams, updated_at"
                                + " FROM "
                                + db
                                + ".exporter_stats FINAL ORDER BY exporter_port, version, minute");
    }

    private static ClickHouseConnection connection(String db) {
        return new ClickHouseConnection(
                ClickHouseTestSupport.options(CLICKHOUSE.service(), db).build());
    }

    private static ClickHouseMigrator migrator(
            ClickHouseConnection conn, String db, List<Migration> ms) {
        return new ClickHouseMigrator(conn, db, JobSchema.ttls(30, 400), ms);
    }

    /** Tables and columns of the database, with the database name replaced by {@code ${DB}}. */
    static String snapshot(String db) {
        ClickHouseService ch = CLICKHOUSE.service();
        List<String> lines = new ArrayList<>();
        lines.add("# tables: name, engine, partition_key, sorting_key, primary_key");
        lines.addAll(
                ch.query(
                        "SELECT name, engine, partition_key, sorting_key, primary_key FROM system.tables"
                                + " WHERE database = '"
                                + db
                                + "' ORDER BY name"));
        lines.add("# columns: table, name, type, default_kind, default_expression");
        lines.addAll(
                ch.query(
                        "SELECT table, name, type, default_kind, default_expression FROM system.columns"
                                + " WHERE database = '"
                                + db
                                + "' ORDER BY table, name"));
        return String.join("\n", lines).replace(db + ".", "${DB}.") + "\n";
    }

    private static void assertGolden(ServerCapabilities caps, int version, String actual)
            throws IOException {
        String flavor = caps.isModern() ? "modern" : "legacy";
        Path golden =
                STATES.resolve(flavor)
                        .resolve(String.format(java.util.Locale.ROOT, "V%03d.tsv", version));
        if (UPDATE) {
            Files.createDirectories(golden.getParent());
            Files.writeString(golden, actual, StandardCharsets.UTF_8);
        }
        assertThat(golden)
                .as("golden schema %s (regenerate with -Dfixtures.update=true)", golden)
                .exists();
        assertThat(actual).isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
    }
}
