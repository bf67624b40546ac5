// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The ClickHouse the e2e bench measures, made the same for every setting it compares. The rows of
 * an earlier setting (or run) are still merged in the background while the next one runs, and the
 * merges take the CPU the measured pipeline needs: a later setting would pay for an earlier one's
 * rows. So when the bench starts the pipeline itself it writes a database of its own, {@link #OWN},
 * empties its flow tables before each setting's warm-up (the schema and the AS names stay), and
 * waits until the server merges nothing, bounded by a timeout.
 */
final class BenchDatabase {
    /** The database the bench's own pipeline writes; emptied before each setting. */
    static final String OWN = "flowhouse_bench";

    /** Tables kept as they are: the schema's version and the AS names the flows are joined to. */
    private static final List<String> KEPT = List.of("schema_migrations", "as_names");

    /** How long one TRUNCATE may wait for the merges of its table. */
    static final Duration TRUNCATE_TIMEOUT = Duration.ofMinutes(5);

    private final ClickHouseHttp clickhouse;

    BenchDatabase(ClickHouseHttp clickhouse) {
        this.clickhouse = clickhouse;
    }

    /**
     * Empties every MergeTree table of {@code database} but {@link #KEPT}; only the bench's own
     * database ({@link #OWN}), never one a user named. Returns the tables emptied.
     */
    List<String> empty(String database) throws IOException, InterruptedException {
        if (!OWN.equals(database)) {
            throw new IllegalArgumentException("the bench empties only its own database " + OWN);
        }
        String names =
                clickhouse.query(
                        "SELECT name FROM system.tables WHERE database = '"
                                + database
                                + "' AND engine LIKE '%MergeTree' ORDER BY name");
        List<String> emptied =
                names.lines().filter(n -> !n.isBlank() && !KEPT.contains(n)).toList();
        for (String table : emptied) {
            // Waits for the table's running merges (minutes on a table of gigabytes, just after
            // the server started: a 20 s bound failed the first e2e run of a session).
            clickhouse.query("TRUNCATE TABLE " + database + "." + table, TRUNCATE_TIMEOUT);
        }
        return emptied;
    }

    /**
     * Waits until the server has had no merge running for two polls in a row, at most {@code
     * bound}; the seconds waited, and a line saying so.
     */
    double awaitNoMerges(Duration bound, PrintStream out) throws IOException, InterruptedException {
        long began = System.nanoTime();
        long deadline = began + bound.toNanos();
        int quiet = 0;
        long merges = 0;
        while (quiet < 2 && System.nanoTime() < deadline) {
            merges = clickhouse.scalar("SELECT count() FROM system.merges");
            quiet = merges == 0 ? quiet + 1 : 0;
            if (quiet < 2) {
                Thread.sleep(1_000);
            }
        }
        double waited = (System.nanoTime() - began) / 1e9;
        out.printf(
                Locale.ROOT,
                "bench e2e: ClickHouse %s after %.0f s%n",
                quiet >= 2 ? "merges nothing" : "still runs " + merges + " merges",
                waited);
        return waited;
    }
}
