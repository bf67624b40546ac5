// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.query;

import java.util.ArrayList;
import java.util.List;

/**
 * The queries one API call ran, with what the server read: the {@code queries} of every answer, and
 * what the performance figures in the README count.
 */
public final class QueryLog {

    /** One query: its SQL, rows and bytes read, rows returned, wall time. */
    public record Entry(String sql, long rowsRead, long bytesRead, int rows, double millis) {}

    private final List<Entry> entries = new ArrayList<>();

    synchronized void add(String sql, ClickHouseReader.Result r) {
        entries.add(new Entry(sql, r.rowsRead(), r.bytesRead(), r.rows().size(), r.millis()));
    }

    /** Adds an entry for work that is not a ClickHouse query (the rejected topic). */
    public synchronized void add(Entry e) {
        entries.add(e);
    }

    public synchronized List<Entry> entries() {
        return List.copyOf(entries);
    }

    public synchronized long rowsRead() {
        return entries.stream().mapToLong(Entry::rowsRead).sum();
    }
}
