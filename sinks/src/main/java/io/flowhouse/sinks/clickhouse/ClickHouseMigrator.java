// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a database to the latest schema of a set of migrations (whose tables belong to the job
 * that writes them): creates the database and the {@code schema_migrations} ledger, then applies,
 * in order, each {@link Migration} not yet recorded there, rendered for this server's {@link
 * ServerCapabilities}. Every statement is idempotent ({@code IF NOT EXISTS}, or an "already exists"
 * error taken as done), so a start that died halfway through a migration ends in the same schema
 * when run again.
 *
 * <p>Every writer of a job migrates when it opens, so several run at once. When something is to be
 * applied they take turns through a lock: the table {@code schema_migrations_lock}, which only one
 * {@code CREATE TABLE} (without {@code IF NOT EXISTS}) can create; the holder drops it when done. A
 * lock waited on for {@link #STALE_LOCK} is taken to be left by a holder that died, and broken. So
 * a migration that rebuilds a table (V005) never runs twice at the same time.
 *
 * <p>On a cluster ({@link ClusterDdl}) the database, the ledger and every table are created {@code
 * ON CLUSTER} with replicated engines, so one migrator brings every replica up and they share one
 * ledger; inserts (V005's copy, the ledger's rows) run once and reach the others by replication.
 * The lock table stays on the server the migrator talks to: writers that share the endpoint list
 * talk to its first live entry and take turns there.
 */
public final class ClickHouseMigrator {

    private static final Logger LOG = LoggerFactory.getLogger(ClickHouseMigrator.class);

    /** TABLE_ALREADY_EXISTS, DATABASE_ALREADY_EXISTS. */
    private static final List<Integer> ALREADY_EXISTS_CODES = List.of(57, 82);

    /** ILLEGAL_COLUMN / DUPLICATE_COLUMN family: also "cannot find column to drop". */
    private static final int COLUMN_ERROR_CODE = 44;

    /** Name of the lock table, in the migrated database. */
    public static final String LOCK_TABLE = "schema_migrations_lock";

    /** A lock waited on this long is taken to be left by a start that died, and broken. */
    public static final Duration STALE_LOCK = Duration.ofMinutes(10);

    private static final long LOCK_POLL_MILLIS = 250;

    /** The outcome of a run. */
    public record Result(
            ServerCapabilities capabilities, List<Integer> applied, int latestVersion) {}

    private final ClickHouseConnection connection;
    private final String database;
    private final Map<String, SchemaDialect.Ttl> ttls;
    private final List<Migration> migrations;
    private final Duration staleLock;
    private final String holder =
            ProcessHandle.current().pid()
                    + "@"
                    + hostName()
                    + "/"
                    + Long.toHexString(ThreadLocalRandom.current().nextLong());

    /**
     * @param database the database migrated ({@code ${DB}})
     * @param ttls the {@code ${TTL_<NAME>}} placeholders of the migrations
     * @param migrations in version order (tests apply prefixes of a list)
     */
    public ClickHouseMigrator(
            ClickHouseConnection connection,
            String database,
            Map<String, SchemaDialect.Ttl> ttls,
            List<Migration> migrations) {
        this(connection, database, ttls, migrations, STALE_LOCK);
    }

    /** With an explicit stale-lock age (tests). */
    public ClickHouseMigrator(
            ClickHouseConnection connection,
            String database,
            Map<String, SchemaDialect.Ttl> ttls,
            List<Migration> migrations,
            Duration staleLock) {
        this.staleLock = staleLock;
        this.connection = connection;
        this.database = database;
        this.ttls = Map.copyOf(ttls);
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
        SchemaDialect dialect = new SchemaDialect(database, caps, ttls);
        if (connection.clusterDdl().enabled() && upToDate()) {
            // Every writer opens here (each subtask, each restart): on a cluster each DDL below
            // would queue a distributed task that waits for every replica.
            return new Result(caps, List.of(), latestVersion());
        }
        connection.executeDdl("CREATE DATABASE IF NOT EXISTS " + database);
        connection.executeDdl(
                "CREATE TABLE IF NOT EXISTS "
                        + database
                        + ".schema_migrations (version UInt32, name String, checksum String,"
                        + " applied_at DateTime, server_version String)"
                        + " ENGINE = ReplacingMergeTree ORDER BY version");
        if (!pending(appliedVersions())) {
            return new Result(caps, List.of(), latestVersion());
        }
        lock();
        try {
            return applyPending(caps, dialect);
        } finally {
            unlock();
        }
    }

    private Result applyPending(ServerCapabilities caps, SchemaDialect dialect)
            throws ClickHouseSinkException {
        Map<Integer, String> done = appliedVersions();
        List<Integer> applied = new ArrayList<>();
        int latest = 0;
        for (Migration m : migrations) {
            latest = m.version();
            String checksum = m.checksum();
            if (done.containsKey(m.version())) {
                continue; // applied by another writer while this one waited for the lock
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

    /** Whether the ledger exists and holds every migration (false when it cannot be read). */
    private boolean upToDate() {
        try {
            return !pending(appliedVersions());
        } catch (ClickHouseSinkException e) {
            return false;
        }
    }

    private int latestVersion() {
        return migrations.isEmpty() ? 0 : migrations.get(migrations.size() - 1).version();
    }

    /** Whether a migration is missing from {@code done}; warns about changed ones. */
    private boolean pending(Map<Integer, String> done) {
        boolean missing = false;
        for (Migration m : migrations) {
            String recorded = done.get(m.version());
            if (recorded == null) {
                missing = true;
            } else if (!recorded.equals(m.checksum())) {
                LOG.warn(
                        "migration V{}__{} changed since it was applied (checksum {} now {});"
                                + " it is not applied again",
                        m.version(),
                        m.name(),
                        recorded,
                        m.checksum());
            }
        }
        return missing;
    }

    /**
     * Takes the migration lock, waiting while another holder has it. The lock table is created with
     * its holder in one statement; a lock this migrator left behind (an attempt that lost the
     * server halfway) is its own to take again.
     */
    private void lock() throws ClickHouseSinkException {
        String table = database + "." + LOCK_TABLE;
        long start = System.nanoTime();
        long logged = -1;
        while (true) {
            try {
                connection.execute(
                        "CREATE TABLE "
                                + table
                                + " ENGINE = TinyLog AS SELECT '"
                                + holder
                                + "' AS holder, now() AS acquired_at");
                return;
            } catch (ClickHouseSinkException e) {
                if (!ALREADY_EXISTS_CODES.contains(e.serverCode())) {
                    throw e;
                }
            }
            String current = lockHolder();
            if (current.equals(holder)) {
                return;
            }
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            if (waited >= staleLock.toMillis()) {
                LOG.warn(
                        "clickhouse migration lock {} (held by {}) still there after {} ms: taking"
                                + " it to be left by a start that died, breaking it",
                        table,
                        current,
                        waited);
                connection.execute("DROP TABLE IF EXISTS " + table);
                start = System.nanoTime();
                continue;
            }
            if (logged < 0 || waited - logged >= 5_000) {
                logged = waited;
                LOG.info(
                        "waiting for the clickhouse migration lock {} held by {} ({} ms)",
                        table,
                        current,
                        waited);
            }
            try {
                Thread.sleep(LOCK_POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ClickHouseSinkException(
                        "interrupted while waiting for the migration lock " + table, e, 0, false);
            }
        }
    }

    private String lockHolder() {
        try {
            return String.join(
                    ",",
                    connection.query(
                            "SELECT holder FROM " + database + "." + LOCK_TABLE + " LIMIT 1"));
        } catch (ClickHouseSinkException e) {
            return "?";
        }
    }

    private void unlock() {
        try {
            connection.execute("DROP TABLE IF EXISTS " + database + "." + LOCK_TABLE);
            LOG.debug(
                    "released clickhouse migration lock {}.{} ({})", database, LOCK_TABLE, holder);
        } catch (ClickHouseSinkException e) {
            LOG.warn(
                    "could not drop the clickhouse migration lock {}.{} ({}); it is broken after {}",
                    database,
                    LOCK_TABLE,
                    e.getMessage(),
                    staleLock);
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
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
            connection.executeDdl(statement);
        } catch (ClickHouseSinkException e) {
            if (!alreadyApplied(e)) {
                throw e;
            }
            LOG.debug("migration statement already applied: {}", e.getMessage());
        }
    }

    /**
     * Whether a failed DDL statement had already been applied: the table or database exists, or the
     * column to add already exists.
     */
    public static boolean alreadyApplied(ClickHouseSinkException e) {
        int code = e.serverCode();
        String message = String.valueOf(e.getMessage());
        return ALREADY_EXISTS_CODES.contains(code)
                || (code == COLUMN_ERROR_CODE && message.contains("already exists"))
                // ON CLUSTER: a replica's error comes back inside the initiator's message
                || (message.contains("There was an error on")
                        && message.contains("already exists"));
    }
}
