// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.Configuration;

/**
 * The flow pipeline job's settings, parsed from a {@link Configuration} holding {@link JobOptions}
 * keys and checked in one place.
 */
public record PipelineSettings(
        String jobName,
        String bootstrapServers,
        String rawTopic,
        String rejectedTopic,
        String templatesTopic,
        String groupId,
        StartPosition start,
        boolean boundedToLatest,
        int parallelism,
        int maxParallelism,
        Duration checkpointInterval,
        Duration maxOutOfOrderness,
        Duration idleness,
        DecodeSettings decode,
        ClickHouseSettings clickhouse) {

    public PipelineSettings {
        if (maxParallelism < 1 || maxParallelism > 32_768) {
            throw new IllegalArgumentException(
                    "max parallelism " + maxParallelism + " (expected: 1..32768)");
        }
        if (parallelism < 0 || parallelism > maxParallelism) {
            throw new IllegalArgumentException(
                    "parallelism "
                            + parallelism
                            + " (expected: 0 for the cluster default, or 1.."
                            + maxParallelism
                            + ")");
        }
        if (checkpointInterval.toMillis() < 10) {
            throw new IllegalArgumentException(
                    "checkpoint interval " + checkpointInterval + " (expected: >= 10 ms)");
        }
        if (maxOutOfOrderness.isNegative() || idleness.isNegative()) {
            throw new IllegalArgumentException(
                    "out-of-orderness "
                            + maxOutOfOrderness
                            + " and idleness "
                            + idleness
                            + " (expected: >= 0)");
        }
    }

    /**
     * Reads every {@link JobOptions} key. {@code env} may name the ClickHouse user; the password is
     * read on the TaskManagers (file or environment), never here.
     */
    public static PipelineSettings from(Configuration conf, Map<String, String> env) {
        String stop = conf.get(JobOptions.STOP).trim();
        if (!stop.equals("none") && !stop.equals("latest")) {
            throw new IllegalArgumentException("stop " + stop + " (expected: none or latest)");
        }
        DecodeSettings decode =
                new DecodeSettings(
                        conf.get(JobOptions.TEMPLATE_HOLD_TIME),
                        conf.get(JobOptions.TEMPLATE_HOLD_MAX_DATAGRAMS),
                        TemplateScopeMode.parse(conf.get(JobOptions.TEMPLATE_SCOPE)),
                        SamplingPolicy.parse(
                                conf.get(JobOptions.SAMPLING_DEFAULT),
                                conf.get(JobOptions.SAMPLING_OVERRIDES)),
                        conf.get(JobOptions.TEMPLATES_ARCHIVE_ENABLED));
        String user = env.getOrDefault("FLOWHOUSE_CLICKHOUSE_USER", "");
        if (user.isEmpty()) {
            user = conf.get(JobOptions.CLICKHOUSE_USER);
        }
        ClickHouseSettings ch =
                new ClickHouseSettings(
                        conf.get(JobOptions.CLICKHOUSE_URL),
                        conf.get(JobOptions.CLICKHOUSE_DATABASE),
                        user,
                        conf.get(JobOptions.CLICKHOUSE_PASSWORD_FILE),
                        env.containsKey(ClickHouseSettings.PASSWORD_ENV),
                        conf.get(JobOptions.CLICKHOUSE_BATCH_SIZE),
                        conf.get(JobOptions.CLICKHOUSE_FLUSH_INTERVAL),
                        conf.get(JobOptions.CLICKHOUSE_MAX_RETRIES),
                        conf.get(JobOptions.CLICKHOUSE_FLOWS_TTL_DAYS));
        return new PipelineSettings(
                conf.get(JobOptions.JOB_NAME),
                conf.get(JobOptions.KAFKA_BOOTSTRAP_SERVERS),
                conf.get(JobOptions.TOPIC_RAW),
                conf.get(JobOptions.TOPIC_REJECTED),
                conf.get(JobOptions.TOPIC_TEMPLATES),
                conf.get(JobOptions.GROUP_ID),
                StartPosition.parse(conf.get(JobOptions.START)),
                stop.equals("latest"),
                conf.get(JobOptions.PARALLELISM),
                conf.get(JobOptions.MAX_PARALLELISM),
                conf.get(JobOptions.CHECKPOINT_INTERVAL),
                conf.get(JobOptions.MAX_OUT_OF_ORDERNESS),
                conf.get(JobOptions.IDLENESS),
                decode,
                ch);
    }
}
