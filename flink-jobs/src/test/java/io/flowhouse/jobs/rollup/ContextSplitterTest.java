// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.Boundary;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

class ContextSplitterTest {

    private static final long T0 = 1_705_320_000_000L;
    private static final long MINUTE = 60_000L;

    static EnrichedFlow enriched(FlowRecord f) {
        return new EnrichedFlow(
                f,
                new FlowContext(
                        Attributes.NONE,
                        new InterfaceContext("xe-0/0/3", "", 0, Boundary.EXTERNAL, "", ""),
                        new InterfaceContext("ge-0/0/4", "", 0, Boundary.INTERNAL, "", ""),
                        "AU",
                        "JP",
                        15_169,
                        13_335,
                        Attributes.NONE,
                        Attributes.NONE));
    }

    static List<ContextRow> split(EnrichedFlow f) {
        List<ContextRow> out = new ArrayList<>();
        new ContextSplitter(MINUTE)
                .flatMap(
                        f,
                        new Collector<>() {
                            @Override
                            public void collect(ContextRow r) {
                                out.add(r);
                            }

                            @Override
                            public void close() {}
                        });
        return out;
    }

    @Test
    void everyKindCountsTheFlowOnceWithThePlainSplitsShares() {
        Random random = new Random(7);
        for (int i = 0; i < 200; i++) {
            long start = T0 + random.nextInt(600_000);
            long end = start + random.nextInt(400_000);
            FlowRecord f =
                    FlowSplitterTest.flow(
                            start, end, 1 + random.nextInt(1 << 20), 1 + random.nextInt(1000));
            List<ContextRow> rows = split(enriched(f));
            List<RollupRow> plain = FlowSplitterTest.split(f, MINUTE);
            for (int kind = ContextRow.INTERFACE; kind <= ContextRow.BOUNDARY_AS; kind++) {
                for (int direction = 0; direction <= (kind == ContextRow.INTERFACE ? 1 : 0); ) {
                    int k = kind;
                    int d = direction;
                    List<ContextRow> of =
                            rows.stream().filter(r -> r.kind() == k && r.direction() == d).toList();
                    List<RollupRow> same =
                            plain.stream()
                                    .filter(
                                            r ->
                                                    r.kind() == RollupKind.INTERFACE.code()
                                                            && r.direction() == d)
                                    .toList();
                    assertThat(of).hasSameSizeAs(same);
                    for (int w = 0; w < of.size(); w++) {
                        assertThat(of.get(w).windowStart()).isEqualTo(same.get(w).windowStart());
                        assertThat(of.get(w).bytes()).isEqualTo(same.get(w).bytes());
                        assertThat(of.get(w).packets()).isEqualTo(same.get(w).packets());
                        assertThat(of.get(w).flows()).isEqualTo(same.get(w).flows());
                    }
                    assertThat(of.stream().mapToLong(ContextRow::bytes).sum()).isEqualTo(f.bytes());
                    assertThat(of.stream().mapToLong(ContextRow::flows).sum()).isEqualTo(1);
                    direction++;
                }
            }
        }
    }

    @Test
    void rowsCarryTheContextOfTheirKind() {
        FlowRecord f = FlowSplitterTest.flow(T0 + 1_000, T0 + 2_000, 100, 2);
        List<ContextRow> rows = split(enriched(f));
        assertThat(rows).hasSize(4);
        assertThat(rows.get(0).key())
                .isEqualTo(
                        new ContextRow.Key(
                                ContextRow.INTERFACE,
                                f.exporterAddress(),
                                3,
                                0,
                                "xe-0/0/3",
                                1,
                                0,
                                0,
                                0,
                                0,
                                "",
                                ""));
        assertThat(rows.get(1).key())
                .isEqualTo(
                        new ContextRow.Key(
                                ContextRow.INTERFACE,
                                f.exporterAddress(),
                                4,
                                1,
                                "ge-0/0/4",
                                0,
                                2,
                                0,
                                0,
                                0,
                                "",
                                ""));
        assertThat(rows.get(2).key())
                .isEqualTo(
                        new ContextRow.Key(
                                ContextRow.COUNTRY_PAIR,
                                f.exporterAddress(),
                                0,
                                0,
                                "",
                                0,
                                0,
                                0,
                                0,
                                0,
                                "AU",
                                "JP"));
        // The AS numbers of the context (as stored), not the exporter's 64500/64501.
        assertThat(rows.get(3).key())
                .isEqualTo(
                        new ContextRow.Key(
                                ContextRow.BOUNDARY_AS,
                                f.exporterAddress(),
                                3,
                                0,
                                "",
                                1,
                                2,
                                6,
                                15_169,
                                13_335,
                                "",
                                ""));
        FlowRecord stored = ContextRollups.withStoredAs(enriched(f));
        assertThat(stored.srcAs()).isEqualTo(15_169);
        assertThat(stored.dstAs()).isEqualTo(13_335);
    }

    @Test
    void theTableIsTheSameDdlOnOldAndCurrentServers() {
        String legacy =
                ContextRollupTables.createStatement(
                        "flowhouse",
                        ServerCapabilities.legacy("18.16.1"),
                        Duration.ofMinutes(1),
                        30);
        String modern =
                ContextRollupTables.createStatement(
                        "flowhouse", ServerCapabilities.modern("24.8"), Duration.ofHours(1), 400);
        assertThat(legacy)
                .contains("flowhouse.flows_context_1m")
                .contains("if_name String")
                .contains("PARTITION BY toYYYYMMDD(window_start)")
                .doesNotContain("TTL");
        assertThat(modern)
                .contains("flowhouse.flows_context_1h")
                .contains("if_name LowCardinality(String)")
                .contains("TTL window_start + INTERVAL 400 DAY");
    }
}
