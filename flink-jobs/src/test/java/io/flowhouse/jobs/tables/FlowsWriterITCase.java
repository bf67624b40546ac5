// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.clickhouse.ClickHouseRowEncoder;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkException;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkMetrics;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkWriter;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The writer against a real local ClickHouse 18.16: batching, exact sums, retries across a server
 * outage, deduplication of a replay, and a non-retriable error that fails the writer.
 */
class FlowsWriterITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static final int N = 25_000;

    private static long expectedBytes(int from, int to) {
        long s = 0;
        for (int i = from; i < to; i++) {
            s += ClickHouseTestSupport.flow(i).bytes();
        }
        return s;
    }

    private static long expectedPackets(int from, int to) {
        long s = 0;
        for (int i = from; i < to; i++) {
            s += ClickHouseTestSupport.flow(i).packets();
        }
        return s;
    }

    private static ClickHouseSinkWriter<FlowRecord> writer(
            ClickHouseSinkOptions options, ClickHouseSinkMetrics metrics) throws Exception {
        return ClickHouseSinkWriter.open(
                options, new FlowRowEncoder(), ClickHouseTestSupport.SCHEMA, null, metrics, 0);
    }

    private static void write(ClickHouseSinkWriter<FlowRecord> w, int from, int to)
            throws Exception {
        for (int i = from; i < to; i++) {
            w.write(ClickHouseTestSupport.flow(i), null);
        }
    }

    @Test
    void batchesBySizeAndSumsAreExact() throws Exception {
        String db = ClickHouseTestSupport.freshDatabase("writer_sums");
        ClickHouseSinkMetrics metrics = new ClickHouseSinkMetrics();
        try (ClickHouseSinkWriter<FlowRecord> w =
                writer(
                        ClickHouseTestSupport.options(CLICKHOUSE.service(), db)
                                .batchMaxRows(4_000)
                                .build(),
                        metrics)) {
            write(w, 0, N);
            w.flush(false);
        }
        assertThat(metrics.rowsWritten()).isEqualTo(N);
        assertThat(metrics.batchesWritten()).isEqualTo((N + 3_999) / 4_000);
        assertThat(metrics.retryCount()).isZero();
        assertThat(metrics.insertLatencyMs().getCount()).isEqualTo(metrics.batchesWritten());
        assertThat(
                        CLICKHOUSE
                                .service()
                                .query(
                                        "SELECT count(), sum(bytes), sum(packets) FROM "
                                                + db
                                                + ".flows"))
                .containsExactly(N + "\t" + expectedBytes(0, N) + "\t" + expectedPackets(0, N));
        // Per exporter, as the pipeline's acceptance test checks it.
        List<String> perExporter =
                CLICKHOUSE
                        .service()
                        .query(
                                "SELECT IPv6NumToString(exporter), count() FROM "
                                        + db
                                        + ".flows GROUP BY exporter ORDER BY exporter");
        assertThat(perExporter)
                .containsExactly(
                        "::ffff:192.0.2.1\t8334",
                        "::ffff:192.0.2.2\t8333",
                        "::ffff:192.0.2.3\t8333");
    }

    @Test
    void retriesThroughAnOutageAndAReplayDoesNotDoubleCount() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        String db = ClickHouseTestSupport.freshDatabase("writer_outage");
        ClickHouseSinkMetrics metrics = new ClickHouseSinkMetrics();
        ClickHouseSinkOptions options =
                ClickHouseTestSupport.options(ch, db).batchMaxRows(5_000).maxRetries(60).build();
        try (ClickHouseSinkWriter<FlowRecord> w = writer(options, metrics)) {
            write(w, 0, 10_000);
            w.flush(false);
            ch.stop();
            try {
                // Writing goes on while the server is away: the inserter retries with backoff,
                // and once maxInFlightBatches are waiting, write() blocks (back-pressure). So the
                // task side runs on its own thread here, as the Flink task thread would.
                CompletableFuture<Void> flushed =
                        CompletableFuture.runAsync(
                                () -> {
                                    try {
                                        write(w, 10_000, N);
                                        w.flush(false);
                                    } catch (Exception e) {
                                        throw new IllegalStateException(e);
                                    }
                                });
                // Wait until at least one retry has happened, bounded in count and time.
                for (int i = 0; i < 600 && metrics.retryCount() == 0; i++) {
                    Thread.sleep(100);
                }
                assertThat(metrics.retryCount()).isPositive();
                assertThat(flushed).isNotDone();
                ch.start();
                flushed.get(5, TimeUnit.MINUTES);
            } finally {
                ch.start();
            }
            // A replay after a failure: the rows since the "last checkpoint" come again, identical.
            write(w, 10_000, N);
            w.flush(true);
        }
        assertThat(metrics.rowsWritten()).isEqualTo(N + (N - 10_000));
        String exact = N + "\t" + expectedBytes(0, N) + "\t" + expectedPackets(0, N);
        // The documented exact form: FINAL collapses the replayed copies at query time ...
        assertThat(ch.query("SELECT count(), sum(bytes), sum(packets) FROM " + db + ".flows FINAL"))
                .containsExactly(exact);
        // ... and after a merge (OPTIMIZE ... FINAL, or the background merges) plain queries agree.
        assertThat(
                        ch.queryAfterMerge(
                                db + ".flows",
                                "SELECT count(), sum(bytes), sum(packets) FROM " + db + ".flows",
                                List.of(exact)))
                .containsExactly(exact);
        assertThat(ch.query("SELECT count() - uniqExact(row_id) FROM " + db + ".flows"))
                .containsExactly("0");
    }

    /**
     * A writer that opens while ClickHouse is down (a job restarted during an outage) retries its
     * migrations with backoff and opens once the server is back, on the same ports and data.
     */
    @Test
    void opensOnceAServerThatStartsLateIsUp() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        String db = ClickHouseTestSupport.freshDatabase("writer_late");
        ClickHouseSinkMetrics metrics = new ClickHouseSinkMetrics();
        ClickHouseSinkOptions options =
                ClickHouseTestSupport.options(ch, db)
                        .batchMaxRows(5_000)
                        .startupTimeout(Duration.ofMinutes(5))
                        .build();
        ch.stop();
        try {
            CompletableFuture<ClickHouseSinkWriter<FlowRecord>> opened =
                    CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return writer(options, metrics);
                                } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                }
                            });
            // Wait until the opener has retried at least twice, bounded in count and time.
            for (int i = 0; i < 600 && metrics.retryCount() < 2; i++) {
                Thread.sleep(100);
            }
            assertThat(metrics.retryCount()).isGreaterThanOrEqualTo(2);
            assertThat(opened).isNotDone();
            ch.start();
            try (ClickHouseSinkWriter<FlowRecord> w = opened.get(5, TimeUnit.MINUTES)) {
                write(w, 0, 10_000);
                w.flush(true);
            }
        } finally {
            ch.start();
        }
        assertThat(ch.query("SELECT count(), sum(bytes) FROM " + db + ".flows FINAL"))
                .containsExactly("10000\t" + expectedBytes(0, 10_000));
        assertThat(ch.query("SELECT max(version) FROM " + db + ".schema_migrations"))
                .containsExactly(
                        String.valueOf(
                                ClickHouseTestSupport.SCHEMA
                                        .load()
                                        .get(ClickHouseTestSupport.SCHEMA.load().size() - 1)
                                        .version()));
    }

    /** Past startupTimeout the writer gives up with a message that says why. */
    @Test
    void givesUpAfterTheStartupTimeout() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        ClickHouseSinkOptions options =
                ClickHouseTestSupport.options(ch, ClickHouseTestSupport.freshDatabase("late_fail"))
                        .startupTimeout(Duration.ofSeconds(2))
                        .build();
        ClickHouseSinkMetrics metrics = new ClickHouseSinkMetrics();
        ch.stop();
        try {
            assertThatThrownBy(() -> writer(options, metrics))
                    .isInstanceOf(ClickHouseSinkException.class)
                    .hasMessageContaining("unreachable when the writer of flows opened")
                    .hasMessageContaining("startupTimeout PT2S");
            assertThat(metrics.retryCount()).isPositive();
        } finally {
            ch.start();
        }
    }

    /** A failure that waiting cannot fix (here: a wrong password) fails the open at once. */
    @Test
    void aNonRetriableStartupErrorIsNotRetried() {
        ClickHouseSinkOptions options =
                ClickHouseTestSupport.options(
                                CLICKHOUSE.service(), ClickHouseTestSupport.freshDatabase("bad_pw"))
                        .user("no_such_user")
                        .password("wrong")
                        .startupTimeout(Duration.ofMinutes(10))
                        .build();
        ClickHouseSinkMetrics metrics = new ClickHouseSinkMetrics();
        assertThatThrownBy(() -> writer(options, metrics))
                .isInstanceOf(ClickHouseSinkException.class);
        assertThat(metrics.retryCount()).isZero();
    }

    @Test
    void aNonRetriableErrorFailsTheWriterAndIsRethrown() throws Exception {
        String db = ClickHouseTestSupport.freshDatabase("writer_bad");
        ClickHouseSinkMetrics metrics = new ClickHouseSinkMetrics();
        ClickHouseRowEncoder<FlowRecord> wrongColumns =
                new ClickHouseRowEncoder<>() {
                    private static final long serialVersionUID = 1L;

                    @Override
                    public String table() {
                        return "flows";
                    }

                    @Override
                    public List<String> columns(ServerCapabilities caps) {
                        return List.of("no_such_column");
                    }

                    @Override
                    public void encode(
                            FlowRecord value, RowBinaryOutput out, ServerCapabilities caps) {
                        out.uint32(1);
                    }
                };
        try (ClickHouseSinkWriter<FlowRecord> w =
                ClickHouseSinkWriter.open(
                        ClickHouseTestSupport.options(CLICKHOUSE.service(), db).build(),
                        wrongColumns,
                        ClickHouseTestSupport.SCHEMA,
                        null,
                        metrics,
                        0)) {
            w.write(ClickHouseTestSupport.flow(1), null);
            assertThatThrownBy(() -> w.flush(false))
                    .isInstanceOf(ClickHouseSinkException.class)
                    .hasMessageContaining("not retriable")
                    .hasMessageContaining("no_such_column");
            assertThatThrownBy(() -> w.write(ClickHouseTestSupport.flow(2), null))
                    .isInstanceOf(ClickHouseSinkException.class);
        }
        assertThat(metrics.retryCount()).isZero();
        assertThat(metrics.failedBatches()).isEqualTo(1);
    }

    @Test
    void aPartBatchIsSentWhenItsIntervalExpires() throws Exception {
        String db = ClickHouseTestSupport.freshDatabase("writer_interval");
        ManualProcessingTime time = new ManualProcessingTime();
        ClickHouseSinkMetrics metrics = new ClickHouseSinkMetrics();
        ClickHouseSinkOptions options =
                ClickHouseTestSupport.options(CLICKHOUSE.service(), db)
                        .flushInterval(Duration.ofMillis(1))
                        .build();
        try (ClickHouseSinkWriter<FlowRecord> w =
                ClickHouseSinkWriter.open(
                        options,
                        new FlowRowEncoder(),
                        ClickHouseTestSupport.SCHEMA,
                        time,
                        metrics,
                        0)) {
            write(w, 0, 10);
            assertThat(w.bufferedRows()).isEqualTo(10);
            Thread.sleep(5); // the open batch is now older than the interval
            time.fireAll();
            assertThat(w.bufferedRows()).isZero();
            // The timer re-arms itself; wait for the inserter, bounded in count and time.
            for (int i = 0; i < 300 && metrics.rowsWritten() < 10; i++) {
                Thread.sleep(100);
            }
            assertThat(time.pending()).isEqualTo(1);
        }
        assertThat(metrics.batchesWritten()).isEqualTo(1);
        assertThat(CLICKHOUSE.service().queryScalar("SELECT count() FROM " + db + ".flows"))
                .isEqualTo("10");
    }

    /** A processing-time service whose timers fire only when the test says so. */
    static final class ManualProcessingTime implements ProcessingTimeService {
        private final List<ProcessingTimeService.ProcessingTimeCallback> callbacks =
                new ArrayList<>();

        @Override
        public long getCurrentProcessingTime() {
            return System.currentTimeMillis();
        }

        @Override
        public ScheduledFuture<?> registerTimer(
                long timestamp, ProcessingTimeService.ProcessingTimeCallback callback) {
            callbacks.add(callback);
            return new CompletableScheduledFuture();
        }

        void fireAll() throws Exception {
            List<ProcessingTimeService.ProcessingTimeCallback> due = new ArrayList<>(callbacks);
            callbacks.clear();
            for (ProcessingTimeService.ProcessingTimeCallback c : due) {
                c.onProcessingTime(getCurrentProcessingTime());
            }
        }

        int pending() {
            return callbacks.size();
        }
    }

    /** A completed future for {@link ManualProcessingTime#registerTimer}. */
    static final class CompletableScheduledFuture extends CompletableFuture<Object>
            implements ScheduledFuture<Object> {
        @Override
        public long getDelay(TimeUnit unit) {
            return 0;
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(0, o.getDelay(TimeUnit.MILLISECONDS));
        }
    }
}
