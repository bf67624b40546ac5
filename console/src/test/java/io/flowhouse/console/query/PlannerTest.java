// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.console.filter.FilterParser;
import io.flowhouse.console.model.Fields;
import io.flowhouse.console.model.Source;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlannerTest {

    static final long NOW = 1_800_000_000L;
    private final ConsoleLimits limits = ConsoleLimits.defaults();
    private final Planner planner = new Planner(limits);

    private Plan plan(String... kv) {
        Map<String, String> p = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put(kv[i], kv[i + 1]);
        }
        ViewRequest r =
                ViewRequest.parse(
                        p,
                        Fields.standard(),
                        new FilterParser(Fields.standard(), FilterParser.Limits.DEFAULT),
                        limits,
                        1,
                        1,
                        NOW);
        return planner.plan(r, r.dimensions(), true);
    }

    private Plan contextPlan(String... kv) {
        Map<String, String> p = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put(kv[i], kv[i + 1]);
        }
        ViewRequest r =
                ViewRequest.parse(
                        p,
                        Fields.standard(),
                        new FilterParser(Fields.standard(), FilterParser.Limits.DEFAULT),
                        limits,
                        1,
                        1,
                        NOW);
        return planner.plan(r, r.dimensions(), true, true);
    }

    @Test
    void contextFieldsReadTheContextRollupsWhenTheJobWritesThem() {
        Plan names = contextPlan("range", "24h", "dimension", "InIfName");
        assertThat(names.source()).isEqualTo(Source.CONTEXT_INTERFACE_IN);
        assertThat(names.table()).isEqualTo("flows_context_1m");
        assertThat(contextPlan("range", "7d", "dimension", "OutIfName").table())
                .isEqualTo("flows_context_1h");
        assertThat(contextPlan("range", "24h", "dimension", "CountryPair").source())
                .isEqualTo(Source.COUNTRY_PAIR);
        assertThat(
                        contextPlan(
                                        "range",
                                        "30d",
                                        "dimension",
                                        "SrcAS",
                                        "filter",
                                        "InIfBoundary = external AND SrcAS IN (15169, 13335)"
                                                + " AND Proto = 6")
                                .source())
                .isEqualTo(Source.BOUNDARY_AS);
        assertThat(contextPlan("range", "24h", "dimension", "InIf", "filter", "Proto = 6").source())
                .isEqualTo(Source.BOUNDARY_AS);
        // The plain kinds still answer what they hold.
        assertThat(contextPlan("range", "24h", "dimension", "SrcAS").source())
                .isEqualTo(Source.AS_PAIR);
        // Without the context tables a context field over a long range is a clear 400.
        assertThatThrownBy(() -> plan("range", "24h", "dimension", "SrcCountry"))
                .hasMessageContaining("no rollup holds SrcCountry");
    }

    @Test
    void resolutionFollowsTheRange() {
        assertThat(plan("range", "5m").source()).isEqualTo(Source.RAW);
        Plan day = plan("range", "24h");
        assertThat(day.table()).isEqualTo("flows_1m");
        assertThat(day.source()).isEqualTo(Source.INTERFACE_IN);
        assertThat(day.step()).isEqualTo(300);
        assertThat(day.buckets()).isBetween(288, 289);
        Plan week = plan("range", "7d");
        assertThat(week.table()).isEqualTo("flows_1h");
        assertThat(week.step()).isEqualTo(3600);
        assertThat(plan("range", "30d").step()).isEqualTo(10_800);
    }

    @Test
    void theSourceHoldsEveryFieldTheViewNeeds() {
        assertThat(plan("range", "24h", "dimension", "Service").source())
                .isEqualTo(Source.PROTO_PORT);
        assertThat(plan("range", "24h", "dimension", "OutIf").source())
                .isEqualTo(Source.INTERFACE_OUT);
        assertThat(plan("range", "24h", "dimension", "SrcAS", "filter", "DstAS = 1").source())
                .isEqualTo(Source.AS_PAIR);
        assertThat(plan("range", "24h", "dimension", "SrcAddr").source())
                .isEqualTo(Source.TOP_TALKER);
        assertThat(
                        plan(
                                        "range",
                                        "24h",
                                        "dimension",
                                        "SrcAddr",
                                        "filter",
                                        "Exporter = 10.0.0.1")
                                .source())
                .isEqualTo(Source.TOP_TALKER);
        // A talker filter on the top-N rows would lose its bounds: the raw table answers.
        assertThat(
                        plan("range", "1h", "dimension", "SrcAddr", "filter", "SrcAddr = 10.0.0.1")
                                .source())
                .isEqualTo(Source.RAW);
        Plan mixed = plan("range", "1h", "dimension", "InIf", "filter", "Proto = 6");
        assertThat(mixed.source()).isEqualTo(Source.RAW);
        assertThat(mixed.notes()).anyMatch(n -> n.contains("raw table"));
    }

    @Test
    void longRangesThatNeedTheRawTableAreRefused() {
        assertThatThrownBy(() -> plan("range", "7d", "dimension", "InIf", "filter", "Proto = 6"))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("no rollup holds")
                .hasMessageContaining("6h");
        assertThatThrownBy(() -> plan("range", "7d", "resolution", "raw"))
                .hasMessageContaining("raw table is read for ranges up to 6h");
        assertThatThrownBy(() -> plan("range", "31d")).hasMessageContaining("longer than 30d");
        assertThatThrownBy(() -> plan("range", "24h", "resolution", "5m"))
                .hasMessageContaining("expected: auto, raw, 1m, 1h");
        assertThatThrownBy(() -> plan("from", "100", "to", "50"))
                .hasMessageContaining("ends before");
        assertThatThrownBy(() -> plan("range", "24h", "limit", "0")).hasMessageContaining("limit");
        assertThatThrownBy(() -> plan("range", "24h", "bogus", "1"))
                .hasMessageContaining("unknown parameter 'bogus'");
    }

    @Test
    void theRangeIsAlignedToTheStep() {
        Plan p =
                plan(
                        "from",
                        "2026-11-21T23:07:13Z",
                        "to",
                        "2026-11-22T01:00:00Z",
                        "resolution",
                        "1m");
        assertThat(p.from() % p.step()).isZero();
        assertThat(p.to() % p.step()).isZero();
        assertThat(p.from()).isLessThanOrEqualTo(1_795_302_433L);
        assertThat(p.baseCondition())
                .isEqualTo(
                        "window_start >= toDateTime("
                                + p.from()
                                + ") AND window_start < toDateTime("
                                + p.to()
                                + ") AND kind = 'interface' AND direction = 0");
    }
}
