// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The e2e sustained criterion: a step whose rows all arrive, but long after its load ended, is
 * clean by the counts and not drop-free. Figures from the quiet on/off campaign of 2026-11-26
 * (e2e-20261126T153301Z off, e2e-20261126T153710Z on: 30 s steps, exact counts at every step).
 */
class SustainedCriterionTest {

    private static final long T = 1_700_000_000L;

    @TempDir Path dir;

    /** A step of that campaign: every flow delivered, and when the rows became visible. */
    private static StepResult e2eStep(
            String system, double rate, long delivered, Visibility visibility) {
        long sent = (long) rate * 30;
        return new StepResult(
                system,
                rate,
                rate * 0.99,
                true,
                sent,
                sent / 11,
                "flows",
                sent,
                delivered,
                0,
                Map.of("sum_mismatch", 0L, "agent_rejected", 0L, "agent_dropped", 0L),
                Map.of("flink-tm", 110.0, "clickhouse", 80.0, "loadgen", 20.0),
                Map.of("flink-tm", 1900L),
                88.0,
                visibility);
    }

    private static Visibility lag(double p50, double p99, double lastRowAfterLoad) {
        return new Visibility(p50, p99, lastRowAfterLoad, BenchOptions.DEFAULT_MAX_LAG_SECONDS);
    }

    @Test
    void aCleanStepThatCaughtUpInTheDrainIsNotDropFree() {
        // Enrichment on at 100 K: exact counts, p50 11.9 s, p99 24.9 s: it caught up in the drain.
        StepResult lagging = e2eStep("on", 100_000, 3_000_000, lag(11.9, 24.9, 26.0));
        assertThat(lagging.clean()).isTrue();
        assertThat(lagging.sustained()).isFalse();
        assertThat(lagging.dropFree()).isFalse();

        // Enrichment off at 150 K: p50 0.7 s, p99 1.7 s, the last row one flush after the load.
        StepResult keepingUp = e2eStep("off", 150_000, 4_500_000, lag(0.7, 1.7, 5.6));
        assertThat(keepingUp.sustained()).isTrue();
        assertThat(keepingUp.dropFree()).isTrue();

        // Lost rows stay lost whatever the lag; no row seen at all is not sustained.
        assertThat(e2eStep("off", 150_000, 4_499_999, lag(0.7, 1.7, 5.6)).dropFree()).isFalse();
        StepResult none =
                e2eStep(
                        "off",
                        150_000,
                        0,
                        new Visibility(Double.NaN, Double.NaN, Double.POSITIVE_INFINITY, 10));
        assertThat(none.sustained()).isFalse();

        // The bound is inclusive; stages without visibility are judged by the counts alone.
        assertThat(e2eStep("off", 150_000, 4_500_000, lag(1, 2, 10.0)).dropFree()).isTrue();
        StepResult agent =
                new StepResult(
                        "agent",
                        1,
                        1,
                        true,
                        1,
                        1,
                        "datagrams",
                        1,
                        1,
                        0,
                        Map.of(),
                        Map.of(),
                        Map.of(),
                        1);
        assertThat(agent.sustained()).isNull();
        assertThat(agent.dropFree()).isTrue();
    }

    @Test
    void theLadderStopsAtTheFirstStepNotSustained() {
        // The enriched job of that campaign: clean at every rate, lag growing with the rate.
        Map<Double, Visibility> byRate =
                Map.of(
                        100_000.0, lag(0.9, 3.1, 5.8),
                        125_000.0, lag(6.0, 14.0, 16.0),
                        150_000.0, lag(22.9, 40.2, 44.0),
                        112_500.0, lag(2.5, 8.0, 9.5));
        List<Double> offered = new ArrayList<>();
        RateLadder.Outcome o =
                new RateLadder(List.of(100_000.0, 125_000.0, 150_000.0), 1, Long.MAX_VALUE)
                        .climb(
                                rate -> {
                                    offered.add(rate);
                                    return e2eStep(
                                            "flowhouse-pipeline+enrich",
                                            rate,
                                            (long) rate * 30,
                                            byRate.get(rate));
                                },
                                StepResult::dropFree);
        assertThat(offered).containsExactly(100_000.0, 125_000.0, 112_500.0);
        SystemResult s = new SystemResult("on", o.steps(), o.limited(), o.error(), List.of());
        assertThat(s.highestCleanRate()).isEqualTo(125_000 * 0.99);
        assertThat(s.highestDropFreeRate()).isEqualTo(112_500 * 0.99);
        assertThat(s.bestStep().targetRate()).isEqualTo(112_500);
        assertThat(s.loadgenLimited()).isFalse();
    }

    @Test
    void lastRowAfterTheLoadComesFromThePolls() throws Exception {
        Deque<String> answers = new ArrayDeque<>();
        answers.add(T + "\t100\n");
        answers.add(T + "\t100\n" + (T + 1) + "\t50\n");
        answers.add(T + "\t100\n" + (T + 1) + "\t100\n"); // the last 50 rows
        answers.add(T + "\t100\n" + (T + 1) + "\t100\n"); // nothing new: the drain's quiet
        VisibilityLatency l = new VisibilityLatency(sql -> answers.poll(), "f", T, T * 1000, false);
        l.poll(T * 1000 + 1_000);
        l.poll(T * 1000 + 2_000);
        l.poll(T * 1000 + 14_000); // visible at (2 s + 14 s) / 2 = 8 s
        l.poll(T * 1000 + 30_000);
        VisibilityLatency.Result r = l.result();
        assertThat(r.lastVisibleMillis()).isEqualTo(T * 1000 + 8_000);
        long loadEnd = T * 1000 + 2_000;
        Visibility v = r.visibility(loadEnd, 5);
        assertThat(v.catchUpSeconds()).isEqualTo(6.0);
        assertThat(v.withinLag()).isFalse();
        assertThat(r.visibility(loadEnd, 6).withinLag()).isTrue();
        // Rows all visible before the load ended: no lag at all.
        assertThat(r.visibility(T * 1000 + 20_000, 0).catchUpSeconds()).isZero();
    }

    @Test
    void reportShowsSustainedAndLagBesideTheOldColumns() throws Exception {
        List<SystemResult> systems =
                List.of(
                        new SystemResult(
                                "flowhouse-pipeline",
                                List.of(
                                        e2eStep(
                                                "flowhouse-pipeline",
                                                150_000,
                                                4_500_000,
                                                lag(0.7, 1.7, 5.6))),
                                true,
                                null,
                                List.of()),
                        new SystemResult(
                                "flowhouse-pipeline+enrich",
                                List.of(
                                        e2eStep(
                                                "flowhouse-pipeline+enrich",
                                                100_000,
                                                3_000_000,
                                                lag(11.9, 24.9, 26.0))),
                                false,
                                null,
                                List.of()));
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        BenchReport.print(new PrintStream(table, true, StandardCharsets.UTF_8), "e2e", systems);
        String text = table.toString(StandardCharsets.UTF_8);
        assertThat(text)
                .contains("sustained")
                .contains("lag p50/p99 s")
                .contains("yes 5.6s")
                .contains("no 26.0s")
                .contains("11.9/24.9")
                .contains("highest drop-free flows/s")
                .contains(">= 148,500");
        String enrichedSummary =
                text.lines()
                        .filter(
                                l ->
                                        l.startsWith("flowhouse-pipeline+enrich")
                                                && l.contains("none"))
                        .findFirst()
                        .orElseThrow();
        assertThat(enrichedSummary).contains("none");

        Path json = BenchReport.write(dir, "e2e", "20260101T000000Z", "{}", systems);
        assertThat(Files.readString(json))
                .contains("\"highest_clean_flows_per_s\": 99000.0")
                .contains("\"highest_drop_free_flows_per_s\": 0.0")
                .contains(
                        "\"sustained\": false, \"lag_p50_s\": 11.90, \"lag_p99_s\": 24.90,"
                                + " \"last_row_after_load_s\": 26.00, \"max_lag_s\": 10.00,"
                                + " \"drop_free\": false}");
        List<String> csv = Files.readAllLines(dir.resolve("e2e-20260101T000000Z.csv"));
        assertThat(csv.get(0))
                .endsWith(
                        ",clean,sustained,lag_p50_s,lag_p99_s,last_row_after_load_s,max_lag_s,"
                                + "drop_free");
        assertThat(csv.get(2)).endsWith(",true,false,11.90,24.90,26.00,10.00,false");
    }

    @Test
    void maxLagAndEnrichOptions() {
        assertThat(BenchOptions.parse().maxLagSeconds())
                .isEqualTo(BenchOptions.DEFAULT_MAX_LAG_SECONDS);
        assertThat(BenchOptions.parse("--max-lag", "5s").maxLagSeconds()).isEqualTo(5.0);
        assertThat(BenchOptions.parse("--max-lag", "500ms").maxLagSeconds()).isEqualTo(0.5);
        assertThat(BenchOptions.parse("--max-lag", "7").maxLagSeconds()).isEqualTo(7.0);
        assertThatThrownBy(() -> BenchOptions.parse("--max-lag", "soon").maxLagSeconds())
                .hasMessageContaining("--max-lag");
        assertThat(BenchOptions.parse().enrich()).containsExactly(false);
        assertThat(BenchOptions.parse("--enrich", "on,off").enrich()).containsExactly(true, false);
        assertThatThrownBy(() -> BenchOptions.parse("--enrich", "on,on").enrich())
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> BenchOptions.parse("--enrich", "maybe").enrich())
                .hasMessageContaining("--enrich");
    }
}
