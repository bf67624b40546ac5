// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.reprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.config.Config;
import io.flowhouse.jobs.config.JobKeys;
import io.flowhouse.jobs.rollup.RollupConfigKeys;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.junit.jupiter.api.Test;

class ReprocessArgsTest {

    @Test
    void parsesTheRangeTopicDatabaseAndResolutionsAndPassesTheRestOn() {
        ReprocessArgs a =
                ReprocessArgs.parse(
                        new String[] {
                            "--from", "2024-01-15T12:00:00Z",
                            "--to", "1705323600000",
                            "--topic", "packets.raw",
                            "--target-database", "replay",
                            "--resolutions", "5m,1h",
                            "--kafka.bootstrap-servers", "127.0.0.1:9093"
                        });
        assertThat(a.fromMillis()).isEqualTo(1_705_320_000_000L);
        assertThat(a.toMillis()).isEqualTo(1_705_323_600_000L);
        assertThat(a.packets()).isTrue();
        assertThat(a.flows()).isFalse();
        Config job = a.job();
        assertThat(job.get(JobKeys.CLICKHOUSE_DATABASE)).isEqualTo("replay");
        assertThat(job.get(JobKeys.KAFKA_BOOTSTRAP_SERVERS)).isEqualTo("127.0.0.1:9093");
        assertThat(job.get(RollupConfigKeys.RESOLUTIONS))
                .containsExactly(Duration.ofMinutes(5), Duration.ofHours(1));
        Configuration conf = ReprocessJob.configuration(a);
        assertThat(conf.get(ExecutionOptions.RUNTIME_MODE)).isEqualTo(RuntimeExecutionMode.BATCH);
        assertThat(job.get(JobKeys.GROUP_ID)).isEqualTo("flowhouse-reprocess");
    }

    @Test
    void openEndsAndBadInput() {
        ReprocessArgs a =
                ReprocessArgs.parse(new String[] {"--from", "earliest", "--to", "latest"});
        assertThat(a.fromMillis()).isEqualTo(-1);
        assertThat(a.toMillis()).isEqualTo(-1);
        assertThat(a.topics()).isEqualTo(List.of("flows", "packets"));
        assertThatThrownBy(() -> ReprocessArgs.parse(new String[] {"--from", "1"}))
                .hasMessageContaining("--from and --to are required");
        assertThatThrownBy(() -> ReprocessArgs.parse(new String[] {"--from", "5", "--to", "5"}))
                .hasMessageContaining("T1 < T2");
        assertThatThrownBy(
                        () ->
                                ReprocessArgs.parse(
                                        new String[] {"--from", "1", "--to", "2", "--topic", "x"}))
                .hasMessageContaining("expected: flows.raw, packets.raw or all");
        assertThatThrownBy(
                        () ->
                                ReprocessArgs.parse(
                                        new String[] {"--from", "yesterday", "--to", "2"}))
                .hasMessageContaining("ISO-8601");
    }

    @Test
    void theRangeWinsOverTheJobsKeysWhateverTheOrder() {
        ReprocessArgs a =
                ReprocessArgs.parse(
                        new String[] {
                            "--target-database", "replay",
                            "--from", "earliest",
                            "--clickhouse.database", "other",
                            "--set", "job.name=mine",
                            "--to", "latest"
                        });
        assertThat(a.job().get(JobKeys.CLICKHOUSE_DATABASE)).isEqualTo("replay");
        assertThat(a.job().get(JobKeys.JOB_NAME)).isEqualTo("mine");
    }
}
