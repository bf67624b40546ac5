// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A schema given as versioned migrations in a classpath directory ({@link Migration}), applied by
 * {@link ClickHouseMigrator}: the owner of the tables names the directory and the retention of its
 * {@code ${TTL_<NAME>}} placeholders.
 *
 * @param anchor a class whose loader holds the directory (the owner's)
 * @param dir classpath directory with {@code MIGRATIONS}, ending in {@code /}
 * @param ttls the {@code ${TTL_<NAME>}} placeholders, by name
 */
public record ClickHouseMigrations(Class<?> anchor, String dir, Map<String, SchemaDialect.Ttl> ttls)
        implements ClickHouseSchema {

    private static final long serialVersionUID = 1L;

    public ClickHouseMigrations {
        Objects.requireNonNull(anchor, "anchor");
        if (!dir.endsWith("/")) {
            throw new IllegalArgumentException("migration directory " + dir + " (expected: a/b/)");
        }
        ttls = new TreeMap<>(ttls);
    }

    /** The migrations, in version order. */
    public List<Migration> load() {
        return Migration.loadAll(anchor.getClassLoader(), dir);
    }

    /** A migrator of these migrations on one connection. */
    public ClickHouseMigrator migrator(ClickHouseConnection connection, String database) {
        return new ClickHouseMigrator(connection, database, ttls, load());
    }

    @Override
    public ServerCapabilities apply(ClickHouseConnection connection, String database)
            throws ClickHouseSinkException {
        return migrator(connection, database).migrate().capabilities();
    }
}
