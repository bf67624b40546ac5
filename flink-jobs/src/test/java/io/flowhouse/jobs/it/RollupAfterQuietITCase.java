// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static io.flowhouse.jobs.it.StampedExports.flow;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rollups of a stream that goes quiet and comes back, as in the TaskManager-kill fault test: an
 * exporter whose clock says 2023 (every flow clamped 5 minutes back from its receive time, so every
 * piece is late for windows the receive time has passed), a pause longer than the partitions'
 * idleness, then one last round received after the next minute began. The streaming job (not
 * bounded: no end-of-input watermark closes the windows) must write the last round into {@code
 * flows_1m} too, and the top talkers of every window must add up to its buckets (fewer sources than
 * ranks).
 */
class RollupAfterQuietITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension static final MiniClusterExtension FLINK = new MiniClusterExtension();

    private static final long YEAR_2023 = 1_685_577_600_000L; // 2023-06-01 00:00:00 UTC
    private static final ExporterKey ROUTER = new ExporterKey(IpAddress.parse("192.0.2.9"), 2055);
    private static final String DB = "flowhouse_quiet";

    private final StampedExports agent = new StampedExports("quiet-agent", 1);
    private long sequence;
    private long flows;
    private long packets;
    private long bytes;

    /** {@code count} v5 datagrams of 5 flows dated 2023, received 40 ms apart from {@code t}. */
    private List<RawDatagram> round(long t, int count) {
        List<RawDatagram> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long exported = YEAR_2023 + sequence * 40;
            List<FlowRecord> f = new ArrayList<>();
            for (int k = 0; k < 5; k++) {
                long p = k + 1 + i % 3;
                long b = 100 * p + i % 7;
                f.add(flow("10.7.0." + (k + 1), "10.8.0.1", exported - 1_000, p, b));
                flows++;
                packets += p;
                bytes += b;
            }
            out.add(agent.stamp(ROUTER, t + 40L * i, StampedExports.v5(sequence, exported, f)));
            sequence += 5;
        }
        return out;
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aLastRoundAfterAQuietPartitionReachesTheRollups() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        PipelineSettings s = settings(ch, "quiet");
        KAFKA.createTopic(s.rawTopic(), 4);
        JobClient job = PipelineHarness.environment(s, ch).executeAsync("rollups after quiet");
        try {
            long minute = 60_000L;
            long t0 = (System.currentTimeMillis() / minute) * minute + 20_000;
            CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), round(t0, 200));
            awaitRollups(ch);
            Thread.sleep(5_000); // longer than the idleness: the partition is idle
            CaptureProducer.produce(
                    KAFKA.bootstrapServers(), s.rawTopic(), round(t0 + minute + 48_000, 50));
            awaitRollups(ch);
            List<String> expected = expected();
            assertThat(
                            ch.queryRows(
                                    "SELECT count(), sum(packets), sum(bytes) FROM "
                                            + DB
                                            + ".flows FINAL"))
                    .as("flows")
                    .containsExactly(expected);
            assertThat(oneMinute(ch)).as("flows_1m").containsExactly(expected);
            List<List<String>> buckets = ch.queryRows(talkers(DB, "interface"));
            assertThat(awaitTopTalkers(ch, buckets)).as("top talkers").isEqualTo(buckets);
            drainedStopThenHourExact(job, ch, DB, expected);
        } finally {
            if (!job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
                job.cancel().get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void theHourIsWrittenByADrainedStopAfterARestore() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        PipelineSettings s = settings(ch, "quietkill");
        KAFKA.createTopic(s.rawTopic(), 4);
        // The flows writer dies in the first round on its first attempt: the job restores from
        // its last checkpoint (the rollup windows, the derived hour) as after a TaskManager kill.
        JobClient job =
                PipelineHarness.environment(
                                s,
                                PipelineHarness.sinks(s, ch)
                                        .withFlows(
                                                new FailOnceSink<FlowRecord>(
                                                        PipelineHarness.tables(s, ch).flows(),
                                                        400)))
                        .executeAsync("hour after a restore");
        try {
            long minute = 60_000L;
            long t0 = (System.currentTimeMillis() / minute) * minute + 20_000;
            CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), round(t0, 200));
            awaitRollups(ch, "flowhouse_quietkill");
            List<String> expected = expected();
            assertThat(oneMinute(ch, "flowhouse_quietkill"))
                    .as("flows_1m after the restore")
                    .containsExactly(expected);
            Thread.sleep(5_000); // longer than the idleness: the partition is idle
            CaptureProducer.produce(
                    KAFKA.bootstrapServers(), s.rawTopic(), round(t0 + minute + 48_000, 50));
            awaitRollups(ch, "flowhouse_quietkill");
            expected = expected();
            assertThat(oneMinute(ch, "flowhouse_quietkill"))
                    .as("flows_1m")
                    .containsExactly(expected);
            // The stop comes once the raw partitions are idle, as a quiet stream's are: the
            // source's own final watermark is then dropped (idle outputs drop watermarks), and
            // only the decode step's end of input closes the hour.
            Thread.sleep(6_000);
            drainedStopThenHourExact(job, ch, "flowhouse_quietkill", expected);
        } finally {
            if (!job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
                job.cancel().get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** Both tests' job: one subtask, raw partitions idle after 2 s, no rollup slack. */
    private static PipelineSettings settings(LocalClickHouse ch, String name) {
        return PipelineHarness.settings(
                KAFKA.bootstrapServers(),
                ch,
                name,
                "--job.parallelism",
                "1",
                "--decode.idleness",
                "2 s",
                "--flowhouse.rollup.max-out-of-orderness",
                "0 s");
    }

    /**
     * The hour closes when the receive time passes it; a drained stop sends the final watermark, so
     * the 1-hour buckets are written and add up to the raw table too.
     */
    private static void drainedStopThenHourExact(
            JobClient job, LocalClickHouse ch, String db, List<String> expected) throws Exception {
        job.stopWithSavepoint(
                        true,
                        Files.createTempDirectory(db + "-savepoint").toUri().toString(),
                        SavepointFormatType.CANONICAL)
                .get(120, TimeUnit.SECONDS);
        System.out.println(
                db
                        + " 1h: "
                        + ch.queryRows(
                                "SELECT window_start, kind, sum(flows), sum(bytes) FROM "
                                        + db
                                        + ".flows_1h FINAL GROUP BY window_start, kind"));
        assertThat(
                        ch.queryRows(
                                "SELECT sum(flows), sum(packets), sum(bytes) FROM "
                                        + db
                                        + ".flows_1h FINAL WHERE kind = 'interface' AND"
                                        + " direction = 0"))
                .as("flows_1h")
                .containsExactly(expected);
    }

    private static String talkers(String db, String kind) {
        return "SELECT window_start, sum(bytes) FROM "
                + db
                + ".flows_1m FINAL WHERE kind = '"
                + kind
                + "'"
                + (kind.equals("interface") ? " AND direction = 0" : "")
                + " GROUP BY window_start ORDER BY window_start";
    }

    private List<String> expected() {
        return List.of(Long.toString(flows), Long.toString(packets), Long.toString(bytes));
    }

    private static List<List<String>> oneMinute(LocalClickHouse ch) {
        return oneMinute(ch, DB);
    }

    private static List<List<String>> oneMinute(LocalClickHouse ch, String db) {
        return ch.queryRows(
                "SELECT sum(flows), sum(packets), sum(bytes) FROM "
                        + db
                        + ".flows_1m FINAL WHERE kind = 'interface' AND direction = 0");
    }

    /**
     * The top-talker sums per window once they equal {@code buckets} (the interface rows' sums), or
     * as they are after a bound. A window's top rows can legitimately reach the table after its
     * interface rows: a late piece fires its bucket window at once, and a checkpoint alone hands
     * the combined pieces on, while the talker summaries (and then the ranking) fire a late window
     * again only at the next watermark after its pieces. So the interface rows can be complete
     * while the ranking of the last pieces waits for the raw source's next periodic watermark, or,
     * once every partition is quiet and the wall clock holds event time, for the quiet watermark
     * ({@code decode.quiet-after}, 30 s). A ranking that stays short fails the assertion after the
     * bound.
     */
    private static List<List<String>> awaitTopTalkers(
            LocalClickHouse ch, List<List<String>> buckets) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        List<List<String>> top = ch.queryRows(talkers(DB, "top_talker"));
        while (!top.equals(buckets) && System.nanoTime() < deadline) {
            Thread.sleep(500);
            top = ch.queryRows(talkers(DB, "top_talker"));
        }
        return top;
    }

    private void awaitRollups(LocalClickHouse ch) throws InterruptedException {
        awaitRollups(ch, DB);
    }

    private void awaitRollups(LocalClickHouse ch, String db) throws InterruptedException {
        List<List<String>> expected = List.of(expected());
        long deadline = System.nanoTime() + Duration.ofSeconds(150).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (expected.equals(oneMinute(ch, db))) {
                    return;
                }
            } catch (RuntimeException e) {
                // Tables not created yet.
            }
            Thread.sleep(500);
        }
    }
}
