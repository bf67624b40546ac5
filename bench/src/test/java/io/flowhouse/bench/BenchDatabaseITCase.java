// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.services.clickhouse.ClickHousePassword;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.ClickHouseService;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The e2e bench's own database against a real ClickHouse: emptied but for schema and AS names. */
class BenchDatabaseITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static ClickHouseHttp clickhouse() {
        ClickHouseService ch = CLICKHOUSE.service();
        return new ClickHouseHttp(
                ch.httpUrl(), ClickHousePassword.basicAuth(ch.user(), ch.password()));
    }

    @Test
    void emptiesTheFlowTablesAndKeepsSchemaAndAsNames() throws Exception {
        ClickHouseHttp ch = clickhouse();
        String db = BenchDatabase.OWN;
        ch.query("DROP DATABASE IF EXISTS " + db);
        ch.query("CREATE DATABASE " + db);
        for (String table : new String[] {"flows", "flows_1m", "schema_migrations", "as_names"}) {
            ch.query(
                    "CREATE TABLE "
                            + db
                            + "."
                            + table
                            + " (k UInt32) ENGINE = ReplacingMergeTree ORDER BY k");
            ch.query(
                    "INSERT INTO "
                            + db
                            + "."
                            + table
                            + " SELECT number FROM system.numbers LIMIT 3");
        }
        ch.query("CREATE VIEW " + db + ".flows_readable AS SELECT k FROM " + db + ".flows");

        BenchDatabase bench = new BenchDatabase(ch);
        assertThat(bench.empty(db)).containsExactly("flows", "flows_1m");

        assertThat(ch.scalar("SELECT count() FROM " + db + ".flows")).isZero();
        assertThat(ch.scalar("SELECT count() FROM " + db + ".flows_1m")).isZero();
        assertThat(ch.scalar("SELECT count() FROM " + db + ".schema_migrations")).isEqualTo(3);
        assertThat(ch.scalar("SELECT count() FROM " + db + ".as_names")).isEqualTo(3);
        assertThat(ch.scalar("SELECT count() FROM " + db + ".flows_readable")).isZero();

        ByteArrayOutputStream said = new ByteArrayOutputStream();
        double waited =
                bench.awaitNoMerges(
                        Duration.ofSeconds(60),
                        new PrintStream(said, true, StandardCharsets.UTF_8));
        assertThat(waited).isLessThan(60);
        assertThat(said.toString(StandardCharsets.UTF_8)).contains("merges nothing");
        ch.query("DROP DATABASE " + db);
    }

    @Test
    void neverEmptiesADatabaseItDoesNotOwn() {
        BenchDatabase bench = new BenchDatabase(clickhouse());
        assertThatThrownBy(() -> bench.empty("flowhouse"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
