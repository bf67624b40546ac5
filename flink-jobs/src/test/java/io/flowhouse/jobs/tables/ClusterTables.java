// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.jobs.rollup.RollupTables;
import io.flowhouse.sinks.clickhouse.ClickHouseConnection;
import io.flowhouse.sinks.clickhouse.ClickHouseMigrator;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkMetrics;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkWriter;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.clickhouse.LocalClickHouseCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.function.LongFunction;

/**
 * The job's tables on a {@link LocalClickHouseCluster} for the cluster ITCases: sink options naming
 * every server, the schema migrated {@code ON CLUSTER}, a writer of flows, the goldens the
 * single-server schema is checked against.
 */
final class ClusterTables {

    /** The golden schema states, {@code legacy/} and {@code modern/}. */
    static final Path STATES = Path.of("src/test/resources/clickhouse/states");

    private ClusterTables() {}

    /** Every server's URL and the cluster's name, with fast retries. */
    static ClickHouseSinkOptions.Builder options(LocalClickHouseCluster cluster, String db) {
        return ClickHouseSinkOptions.builder()
                .url(cluster.httpUrls())
                .cluster(LocalClickHouseCluster.CLUSTER)
                .database(db)
                .batchMaxRows(2_000)
                .connectTimeout(Duration.ofSeconds(2))
                // An ON CLUSTER statement waits for every server: minutes on a loaded machine.
                .socketTimeout(Duration.ofMinutes(5))
                .initialBackoff(Duration.ofMillis(100))
                .maxBackoff(Duration.ofSeconds(1));
    }

    /** All migrations and the 1 m and 1 h rollup tables, through the cluster. */
    static ClickHouseMigrator.Result migrate(LocalClickHouseCluster cluster, String db)
            throws Exception {
        try (ClickHouseConnection conn = new ClickHouseConnection(options(cluster, db).build())) {
            ClickHouseMigrator.Result migrated =
                    ClickHouseTestSupport.SCHEMA.migrator(conn, db).migrate();
            RollupTables.ensure(conn, db, migrated.capabilities(), Duration.ofMinutes(1), 30);
            RollupTables.ensure(conn, db, migrated.capabilities(), Duration.ofHours(1), 30);
            return migrated;
        }
    }

    /** The flows writer the job uses. */
    private static ClickHouseSinkWriter<FlowRecord> writer(ClickHouseSinkOptions o)
            throws Exception {
        return ClickHouseSinkWriter.open(
                o,
                new FlowRowEncoder(),
                ClickHouseTestSupport.SCHEMA,
                null,
                new ClickHouseSinkMetrics(),
                0);
    }

    /** Flows {@code from} (inclusive) to {@code to}. */
    private static void write(
            ClickHouseSinkWriter<FlowRecord> w, int from, int to, LongFunction<FlowRecord> flow)
            throws Exception {
        for (int i = from; i < to; i++) {
            w.write(flow.apply(i), null);
        }
    }

    /**
     * Writes flows 0 to 20,000, kills {@code killed} with {@code kill -9}, writes 20,000 to 40,000
     * (to the other replicas), starts it again and replays 10,000 to 30,000: every flush is
     * complete, so 40,000 distinct flows are written, 20,000 of them twice.
     */
    static void writeAcrossAKill(
            ClickHouseSinkOptions o, LocalClickHouse killed, LongFunction<FlowRecord> flow)
            throws Exception {
        try (ClickHouseSinkWriter<FlowRecord> w = writer(o)) {
            write(w, 0, 20_000, flow);
            w.flush(true);
            killed.kill();
            write(w, 20_000, 40_000, flow);
            w.flush(true);
            killed.start();
            write(w, 10_000, 30_000, flow);
            w.flush(true);
        }
    }

    /** The golden schema state after {@code version} for the server's flavour. */
    static String golden(ServerCapabilities caps, int version) throws Exception {
        return Files.readString(
                STATES.resolve(caps.isModern() ? "modern" : "legacy")
                        .resolve(String.format(Locale.ROOT, "V%03d.tsv", version)),
                StandardCharsets.UTF_8);
    }

    /** The golden's column section. */
    static String columnsOf(String golden) {
        return golden.substring(golden.indexOf("# columns"));
    }
}
