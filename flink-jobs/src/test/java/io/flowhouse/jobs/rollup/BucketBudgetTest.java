// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * Harness tests of the bucket bound: an exporter sending random ports (as the mutated captures of
 * the fault suite do) opens at most the bound of buckets per kind and window, the rest is summed in
 * the bucket of zeros with exact totals, other exporters and windows keep their own budget, and a
 * closed window's budget is dropped.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class BucketBudgetTest {

    private static final long MINUTE = 60_000L;
    private static final long T0 = 1_705_320_000_000L; // 2024-01-15 12:00:00 UTC
    private static final IpAddress HOSTILE = IpAddress.parse("192.0.2.66");
    private static final IpAddress GOOD = IpAddress.parse("192.0.2.99");

    private static RollupRow portPiece(IpAddress exporter, long window, int port, long bytes) {
        return new RollupRow(
                RollupKind.PROTO_PORT.code(),
                window,
                exporter,
                0,
                0,
                6,
                port,
                0,
                0,
                0,
                IpAddress.UNSPECIFIED,
                IpAddress.UNSPECIFIED,
                bytes,
                1,
                1,
                0);
    }

    @Test
    void anExporterOpensAtMostTheBoundOfBucketsPerWindowAndTotalsStayExact() throws Exception {
        BucketBudget<RollupRow> budget = BucketBudget.ofRows(MINUTE, 0, 100);
        try (OneInputStreamOperatorTestHarness<RollupRow, RollupRow> h =
                new OneInputStreamOperatorTestHarness<>(budget)) {
            h.open();
            long sent = 0;
            for (int port = 1; port <= 1_000; port++) {
                h.processElement(portPiece(HOSTILE, T0, port, port), T0);
                sent += port;
            }
            h.processElement(portPiece(GOOD, T0, 443, 7), T0);
            h.processElement(portPiece(HOSTILE, T0 + MINUTE, 9_999, 5), T0 + MINUTE);
            // An admitted bucket stays admitted once the budget is spent.
            h.processElement(portPiece(HOSTILE, T0, 50, 50), T0);
            sent += 50;

            List<RollupRow> out = h.extractOutputValues();
            List<RollupRow> hostile =
                    out.stream()
                            .filter(r -> r.exporter().equals(HOSTILE) && r.windowStart() == T0)
                            .toList();
            Set<Integer> ports = hostile.stream().map(RollupRow::port).collect(Collectors.toSet());
            // 100 buckets of their own and the bucket of zeros.
            assertThat(ports).hasSize(101).contains(0, 1, 100, 50).doesNotContain(101, 1_000);
            assertThat(hostile.stream().filter(r -> r.port() == 0))
                    .allSatisfy(r -> assertThat(r.protocol()).isZero())
                    .hasSize(900);
            assertThat(hostile.stream().mapToLong(RollupRow::bytes).sum()).isEqualTo(sent);
            assertThat(out)
                    .anySatisfy(r -> assertThat(r.exporter()).isEqualTo(GOOD))
                    .anySatisfy(r -> assertThat(r.port()).isEqualTo(9_999));
            assertThat(budget.scopes()).isEqualTo(3);
            assertThat(budget.buckets()).isEqualTo(102);

            // The first window closes (lateness 0): its budgets go, the next one's stay.
            h.processWatermark(new Watermark(T0 + MINUTE));
            assertThat(budget.scopes()).isEqualTo(1);
            assertThat(budget.buckets()).isEqualTo(1);
            h.processElement(portPiece(HOSTILE, T0 + MINUTE, 9_999, 5), T0 + MINUTE);
            assertThat(budget.buckets()).isEqualTo(1);
        }
    }

    @Test
    void talkerPiecesPassUntouched() throws Exception {
        try (OneInputStreamOperatorTestHarness<RollupRow, RollupRow> h =
                new OneInputStreamOperatorTestHarness<>(BucketBudget.ofRows(MINUTE, 0, 1))) {
            h.open();
            for (int i = 0; i < 10; i++) {
                RollupRow talker =
                        new RollupRow(
                                RollupKind.TALKER.code(),
                                T0,
                                HOSTILE,
                                0,
                                0,
                                0,
                                0,
                                0,
                                0,
                                0,
                                IpAddress.parse("10.0.0." + i),
                                IpAddress.UNSPECIFIED,
                                1,
                                1,
                                1,
                                0);
                h.processElement(talker, T0);
            }
            assertThat(h.extractOutputValues())
                    .extracting(r -> r.srcAddr().toString())
                    .hasSize(10)
                    .doesNotHaveDuplicates();
        }
    }
}
