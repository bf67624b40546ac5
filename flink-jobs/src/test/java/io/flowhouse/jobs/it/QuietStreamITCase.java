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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A stream that stops: with {@code decode.quiet-after}, event time moves on with the wall clock
 * once no datagram arrives, so the last minute and hour of {@code flows_1m}, {@code flows_1h} and
 * {@code exporter_stats} are written without further traffic, exactly. The datagrams' receive times
 * lie just before an hour that began in the past (as a replayed or delayed stream's would): the
 * watermark moves on from them by the elapsed time, not to today's clock, so the hour closes within
 * seconds. Then traffic resumes after the advance: re-sends, an agent's spool of datagrams received
 * while the job saw nothing (late, within the rollups' allowed lateness: their buckets are written
 * again), a spool older than that (late beyond it: in {@code flows} and {@code exporter_stats},
 * counted as late pieces and not in the rollups, as any late flow) and live datagrams, which close
 * again on the wall clock.
 */
class QuietStreamITCase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(2).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
                            .build());

    private static final long MINUTE = 60_000L;
    private static final long HOUR = 3_600_000L;
    private static final ExporterKey ROUTER = new ExporterKey(IpAddress.parse("192.0.2.21"), 2055);

    /** Flows, packets and bytes sent, by the minute their flows end in; datagrams by minute too. */
    private static final class Sent {
        final StampedExports agent;
        final Map<Long, long[]> byMinute = new TreeMap<>();
        long sequence;
        long datagrams;

        Sent(String agentId) {
            agent = new StampedExports(agentId, 1);
        }

        /**
         * {@code count} v5 datagrams of 4 flows each (flows end a second before their datagram is
         * received, by an exporter whose clock is right), received {@code gap} ms apart from {@code
         * t}.
         */
        List<RawDatagram> round(long t, int count, long gap) {
            List<RawDatagram> out = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                long received = t + gap * i;
                List<FlowRecord> f = new ArrayList<>();
                for (int k = 0; k < 4; k++) {
                    long p = k + 1 + i % 3;
                    long b = 90 * p + i % 11;
                    long end = received - 1_000;
                    if (end % MINUTE < 1_000) {
                        end -= end % MINUTE + 1; // whole in one minute: exact per-minute sums
                    }
                    f.add(flow("10.21.0." + (k + 1), "10.22.0.1", end, p, b));
                    long[] m = byMinute.computeIfAbsent(end / MINUTE * MINUTE, x -> new long[4]);
                    m[0]++;
                    m[1] += p;
                    m[2] += b;
                }
                byMinute.computeIfAbsent(received / MINUTE * MINUTE, x -> new long[4])[3]++;
                out.add(agent.stamp(ROUTER, received, StampedExports.v5(sequence, received, f)));
                sequence += 4;
                datagrams++;
            }
            return out;
        }

        /** Flows, packets and bytes of the minutes from {@code from} (inclusive) to {@code to}. */
        List<String> flows(long from, long to) {
            long[] s = new long[3];
            byMinute.forEach(
                    (m, v) -> {
                        if (m >= from && m < to) {
                            for (int i = 0; i < 3; i++) {
                                s[i] += v[i];
                            }
                        }
                    });
            return List.of(Long.toString(s[0]), Long.toString(s[1]), Long.toString(s[2]));
        }

        /** Datagrams received per minute, as exporter_stats rows (minute in s, datagrams). */
        List<List<String>> datagramsByMinute() {
            List<List<String>> rows = new ArrayList<>();
            byMinute.forEach(
                    (m, v) -> {
                        if (v[3] > 0) {
                            rows.add(List.of(Long.toString(m / 1000), Long.toString(v[3])));
                        }
                    });
            return rows;
        }
    }

    private static PipelineSettings settings(String suffix, LocalClickHouse ch) {
        return PipelineHarness.settings(
                KAFKA.bootstrapServers(),
                ch,
                suffix,
                "--job.parallelism",
                "1",
                "--decode.idleness",
                "2 s",
                "--decode.quiet-after",
                "3 s",
                "--flowhouse.rollup.max-out-of-orderness",
                "0 s");
    }

    /** The hour that began before now, its start. */
    private static long lastHourStart() {
        return System.currentTimeMillis() / HOUR * HOUR;
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theLastMinuteAndHourOfAStreamThatStopsAreWrittenWithoutMoreTraffic() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        PipelineSettings s = settings("quietstop", ch);
        String db = "flowhouse_quietstop";
        KAFKA.createTopic(s.rawTopic(), 2);
        JobClient job = PipelineHarness.environment(s, ch).executeAsync("quiet stream stops");
        try {
            long h = lastHourStart();
            Sent sent = new Sent("quiet-stream-agent");
            // 200 datagrams received over the last 100 s of the hour before h, then nothing.
            CaptureProducer.produce(
                    KAFKA.bootstrapServers(), s.rawTopic(), sent.round(h - 100_000, 200, 450));
            List<String> all = sent.flows(0, Long.MAX_VALUE);
            long hourStart = (h - HOUR) / 1000;

            await(ch, () -> rollup(ch, db, "flows_1m", ""), List.of(all), "flows_1m");
            assertThat(perMinute(ch, db))
                    .as("flows_1m per minute")
                    .containsExactly(
                            row(h - 2 * MINUTE, sent.flows(h - 2 * MINUTE, h - MINUTE)),
                            row(h - MINUTE, sent.flows(h - MINUTE, h)));
            await(ch, () -> rollup(ch, db, "flows_1h", ""), List.of(all), "flows_1h");
            assertThat(
                            ch.queryRows(
                                    "SELECT DISTINCT toUInt32(window_start) FROM "
                                            + db
                                            + ".flows_1h FINAL"))
                    .as("the hour's window")
                    .containsExactly(List.of(Long.toString(hourStart)));
            await(ch, () -> stats(ch, db), sent.datagramsByMinute(), "exporter_stats per minute");
            assertThat(
                            ch.queryRows(
                                    "SELECT count(), sum(packets), sum(bytes) FROM "
                                            + db
                                            + ".flows FINAL"))
                    .as("flows")
                    .containsExactly(all);
            assertThat(counter(job, "watermark_wall_clock_advances_total"))
                    .as("advances by the wall clock")
                    .isPositive();
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void trafficThatResumesAfterTheAdvanceIsCountedOnceAndLateFlowsGoWhereLateFlowsGo()
            throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        PipelineSettings s = settings("quietresume", ch);
        String db = "flowhouse_quietresume";
        KAFKA.createTopic(s.rawTopic(), 2);
        JobClient job = PipelineHarness.environment(s, ch).executeAsync("quiet stream resumes");
        try {
            long h = lastHourStart();
            Sent sent = new Sent("quiet-stream-agent");
            List<RawDatagram> first = sent.round(h - 100_000, 200, 450);
            CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), first);
            long firstSentAt = System.currentTimeMillis();
            await(
                    ch,
                    () -> rollup(ch, db, "flows_1m", ""),
                    List.of(sent.flows(0, Long.MAX_VALUE)),
                    "flows_1m before the pause");
            long advancesBefore = counter(job, "watermark_wall_clock_advances_total");
            assertThat(advancesBefore).as("advances by the wall clock").isPositive();

            // Traffic resumes. The agent's spool drains what it received while the job saw nothing:
            // datagrams of the hour's last two minutes, closed by the wall clock meanwhile (late,
            // within the rollups' allowed lateness), and some from 20 minutes before (beyond it).
            List<RawDatagram> again = new ArrayList<>();
            again.addAll(sent.round(h - 95_000, 40, 1_000));
            long tooLateFrom = h - 20 * MINUTE;
            // The old ones come from another agent's stream (its own stamps), the same exporter.
            Sent tooLate = new Sent("quiet-stream-agent-2");
            List<RawDatagram> old = tooLate.round(tooLateFrom, 10, 1_000);
            // ... re-sends of datagrams the job already has (same stamp: counted once) ...
            List<RawDatagram> resent = first.subList(150, 170);
            // ... and live datagrams, received now on the stream's own clock.
            long live = h - 10_000 + (System.currentTimeMillis() - firstSentAt);
            List<RawDatagram> liveRound = sent.round(live, 30, 200);
            again.addAll(resent);
            again.addAll(liveRound);
            again.addAll(old);
            CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), again);

            List<String> rolledUp = sent.flows(0, Long.MAX_VALUE);
            await(ch, () -> rollup(ch, db, "flows_1m", ""), List.of(rolledUp), "flows_1m after");
            assertThat(
                            rollup(
                                    ch,
                                    db,
                                    "flows_1h",
                                    " AND toUInt32(window_start) = " + (h - HOUR) / 1000))
                    .as("flows_1h of the hour closed by the wall clock, late flows added")
                    .containsExactly(sent.flows(h - HOUR, h));
            List<String> inFlows = sum(sent.flows(0, Long.MAX_VALUE), tooLate.flows(0, h));
            assertThat(
                            ch.queryRows(
                                    "SELECT count(), sum(packets), sum(bytes) FROM "
                                            + db
                                            + ".flows FINAL"))
                    .as("flows: every flow once, the too late ones too")
                    .containsExactly(inFlows);
            long datagrams = sent.datagrams + tooLate.datagrams;
            await(
                    ch,
                    () ->
                            ch.queryRows(
                                    "SELECT sum(datagrams), sum(duplicate_datagrams) FROM "
                                            + db
                                            + ".exporter_stats FINAL"),
                    List.of(List.of(Long.toString(datagrams), Long.toString(resent.size()))),
                    "exporter_stats");
            assertThat(counter(job, "rollup_late_pieces_total"))
                    .as("the spool older than the allowed lateness: late pieces, counted")
                    .isPositive();
            assertThat(counter(job, "watermark_wall_clock_advances_total"))
                    .as("the stream went quiet again and moved on")
                    .isGreaterThan(advancesBefore);
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theLastHourClosesOnTheWallClockAfterARestore() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        PipelineSettings s = settings("quietrestore", ch);
        String db = "flowhouse_quietrestore";
        KAFKA.createTopic(s.rawTopic(), 2);
        // The flows writer dies after 400 of the 800 flows on its first attempt: the job restores
        // from its last checkpoint (rollup windows, derived hour and all), then the stream is
        // quiet.
        JobClient job =
                PipelineHarness.environment(
                                s,
                                PipelineHarness.sinks(s, ch)
                                        .withFlows(
                                                new FailOnceSink<FlowRecord>(
                                                        PipelineHarness.tables(s, ch).flows(),
                                                        400)))
                        .executeAsync("quiet stream restores");
        try {
            long h = lastHourStart();
            Sent sent = new Sent("quiet-stream-agent");
            CaptureProducer.produce(
                    KAFKA.bootstrapServers(), s.rawTopic(), sent.round(h - 100_000, 200, 450));
            List<String> all = sent.flows(0, Long.MAX_VALUE);
            await(ch, () -> rollup(ch, db, "flows_1h", ""), List.of(all), "flows_1h");
            await(ch, () -> rollup(ch, db, "flows_1m", ""), List.of(all), "flows_1m");
            assertThat(
                            ch.queryRows(
                                    "SELECT count(), sum(packets), sum(bytes) FROM "
                                            + db
                                            + ".flows FINAL"))
                    .as("flows")
                    .containsExactly(all);
            assertThat(counter(job, "numRestarts")).as("restarts").isPositive();
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    private static List<String> sum(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            out.add(Long.toString(Long.parseLong(a.get(i)) + Long.parseLong(b.get(i))));
        }
        return out;
    }

    private static List<String> row(long minute, List<String> flows) {
        List<String> r = new ArrayList<>();
        r.add(Long.toString(minute / 1000));
        r.addAll(flows);
        return r;
    }

    private static List<List<String>> rollup(
            LocalClickHouse ch, String db, String table, String where) {
        return ch.queryRows(
                "SELECT sum(flows), sum(packets), sum(bytes) FROM "
                        + db
                        + "."
                        + table
                        + " FINAL WHERE kind = 'interface' AND direction = 0"
                        + where);
    }

    private static List<List<String>> perMinute(LocalClickHouse ch, String db) {
        return ch.queryRows(
                "SELECT toUInt32(window_start), sum(flows), sum(packets), sum(bytes) FROM "
                        + db
                        + ".flows_1m FINAL WHERE kind = 'interface' AND direction = 0"
                        + " GROUP BY window_start ORDER BY window_start");
    }

    private static List<List<String>> stats(LocalClickHouse ch, String db) {
        return ch.queryRows(
                "SELECT toUInt32(minute), sum(datagrams) FROM "
                        + db
                        + ".exporter_stats FINAL GROUP BY minute ORDER BY minute");
    }

    private static void await(
            LocalClickHouse ch, Supplier<List<List<String>>> query, List<?> expected, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        List<List<String>> last = null;
        while (System.nanoTime() < deadline) {
            try {
                last = query.get();
                if (expected.equals(last)) {
                    return;
                }
            } catch (RuntimeException e) {
                // Tables not created yet.
            }
            Thread.sleep(500);
        }
        assertThat(last).as(what).isEqualTo(expected);
    }

    /** A counter (or numeric gauge) of the running job, summed over its operators. */
    private static long counter(JobClient job, String name) {
        long n = 0;
        String id = job.getJobID().toString();
        for (Map.Entry<MetricGroup, Map<String, Metric>> g :
                REPORTER.getMetricsByGroup().entrySet()) {
            if (!id.equals(g.getKey().getAllVariables().get("<job_id>"))) {
                continue;
            }
            for (Map.Entry<String, Metric> e : g.getValue().entrySet()) {
                if (e.getKey().equals(name) && e.getValue() instanceof Counter c) {
                    n += c.getCount();
                } else if (e.getKey().equals(name)
                        && e.getValue() instanceof Gauge<?> gauge
                        && gauge.getValue() instanceof Number v) {
                    n += v.longValue();
                }
            }
        }
        return n;
    }
}
