// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The latency arithmetic on scripted ClickHouse answers, polled at given times (no clock). */
class VisibilityLatencyTest {

    private static final long T = 1_700_000_000L; // a whole second, in seconds

    @Test
    void rowsCountFromTheMiddleOfTheirSecondToTheMiddleOfThePollInterval() throws Exception {
        Deque<String> answers = new ArrayDeque<>();
        answers.add(""); // nothing visible yet
        answers.add(T + "\t10\n"); // 10 rows of second T
        answers.add(T + "\t10\n" + (T + 1) + "\t90\n"); // 90 rows of T+1
        answers.add(T + "\t10\n" + (T + 1) + "\t90\n"); // nothing new
        List<String> asked = new ArrayList<>();
        VisibilityLatency l =
                new VisibilityLatency(
                        sql -> {
                            asked.add(sql);
                            return answers.poll();
                        },
                        "flowhouse.flows",
                        T,
                        T * 1000,
                        false);
        l.poll(T * 1000 + 2_000);
        l.poll(T * 1000 + 4_000); // 10 rows: (2 s + 4 s) / 2 - 0.5 s = 2.5 s
        l.poll(T * 1000 + 8_000); // 90 rows: (4 s + 8 s) / 2 - 1.5 s = 4.5 s
        l.poll(T * 1000 + 9_000);
        VisibilityLatency.Result r = l.result();
        assertThat(r.rows()).isEqualTo(100);
        assertThat(r.p50Seconds()).isEqualTo(4.51); // upper edge of the 10 ms bucket
        assertThat(r.p99Seconds()).isEqualTo(4.51);
        assertThat(r.maxSeconds()).isEqualTo(4.51);
        assertThat(asked.get(0))
                .isEqualTo(
                        "SELECT toUnixTimestamp(time_received) AS s, count() FROM flowhouse.flows"
                                + " WHERE time_received >= toDateTime("
                                + T
                                + ") GROUP BY s");
    }

    @Test
    void tenPercentSlowRowsMoveP99NotP50() throws Exception {
        Deque<String> answers = new ArrayDeque<>();
        answers.add(T + "\t900\n");
        answers.add(T + "\t1000\n");
        VisibilityLatency l = new VisibilityLatency(sql -> answers.poll(), "f", T, T * 1000, false);
        l.poll(T * 1000 + 1_000); // 900 rows at 0 s
        l.poll(T * 1000 + 21_000); // 100 rows at (1 + 21) / 2 - 0.5 = 10.5 s
        VisibilityLatency.Result r = l.result();
        assertThat(r.p50Seconds()).isEqualTo(0.01);
        assertThat(r.p99Seconds()).isEqualTo(10.51);
        assertThat(new VisibilityLatency(sql -> "", "f", T, T * 1000, false).result()).isNull();
    }
}
