// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.ClickHouseService;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sink writes what it is given: a table it knows nothing about, with the owner's row encoder
 * and schema (migrations in the owner's classpath directory, or DDL of its own), on a real server.
 */
class GenericSinkITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static final AtomicInteger DATABASES = new AtomicInteger();

    /** The test's row. */
    record Reading(long id, long timeMillis, long value) {}

    /** Its encoder: three columns of {@code readings}. */
    static final class ReadingEncoder implements ClickHouseRowEncoder<Reading> {
        private static final long serialVersionUID = 1L;

        @Override
        public String table() {
            return "readings";
        }

        @Override
        public List<String> columns(ServerCapabilities caps) {
            return List.of("time", "id", "value");
        }

        @Override
        public void encode(Reading r, RowBinaryOutput out, ServerCapabilities caps) {
            if (caps.dateTime64()) {
                out.dateTime64Millis(r.timeMillis());
            } else {
                out.dateTime(r.timeMillis());
            }
            out.uint64(r.id());
            out.uint64(r.value());
        }
    }

    private static final ClickHouseMigrations SCHEMA =
            new ClickHouseMigrations(
                    GenericSinkITCase.class,
                    "clickhouse/test-migrations/",
                    Map.of("READINGS", new SchemaDialect.Ttl("time", 7)));

    private static String freshDatabase() {
        return "generic_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
    }

    private static ClickHouseSinkOptions.Builder options(String db) {
        ClickHouseService ch = CLICKHOUSE.service();
        return ClickHouseSinkOptions.builder()
                .url(ch.httpUrl())
                .user(ch.user())
                .password(ch.password())
                .database(db)
                .batchMaxRows(1_000)
                .initialBackoff(Duration.ofMillis(100))
                .maxBackoff(Duration.ofSeconds(2));
    }

    private static void write(ClickHouseSinkOptions o, ClickHouseSchema schema, int from, int to)
            throws Exception {
        try (ClickHouseSinkWriter<Reading> w =
                ClickHouseSinkWriter.open(
                        o, new ReadingEncoder(), schema, null, new ClickHouseSinkMetrics(), 0)) {
            for (int i = from; i < to; i++) {
                w.write(new Reading(i, 1_705_320_000_000L + i, 2L * i), null);
            }
            w.flush(true);
        }
    }

    @Test
    void theOwnersMigrationsAreAppliedAndItsRowsWrittenExactly() throws Exception {
        String db = freshDatabase();
        ClickHouseSinkOptions o = options(db).build();
        write(o, SCHEMA, 0, 2_500);
        write(o, SCHEMA, 2_000, 3_000); // a replay of 500 rows and 500 new ones
        ClickHouseService ch = CLICKHOUSE.service();
        assertThat(
                        ch.query(
                                "SELECT version, name FROM "
                                        + db
                                        + ".schema_migrations FINAL ORDER BY version"))
                .containsExactly("1\treadings", "2\treadings_unit");
        assertThat(ch.query("SELECT count(), sum(value), any(unit) FROM " + db + ".readings FINAL"))
                .containsExactly("3000\t" + (2999L * 3000) + "\tms");
        // The ledger's checksums are those of the owner's files.
        try (ClickHouseConnection c = new ClickHouseConnection(o)) {
            assertThat(SCHEMA.migrator(c, db).appliedVersions())
                    .containsEntry(1, SCHEMA.load().get(0).checksum())
                    .containsEntry(2, SCHEMA.load().get(1).checksum());
        }
    }

    @Test
    void aSchemaOfItsOwnDdlOrNoneAtAll() throws Exception {
        String db = freshDatabase();
        ClickHouseSchema ddl =
                (connection, database) -> {
                    ServerCapabilities caps = ClickHouseMigrator.detect(connection);
                    connection.execute("CREATE DATABASE IF NOT EXISTS " + database);
                    connection.execute(
                            "CREATE TABLE IF NOT EXISTS "
                                    + database
                                    + ".readings (time DateTime, id UInt64, value UInt64)"
                                    + " ENGINE = MergeTree ORDER BY id");
                    return caps;
                };
        write(options(db).build(), ddl, 0, 10);
        // Without migrating, the writer only detects the server and writes to what exists.
        write(options(db).migrate(false).build(), ClickHouseSchema.NONE, 10, 15);
        ClickHouseService ch = CLICKHOUSE.service();
        assertThat(ch.queryScalar("SELECT count() FROM " + db + ".readings")).isEqualTo("15");
        assertThat(
                        ch.queryScalar(
                                "SELECT count() FROM system.tables WHERE database = '"
                                        + db
                                        + "' AND name = 'schema_migrations'"))
                .isEqualTo("0");
    }
}
