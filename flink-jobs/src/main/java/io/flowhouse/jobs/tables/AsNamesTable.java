// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import com.clickhouse.client.api.insert.InsertSettings;
import io.flowhouse.enrich.geo.AsnDatabase;
import io.flowhouse.sinks.clickhouse.ClickHouseConnection;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkException;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Fills {@code as_names} (V009; joined by {@code flows_readable} and the console) from an ASN
 * database: one row per AS with its organisation. Idempotent: the rows already there with the same
 * name are not written again, so a second load writes nothing, and a changed name is written with a
 * newer {@code updated} ({@code ReplacingMergeTree(updated)} keeps it). AS numbers the file no
 * longer has keep their old names.
 */
public final class AsNamesTable {

    /** What one load did. */
    public record Result(int inFile, int written, int unchanged) {}

    private static final List<String> COLUMNS = List.of("asn", "name", "updated");

    private AsNamesTable() {}

    /**
     * Loads the names of {@code asnDatabase} into {@code options.database()}.as_names, waiting up
     * to {@code waitForTable} for the job's migrations to create it.
     */
    public static Result load(
            ClickHouseSinkOptions options, Path asnDatabase, Duration waitForTable)
            throws IOException, InterruptedException {
        SortedMap<Long, String> names = AsnDatabase.names(asnDatabase);
        try (ClickHouseConnection c = new ClickHouseConnection(options)) {
            return load(c, options.database(), names, waitForTable);
        }
    }

    static Result load(
            ClickHouseConnection c,
            String database,
            SortedMap<Long, String> names,
            Duration waitForTable)
            throws ClickHouseSinkException, InterruptedException {
        awaitTable(c, database, waitForTable);
        Map<Long, String> stored = new HashMap<>();
        for (String line : c.query("SELECT asn, name FROM " + database + ".as_names FINAL")) {
            int tab = line.indexOf('\t');
            stored.put(Long.parseLong(line.substring(0, tab)), unescape(line.substring(tab + 1)));
        }
        RowBinaryOutput rows = new RowBinaryOutput(1 << 20);
        long now = System.currentTimeMillis();
        int written = 0;
        for (Map.Entry<Long, String> e : names.entrySet()) {
            if (!e.getValue().equals(stored.get(e.getKey()))) {
                rows.uint32(e.getKey()).string(e.getValue()).dateTime(now);
                written++;
            }
        }
        if (written > 0) {
            c.insertRowBinary(
                    database + ".as_names", COLUMNS, rows.asInputStream(), new InsertSettings());
        }
        return new Result(names.size(), written, names.size() - written);
    }

    private static void awaitTable(ClickHouseConnection c, String database, Duration wait)
            throws ClickHouseSinkException, InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        String sql =
                "SELECT count() FROM system.tables WHERE database = '"
                        + database
                        + "' AND name = 'as_names'";
        while (!"1".equals(c.query(sql).get(0))) {
            if (System.nanoTime() >= deadline) {
                throw new ClickHouseSinkException(
                        "no table "
                                + database
                                + ".as_names on "
                                + c.endpoint()
                                + ": the pipeline job creates it when it starts (run ./flowhouse"
                                + " up or the job first)");
            }
            Thread.sleep(500);
        }
    }

    /** A TabSeparated value as text (ClickHouse escapes backslash, tab, newline and a few more). */
    static String unescape(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch != '\\' || i + 1 == s.length()) {
                b.append(ch);
                continue;
            }
            char n = s.charAt(++i);
            b.append(
                    switch (n) {
                        case 'n' -> '\n';
                        case 't' -> '\t';
                        case 'r' -> '\r';
                        case 'b' -> '\b';
                        case 'f' -> '\f';
                        case '0' -> '\0';
                        default -> n;
                    });
        }
        return b.toString();
    }
}
