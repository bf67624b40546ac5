// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the {@code flowhouse} database to the latest schema: creates the database and the {@code
 * schema_migrations} ledger, then applies, in order, each {@link Migration} not yet recorded there,
 * rendered for this server's {@link ServerCapabilities}. Every statement is idempotent ({@code IF
 * NOT EXISTS}, or an "already exists" error taken as done), so two writers starting at once, or a
 * start that died halfway through a migration, end in the same schema.
 */
public final class ClickHouseMigrator {

    private static final Logger LOG = LoggerFactory.getLogger(ClickHouseMigrator.class);

    /** TABLE_ALREADY_EXISTS, DATABASE_ALREADY_EXISTS. */
    private static final List<Integer> ALREADY_EXISTS_CODES = List.of(57, 82);

    /** ILLEGAL_COLUMN / DUPLICATE_COLUMN family: also "cannot find column to drop". */
    private static final int COLUMN_ERROR_CODE = 44;

    /** The outcome of a run. */
    public record Result(
            ServerCapabilities capabilities, List<Integer> applied, int latestVersion) {}

    private final ClickHouseConnection connection;
    private final String database;
    private final int flowsTtlDays;
    private final int statsTtlDays;
    private final List<Migration> migrations;

    public ClickHouseMigrator(ClickHouseConnection connection, ClickHouseSinkOptions options) {
        this(
                connection,
                options.database(),
                options.flowsTtlDays(),
                options.statsTtlDays(),
                Migration.loadAll());
    }

    /** With an explicit migration list (tests apply prefixes of it). */
    public ClickHouseMigrator(
            ClickHouseConnection connection,
            String database,
            int flowsTtlDays,
            int statsTtlDays,
            List<Migration> migrations) {
        this.connection = connection;
        this.database = database;
        this.flowsTtlDays = flowsTtlDays;
        this.statsTtlDays = statsTtlDays;
        this.migrations = List.copyOf(migrations);
    }

    /** Probes the server. */
    public static ServerCapabilities detect(ClickHouseConnection connection)
            throws ClickHouseSinkException {
        return ServerCapabilities.fromProbeLines(connection.query(ServerCapabilities.PROBE_SQL));
    }

    /** Applies what is missing; returns the versions applied by this call. */
    public Result migrate() throws ClickHouseSinkException {
        ServerCapabilities caps = detect(connection);
        SchemaDialect dialect = new SchemaDialect(database, caps, flowsTtlDays, statsTtlDays);
        connection.execute("CREATE DATABASE IF NOT EXISTS " + database);
        connection.execute(
                "CREATE TABLE IF NOT EXISTS "
                        + database
                        + ".schema_migrations (version UInt32, name String, checksum String,"
                        + " applied_at DateTime, server_version String)"
                        + " ENGINE = ReplacingMergeTree ORDER BY version");
        Map<Integer, String> done = appliedVersions();
        List<Integer> applied = new ArrayList<>();
        int latest = 0;
        for (Migration m : migrations) {
            latest = m.version();
            String checksum = m.checksum();
            if (done.containsKey(m.version())) {
                if (!done.get(m.version()).equals(checksum)) {
                    LOG.warn(
                            "migration V{}__{} changed since it was applied (checksum {} now {});"
                                    + " it is not applied again",
                            m.version(),
                            m.name(),
                            done.get(m.version()),
                            checksum);
                }
                continue;
            }
            for (String statement : m.statements(dialect)) {
                executeIdempotent(statement);
            }
            connection.execute(
                    "INSERT INTO "
                            + database
                            + ".schema_migrations (version, name, checksum, applied_at,"
                            + " server_version) VALUES ("
                            + m.version()
                            + ", '"
                            + m.name()
                            + "', '"
                            + checksum
                            + "', now(), '"
                            + caps.version().replace("'", "")
                            + "')");
            applied.add(m.version());
            LOG.info(
                    "applied clickhouse migration V{}__{} to {} (server {})",
                    m.version(),
                    m.name(),
                    database,
                    caps.version());
        }
        return new Result(caps, List.copyOf(applied), latest);
    }

    /** Versions recorded in the ledger, with their checksums. */
    public Map<Integer, String> appliedVersions() throws ClickHouseSinkException {
        Map<Integer, String> done = new HashMap<>();
        for (String line :
                connection.query(
                        "SELECT version, any(checksum) FROM "
                                + database
                                + ".schema_migrations GROUP BY version")) {
            String[] f = line.split("\t", -1);
            done.put(Integer.parseInt(f[0]), f.length > 1 ? f[1] : "");
        }
        return done;
    }

    private void executeIdempotent(String statement) throws ClickHouseSinkException {
        try {
            connection.execute(statement);
        } catch (ClickHouseSinkException e) {
            int code = e.serverCode();
            String msg = String.valueOf(e.getMessage());
            boolean alreadyDone =
                    ALREADY_EXISTS_CODES.contains(code)
                            || (code == COLUMN_ERROR_CODE && msg.contains("already exists"));
            if (!alreadyDone) {
                throw e;
            }
            LOG.debug("migration statement already applied: {}", msg);
        }
    }
}
