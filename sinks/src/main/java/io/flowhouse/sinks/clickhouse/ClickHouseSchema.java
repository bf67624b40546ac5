// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import java.io.Serializable;

/**
 * What a writer makes sure exists before its first insert, given by whoever owns the table: the
 * sink runs it (with its retries while the server is unreachable) but does not know what it
 * creates. Every implementation must be idempotent and safe to run from many writers at once.
 */
@FunctionalInterface
public interface ClickHouseSchema extends Serializable {

    /** Creates nothing; the writer only detects the server's capabilities. */
    ClickHouseSchema NONE = (connection, database) -> ClickHouseMigrator.detect(connection);

    /**
     * Brings the database up to this schema.
     *
     * @return the server's capabilities (the row encoders follow them)
     */
    ServerCapabilities apply(ClickHouseConnection connection, String database)
            throws ClickHouseSinkException;
}
