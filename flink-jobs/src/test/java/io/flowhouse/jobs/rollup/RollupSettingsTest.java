// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigResolver;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RollupSettingsTest {

    @Test
    void defaultsAreOneMinuteAndOneHourWithTtls() {
        RollupSettings s = RollupSettings.defaults();
        assertThat(s.resolutions()).containsExactly(Duration.ofMinutes(1), Duration.ofHours(1));
        assertThat(s.ttlDays(Duration.ofMinutes(1))).isEqualTo(30);
        assertThat(s.ttlDays(Duration.ofHours(1))).isEqualTo(400);
        assertThat(s.topN()).isEqualTo(20);
    }

    @Test
    void parsesResolutionsAndRejectsRepeats() {
        Config c =
                ConfigResolver.of(RollupConfigKeys.SCHEMA)
                        .flag("flowhouse.rollup.resolutions", "30s;5m;1d", "--rollup.resolutions")
                        .flag("flowhouse.rollup.ttl-days", "5m=7", "--rollup.ttl-days")
                        .resolve();
        RollupSettings s = RollupSettings.from(c);
        assertThat(s.resolutions())
                .extracting(RollupTables::tableName)
                .containsExactly("flows_30s", "flows_5m", "flows_1d");
        assertThat(s.ttlDays(Duration.ofMinutes(5))).isEqualTo(7);
        assertThat(s.ttlDays(Duration.ofDays(1))).isZero();
        assertThatThrownBy(
                        () ->
                                s.withResolutions(
                                        List.of(Duration.ofMinutes(1), Duration.ofSeconds(60))))
                .hasMessageContaining("repeat");
        assertThatThrownBy(() -> RollupTables.label(Duration.ofMillis(1500)))
                .hasMessageContaining("whole seconds");
    }

    @Test
    void rejectsMoreLocalSumsThanATableHolds() {
        Config c =
                ConfigResolver.of(RollupConfigKeys.SCHEMA)
                        .flag(
                                "flowhouse.rollup.combine-buckets",
                                Integer.toString(BucketTable.MAX_BUCKETS + 1),
                                "--rollup.combine-buckets")
                        .resolve();
        assertThatThrownBy(() -> RollupSettings.from(c)).hasMessageContaining("combine buckets");
    }

    @Test
    void tableDdlFollowsTheServer() {
        String legacy =
                RollupTables.createStatement(
                        "flowhouse",
                        ServerCapabilities.legacy("18.16.1"),
                        Duration.ofMinutes(1),
                        30);
        assertThat(legacy)
                .contains("CREATE TABLE IF NOT EXISTS flowhouse.flows_1m")
                .contains("exporter FixedString(16)")
                .contains("ENGINE = ReplacingMergeTree(version)")
                .contains("PARTITION BY toYYYYMMDD(window_start)")
                .doesNotContain("TTL");
        String modern =
                RollupTables.createStatement(
                        "flowhouse", ServerCapabilities.modern("24.8"), Duration.ofHours(1), 400);
        assertThat(modern)
                .contains("exporter IPv6")
                .contains("PARTITION BY toYYYYMM(window_start)")
                .contains("TTL window_start + INTERVAL 400 DAY");
    }
}
