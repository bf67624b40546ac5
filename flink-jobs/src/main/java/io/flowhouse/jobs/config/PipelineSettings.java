// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import io.flowhouse.codec.template.OptionsLimits;
import io.flowhouse.codec.template.TemplateLimits;
import io.flowhouse.jobs.ageing.AgeingSettings;
import io.flowhouse.jobs.rollup.RollupSettings;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.configuration.Configuration;

/**
 * The flow pipeline job's settings, parsed from a {@link Configuration} holding {@link JobOptions}
 * keys (and those of the packets path, the rollups and the fan-out) and checked in one place.
 *
 * <p>{@code kafkaProperties} are the {@value #KAFKA_PROPERTIES_PREFIX}{@code <key>} entries with
 * the prefix removed: Kafka client settings (TLS, SASL, config providers, timeouts) applied to
 * every Kafka source, sink and admin client the job creates.
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
        ClickHouseSettings clickhouse,
        AgeingSettings ageing,
        RollupSettings rollup,
        FanOutSettings fanOut,
        Map<String, String> kafkaProperties) {

    /** Keys under this prefix are passed to every Kafka client of the job, prefix removed. */
    public static final String KAFKA_PROPERTIES_PREFIX = "flowhouse.kafka.properties.";

    /** Client keys the job sets itself; a pass-through value would be ignored or break it. */
    private static final Set<String> JOB_OWNED_KAFKA_KEYS =
            Set.of(
                    "bootstrap.servers",
                    "group.id",
                    "client.id",
                    "key.serializer",
                    "value.serializer",
                    "key.deserializer",
                    "value.deserializer",
                    "transactional.id",
                    "enable.auto.commit");

    public PipelineSettings {
        kafkaProperties = Map.copyOf(kafkaProperties);
        for (String k : kafkaProperties.keySet()) {
            if (JOB_OWNED_KAFKA_KEYS.contains(k)) {
                throw new IllegalArgumentException(
                        KAFKA_PROPERTIES_PREFIX
                                + k
                                + " is set by the job (use the flowhouse.kafka.* option instead)");
            }
        }
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
                        conf.get(JobOptions.TEMPLATES_ARCHIVE_ENABLED),
                        new TemplateLimits(
                                conf.get(JobOptions.TEMPLATES_MAX_PER_EXPORTER),
                                conf.get(JobOptions.TEMPLATES_MAX_FIELDS),
                                conf.get(JobOptions.TEMPLATES_MAX_BYTES_PER_SCOPE)),
                        new OptionsLimits(
                                conf.get(JobOptions.OPTIONS_MAX_STRING_BYTES),
                                conf.get(JobOptions.OPTIONS_MAX_ENTRIES_PER_SCOPE),
                                conf.get(JobOptions.OPTIONS_MAX_BYTES_PER_SCOPE)),
                        new DecodeStateLimits(
                                conf.get(JobOptions.STATE_MAX_BYTES_PER_EXPORTER),
                                conf.get(JobOptions.STATE_MAX_BYTES),
                                conf.get(JobOptions.STATE_MAX_SCOPES_PER_EXPORTER),
                                conf.get(JobOptions.TEMPLATE_HOLD_MAX_BYTES),
                                conf.get(JobOptions.TEMPLATE_LIFETIME),
                                conf.get(JobOptions.EXPORTER_IDLE_TIMEOUT),
                                conf.get(JobOptions.TEMPLATES_ARCHIVE_MAX_RECORD_BYTES),
                                conf.get(JobOptions.STATS_SCOPE_IDLE_TIMEOUT),
                                conf.get(JobOptions.STATS_MAX_SCOPES_PER_EXPORTER)));
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
                        conf.get(JobOptions.CLICKHOUSE_STARTUP_TIMEOUT),
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
                ch,
                AgeingSettings.from(conf),
                RollupSettings.from(conf),
                FanOutSettings.from(conf.toMap()),
                kafkaProperties(conf.toMap()));
    }

    /** The {@value #KAFKA_PROPERTIES_PREFIX} entries of a flat configuration, prefix removed. */
    static Map<String, String> kafkaProperties(Map<String, String> flat) {
        Map<String, String> out = new TreeMap<>();
        flat.forEach(
                (k, v) -> {
                    if (k.startsWith(KAFKA_PROPERTIES_PREFIX)
                            && k.length() > KAFKA_PROPERTIES_PREFIX.length()) {
                        out.put(k.substring(KAFKA_PROPERTIES_PREFIX.length()), v);
                    }
                });
        return out;
    }

    /**
     * A fresh copy of the pass-through Kafka client properties, for a source, sink or admin
     * builder. Values such as {@code ${file:/etc/flowhouse/kafka.secret:password}} are resolved by
     * the Kafka client itself (with {@code config.providers=file}), on the machine that runs it.
     */
    public Properties kafkaClientProperties() {
        Properties p = new Properties();
        p.putAll(kafkaProperties);
        return p;
    }

    @Override
    public String toString() {
        // Never print pass-through values: they may hold secrets (sasl.jaas.config).
        return "PipelineSettings[job="
                + jobName
                + ", kafka="
                + bootstrapServers
                + ", raw="
                + rawTopic
                + ", group="
                + groupId
                + ", parallelism="
                + parallelism
                + ", kafka properties="
                + kafkaProperties.keySet()
                + "]";
    }
}
