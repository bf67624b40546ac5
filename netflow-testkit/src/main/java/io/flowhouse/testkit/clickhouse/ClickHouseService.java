// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.clickhouse;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real ClickHouse server for tests: a local {@code clickhouse-server} child process ({@link
 * LocalClickHouse}) or a Testcontainers container ({@link ContainerClickHouse}). Both answer over
 * HTTP on 127.0.0.1 with user {@code default} and an empty password unless told otherwise.
 */
public interface ClickHouseService extends AutoCloseable {

    /** Base HTTP address, for example {@code http://127.0.0.1:34567} (no trailing slash). */
    String httpUrl();

    /** The host the HTTP and native ports listen on (always a loopback literal). */
    String host();

    int httpPort();

    /** The native protocol (TCP) port, for {@code clickhouse-client --port}. */
    int nativePort();

    String user();

    String password();

    /** A JDBC-style address, {@code jdbc:clickhouse://127.0.0.1:port/default}, for tools. */
    default String jdbcUrl() {
        return "jdbc:clickhouse://" + host() + ":" + httpPort() + "/default";
    }

    /** The server's {@code SELECT version()}, for example {@code 18.16.1}. */
    default String version() {
        return query("SELECT version()").get(0);
    }

    /**
     * Runs a statement that returns rows and gives them as TabSeparated lines (one string a row,
     * columns separated by a tab, escapes as ClickHouse writes them). Fails on any server error.
     */
    List<String> query(String sql);

    /** Runs a statement whose result is not needed (DDL, INSERT ... VALUES). */
    default void execute(String sql) {
        query(sql);
    }

    /**
     * The rows of {@code sql} once {@code OPTIMIZE TABLE table FINAL} has merged the table's parts.
     * One OPTIMIZE is a no-op while a background merge of the partition runs (and an insert still
     * in flight lands as a new part after it), so it is repeated until the rows equal {@code
     * expected} or 60 s have passed (bounded); copies that no merge removes still show in the rows
     * returned.
     */
    default List<String> queryAfterMerge(String table, String sql, List<String> expected)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<String> rows;
        do {
            execute("OPTIMIZE TABLE " + table + " FINAL");
            rows = query(sql);
            if (rows.equals(expected)) {
                return rows;
            }
            Thread.sleep(500);
        } while (System.nanoTime() < deadline);
        return rows;
    }

    /** Rows split into columns on tabs. */
    default List<List<String>> queryRows(String sql) {
        return query(sql).stream().map(line -> List.of(line.split("\t", -1))).toList();
    }

    /** The first column of the first row, e.g. for {@code SELECT count() ...}. */
    default String queryScalar(String sql) {
        List<String> rows = query(sql);
        if (rows.isEmpty()) {
            throw new IllegalStateException("no rows from: " + sql);
        }
        return rows.get(0).split("\t", -1)[0];
    }

    /** Stops the server and frees what it holds; idempotent. */
    @Override
    void close();
}
