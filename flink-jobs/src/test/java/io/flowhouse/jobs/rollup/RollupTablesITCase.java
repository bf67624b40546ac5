// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import com.clickhouse.client.api.insert.InsertSettings;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.tables.ClickHouseTestSupport;
import io.flowhouse.sinks.clickhouse.ClickHouseConnection;
import io.flowhouse.sinks.clickhouse.ClickHouseMigrator;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rollup tables on a real server: created with {@code bytes_error}, a table from before it gains
 * the column (old rows read 0), ensuring again changes nothing, and a top-N row written through the
 * encoder reads back with its error.
 */
class RollupTablesITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static final Duration MINUTE = Duration.ofMinutes(1);

    @Test
    void anOlderTableGainsTheErrorColumnAndTopRowsKeepTheirError() throws Exception {
        String db = ClickHouseTestSupport.freshDatabase("rollup_tables");
        try (ClickHouseConnection conn =
                new ClickHouseConnection(
                        ClickHouseTestSupport.options(CLICKHOUSE.service(), db).build())) {
            ServerCapabilities caps = ClickHouseMigrator.detect(conn);
            RollupTables.ensure(conn, db, caps, MINUTE, 30);
            String table = db + ".flows_1m";
            assertThat(columns(conn, table)).contains("flows,bytes_error,version");

            // A table made by an earlier version: no bytes_error, one row in it.
            conn.execute("ALTER TABLE " + table + " DROP COLUMN bytes_error");
            conn.execute(
                    "INSERT INTO "
                            + table
                            + " (window_start, kind, bytes, packets, flows, version)"
                            + " VALUES ('2024-01-15 12:00:00', 'top_talker', 10, 1, 1, 12)");
            RollupTables.ensure(conn, db, caps, MINUTE, 30);
            RollupTables.ensure(conn, db, caps, MINUTE, 30);
            assertThat(columns(conn, table)).contains("flows,bytes_error,version");
            assertThat(conn.query("SELECT bytes, bytes_error FROM " + table))
                    .containsExactly("10\t0");

            RollupRow top =
                    new RollupRow(
                            RollupKind.TOP_TALKER.code(),
                            1_705_320_060_000L,
                            IpAddress.parse("192.0.2.1"),
                            0,
                            0,
                            0,
                            0,
                            0,
                            0,
                            1,
                            IpAddress.parse("198.51.100.7"),
                            IpAddress.UNSPECIFIED,
                            5_000,
                            4,
                            2,
                            5_006,
                            700);
            RollupRowEncoder<RollupRow> encoder = RollupRowEncoder.rollup(table);
            RowBinaryOutput out = new RowBinaryOutput(256);
            encoder.encode(top, out, caps);
            conn.insertRowBinary(
                    table,
                    encoder.columns(caps),
                    new ByteArrayInputStream(out.toByteArray()),
                    new InsertSettings());
            assertThat(
                            conn.query(
                                    "SELECT rank, IPv6NumToString(src_addr), bytes, bytes_error"
                                            + " FROM "
                                            + table
                                            + " WHERE rank = 1"))
                    .containsExactly("1\t::ffff:198.51.100.7\t5000\t700");
        }
    }

    private static String columns(ClickHouseConnection conn, String table) throws Exception {
        return String.join(
                ",",
                conn.query(
                        "SELECT name FROM system.columns WHERE database = '"
                                + table.substring(0, table.indexOf('.'))
                                + "' AND table = 'flows_1m'"));
    }
}
