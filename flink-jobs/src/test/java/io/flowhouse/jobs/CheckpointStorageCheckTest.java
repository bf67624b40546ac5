// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import java.util.Map;
import org.apache.flink.client.program.StreamContextEnvironment;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.DefaultExecutorServiceLoader;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The production job refuses a STREAMING run whose checkpoints would stay in the JobManager's
 * memory, with an error naming the key, unless memory checkpoints are allowed; a checkpoint
 * directory (the job's flag or the cluster's configuration) and BATCH runs start.
 */
class CheckpointStorageCheckTest {

    private static void check(String... args) {
        Config c = JobArgs.resolve(Map.of(), args);
        FlowPipelineJob.checkCheckpointStorage(
                JobArgs.flinkConfiguration(c), PipelineSettings.from(c, Map.of()));
    }

    @Test
    void streamingWithoutADirectoryIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> check())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("execution.checkpointing.dir is not set")
                .hasMessageContaining("job.allow-memory-checkpoints");
        assertThatThrownBy(
                        () ->
                                check(
                                        "--execution.checkpointing.dir",
                                        "file:///tmp/cp",
                                        "--execution.checkpointing.storage",
                                        "jobmanager"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("execution.checkpointing.storage is jobmanager");
    }

    @Test
    void aDirectoryMemoryAllowedOrBatchStarts() {
        assertThatCode(() -> check("--execution.checkpointing.dir", "file:///tmp/cp"))
                .doesNotThrowAnyException();
        assertThatCode(() -> check("--job.allow-memory-checkpoints", "true"))
                .doesNotThrowAnyException();
        assertThatCode(() -> check("--execution.runtime-mode", "BATCH")).doesNotThrowAnyException();
    }

    @Test
    void theClusterConfigurationCounts() {
        // A job submitted to a session cluster (REST or flink run) gets its environment from
        // Flink's context environment: the cluster's keys, then the job's own.
        Configuration cluster =
                Configuration.fromMap(
                        Map.of("execution.checkpointing.dir", "file:///var/lib/flowhouse/cp"));
        Config c = JobArgs.resolve(Map.of());
        StreamContextEnvironment.setAsContext(
                new DefaultExecutorServiceLoader(),
                cluster,
                getClass().getClassLoader(),
                false,
                true);
        try {
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(
                            JobArgs.flinkConfiguration(c));
            assertThatCode(
                            () ->
                                    FlowPipelineJob.checkCheckpointStorage(
                                            env.getConfiguration(),
                                            PipelineSettings.from(c, Map.of())))
                    .doesNotThrowAnyException();
        } finally {
            StreamContextEnvironment.unsetAsContext();
        }
    }
}
