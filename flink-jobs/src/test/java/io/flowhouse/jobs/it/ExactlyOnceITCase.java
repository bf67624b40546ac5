// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Exactly once into ClickHouse across failures: the captures stream in two halves through the
 * running job; a writer dies mid-stream on its first attempt (the job restarts from its last
 * checkpoint and replays), and ClickHouse is stopped for 30 s while the second half arrives. At the
 * end the documented query ({@code FROM flows FINAL}) returns exactly the records, packets and
 * bytes sent, with one row per row id; after {@code OPTIMIZE ... FINAL} so do plain sums.
 */
class ExactlyOnceITCase {

    private static final int LOOPS = 3;
    private static final long OUTAGE_MILLIS = 30_000L;
    private static final long WAIT_MILLIS = 240_000L;

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void totalsAreExactAfterAWriterFailureAndAClickHouseOutage() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(), ch, "eo", "--clickhouse.max-retries", "30");
        List<RawDatagram> first = new ArrayList<>();
        List<RawDatagram> second = new ArrayList<>();
        long records = 0;
        long packets = 0;
        long bytes = 0;
        int n = 0;
        for (int loop = 0; loop < LOOPS; loop++) {
            for (CaptureProducer.Capture c : CaptureProducer.CAPTURES) {
                List<RawDatagram> ds =
                        CaptureProducer.datagrams(
                                c.file(), IpAddress.parse("198.51.100." + (1 + n)), 30_000 + n);
                first.addAll(ds.subList(0, ds.size() / 2));
                second.addAll(ds.subList(ds.size() / 2, ds.size()));
                records += c.records();
                packets += c.packets();
                bytes += c.bytes();
                n++;
            }
        }
        KAFKA.createTopic(s.rawTopic(), 4);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), first);

        StreamExecutionEnvironment env =
                PipelineHarness.environment(
                        s,
                        PipelineHarness.sinks(s, ch)
                                .withFlows(
                                        new FailOnceSink<FlowRecord>(
                                                PipelineHarness.tables(s, ch).flows(), 5_000))
                                .withStats(null));
        JobClient job = env.executeAsync("exactly once");
        try {
            String table = s.clickhouse().database() + ".flows";
            awaitRows(ch, "SELECT count() FROM " + table, 1);

            ch.stop();
            CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), second);
            Thread.sleep(OUTAGE_MILLIS);
            ch.start();

            awaitRows(
                    ch, "SELECT sum(packets + reverse_packets) FROM " + table + " FINAL", packets);
            List<String> finalRow =
                    ch.queryRows(
                                    "SELECT count(), sum(packets + reverse_packets),"
                                            + " sum(bytes + reverse_bytes), uniqExact(row_id)"
                                            + " FROM "
                                            + table
                                            + " FINAL")
                            .get(0);
            assertThat(Long.parseLong(finalRow.get(0))).as("records").isEqualTo(records);
            assertThat(Long.parseLong(finalRow.get(1))).as("packets").isEqualTo(packets);
            assertThat(Long.parseLong(finalRow.get(2))).as("bytes").isEqualTo(bytes);
            assertThat(Long.parseLong(finalRow.get(3))).as("row ids").isEqualTo(records);

            job.cancel().get(60, TimeUnit.SECONDS);
            String expected = records + "\t" + packets + "\t" + bytes;
            assertThat(
                            ch.queryAfterMerge(
                                    table,
                                    "SELECT count(), sum(packets + reverse_packets),"
                                            + " sum(bytes + reverse_bytes) FROM "
                                            + table,
                                    List.of(expected)))
                    .containsExactly(expected);
        } finally {
            if (!job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
                job.cancel().get(60, TimeUnit.SECONDS);
            }
        }
    }

    /** Polls until the query's single number reaches {@code atLeast}; bounded in time. */
    private static void awaitRows(LocalClickHouse ch, String sql, long atLeast)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                last = ch.queryScalar(sql);
                if (!last.isEmpty() && Long.parseLong(last) >= atLeast) {
                    return;
                }
            } catch (RuntimeException e) {
                last = e.getMessage();
            }
            Thread.sleep(500);
        }
        throw new AssertionError(
                sql + " did not reach " + atLeast + " in " + WAIT_MILLIS + " ms; last: " + last);
    }
}
