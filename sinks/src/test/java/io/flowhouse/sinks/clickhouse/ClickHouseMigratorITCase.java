// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.ClickHouseService;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
class ClickHouseMigratorITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static final Path STATES = Path.of("src/test/resources/clickhouse/states");
    private static final boolean UPDATE =
            Boolean.parseBoolean(System.getProperty("fixtures.update", "false"));

    @Test
    void allMigrationsOnAnEmptyServerGiveTheGoldenSchema() throws Exception {
        List<Migration> all = Migration.loadAll();
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
        List<Migration> all = Migration.loadAll();
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
        List<Migration> all = Migration.loadAll();
        String db = ClickHouseTestSupport.freshDatabase("mig_half");
        try (ClickHouseConnection conn = connection(db)) {
            migrator(conn, db, all.subList(0, 2)).migrate();
            // A start that died after the first two statements of V003, before recording it.
            Migration v3 = all.get(2);
            SchemaDialect dialect = new SchemaDialect(db, ClickHouseMigrator.detect(conn), 30, 400);
            List<String> statements = v3.statements(dialect);
            conn.execute(statements.get(0));
            conn.execute(statements.get(1));
            assertThat(migrator(conn, db, all).migrate().applied()).containsExactly(3, 4);
            String fresh = ClickHouseTestSupport.freshDatabase("mig_half_ref");
            try (ClickHouseConnection ref = connection(fresh)) {
                migrator(ref, fresh, all).migrate();
            }
            assertThat(snapshot(db)).isEqualTo(snapshot(fresh));
        }
    }

    @Test
    void concurrentStartsEndInOneSchema() throws Exception {
        List<Migration> all = Migration.loadAll();
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

    private static ClickHouseConnection connection(String db) {
        return new ClickHouseConnection(
                ClickHouseTestSupport.options(CLICKHOUSE.service(), db).build());
    }

    private static ClickHouseMigrator migrator(
            ClickHouseConnection conn, String db, List<Migration> ms) {
        return new ClickHouseMigrator(conn, db, 30, 400, ms);
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
