// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkMetrics;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkWriter;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.ClickHouseService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The same migrations and writer on a current ClickHouse (Testcontainers, {@code
 * ContainerImages.CLICKHOUSE}): modern types, TTL, codecs and insert deduplication tokens are
 * detected and used. Runs where a Docker engine exists (skipped elsewhere unless {@code
 * -Dflowhouse.it.docker.required=true}).
 */
class ModernClickHouseITCase {

    @RegisterExtension
    static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.modernWhereDockerExists();

    @Test
    void detectsModernFeaturesAndWritesExactly() throws Exception {
        ClickHouseService ch = CLICKHOUSE.service();
        String db = ClickHouseTestSupport.freshDatabase("modern");
        ClickHouseSinkOptions options =
                ClickHouseTestSupport.options(ch, db).batchMaxRows(1_000).build();
        ClickHouseSinkMetrics metrics = new ClickHouseSinkMetrics();
        try (ClickHouseSinkWriter<FlowRecord> w =
                ClickHouseSinkWriter.open(
                        options,
                        new FlowRowEncoder(),
                        ClickHouseTestSupport.SCHEMA,
                        null,
                        metrics,
                        0)) {
            assertThat(w.capabilities().isModern()).isTrue();
            assertThat(w.capabilities().insertDeduplicationToken()).isTrue();
            for (int i = 0; i < 5_000; i++) {
                w.write(ClickHouseTestSupport.flow(i), null);
            }
            w.flush(false);
            // The same batches again, as a retried insert would send them: the tokens drop them.
            for (int i = 0; i < 5_000; i++) {
                w.write(ClickHouseTestSupport.flow(i), null);
            }
            w.flush(true);
        }
        assertThat(
                        ch.query(
                                "SELECT type FROM system.columns WHERE database = '"
                                        + db
                                        + "' AND table = 'flows' AND name IN ('src_addr', 'time_received') ORDER BY name"))
                .containsExactly("IPv6", "DateTime64(3)");
        assertThat(ch.queryScalar("SELECT count() FROM " + db + ".flows")).isEqualTo("5000");
        assertThat(ch.queryScalar("SELECT count() FROM " + db + ".flows FINAL")).isEqualTo("5000");
        assertThat(
                        ch.queryScalar(
                                "SELECT create_table_query FROM system.tables WHERE database = '"
                                        + db
                                        + "' AND name = 'flows'"))
                .contains("TTL")
                .contains("CODEC");
    }
}
