// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import io.flowhouse.codec.template.OptionsLimits;
import io.flowhouse.codec.template.TemplateLimits;
import io.flowhouse.config.Config;
import io.flowhouse.enrich.EnrichKeys;
import io.flowhouse.enrich.EnrichSettings;
import io.flowhouse.jobs.ageing.AgeingSettings;
import io.flowhouse.jobs.rollup.RollupSettings;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkKeys;
import io.flowhouse.sinks.kafka.FlowsTopicKeys;
import io.flowhouse.sinks.kafka.FlowsTopicOptions;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * The flow pipeline job's settings, from a configuration of {@link JobKeys#SCHEMA} (the job's keys,
 * those of the packets path, the rollups, the ClickHouse sink and the fan-out).
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
        boolean allowMemoryCheckpoints,
        Duration maxOutOfOrderness,
        Duration idleness,
        Duration quietAfter,
        DecodeSettings decode,
        ClickHouseSettings clickhouse,
        AgeingSettings ageing,
        RollupSettings rollup,
        FanOutSettings fanOut,
        FlowsTopicOptions flowsTopic,
        EnrichSettings enrich,
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
        if (clickhouse != null
                && !clickhouse.enabled()
                && flowsTopic == null
                && (fanOut == null || (fanOut.zmq() == null && fanOut.ipfix() == null))) {
            throw new IllegalArgumentException(
                    "clickhouse.enabled is false and no flows-topic, ZMQ or IPFIX output is on:"
                            + " the job would write its flows nowhere");
        }
        if (quietAfter.isNegative()) {
            throw new IllegalArgumentException("quiet after " + quietAfter + " (expected: >= 0)");
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
     * The settings of a resolved configuration of {@link JobKeys#SCHEMA}.
     *
     * @param env where the job is built: whether the ClickHouse password variable is set there (the
     *     password itself is read on the TaskManagers, file or environment, never here)
     */
    public static PipelineSettings from(Config conf, Map<String, String> env) {
        DecodeSettings decode =
                new DecodeSettings(
                        conf.get(JobKeys.TEMPLATE_HOLD_TIME),
                        conf.get(JobKeys.TEMPLATE_HOLD_MAX_DATAGRAMS),
                        conf.get(JobKeys.TEMPLATE_SCOPE),
                        SamplingPolicy.parse(
                                conf.get(JobKeys.SAMPLING_DEFAULT),
                                conf.get(JobKeys.SAMPLING_OVERRIDES)),
                        conf.get(JobKeys.TEMPLATES_ARCHIVE_ENABLED),
                        new TemplateLimits(
                                conf.get(JobKeys.TEMPLATES_MAX_PER_EXPORTER),
                                conf.get(JobKeys.TEMPLATES_MAX_FIELDS),
                                conf.get(JobKeys.TEMPLATES_MAX_BYTES_PER_SCOPE)),
                        new OptionsLimits(
                                conf.get(JobKeys.OPTIONS_MAX_STRING_BYTES),
                                conf.get(JobKeys.OPTIONS_MAX_ENTRIES_PER_SCOPE),
                                conf.get(JobKeys.OPTIONS_MAX_BYTES_PER_SCOPE)),
                        new DecodeStateLimits(
                                conf.get(JobKeys.STATE_MAX_BYTES_PER_EXPORTER),
                                conf.get(JobKeys.STATE_MAX_BYTES),
                                conf.get(JobKeys.STATE_MAX_SCOPES_PER_EXPORTER),
                                conf.get(JobKeys.TEMPLATE_HOLD_MAX_BYTES),
                                conf.get(JobKeys.TEMPLATE_LIFETIME),
                                conf.get(JobKeys.EXPORTER_IDLE_TIMEOUT),
                                conf.get(JobKeys.TEMPLATES_ARCHIVE_MAX_RECORD_BYTES),
                                conf.get(JobKeys.STATS_SCOPE_IDLE_TIMEOUT),
                                conf.get(JobKeys.STATS_MAX_SCOPES_PER_EXPORTER),
                                conf.get(JobKeys.STATS_MAX_SFLOW_SOURCES)),
                        new EventTimeSettings(
                                conf.get(JobKeys.EVENT_TIME_PAST),
                                conf.get(JobKeys.EVENT_TIME_FUTURE),
                                conf.get(JobKeys.EVENT_TIME_MAX_FLOW_DURATION),
                                conf.get(JobKeys.EVENT_TIME_OUT_OF_RANGE)),
                        new DedupSettings(
                                conf.get(JobKeys.DEDUP_MAX_STREAMS),
                                conf.get(JobKeys.DEDUP_MAX_GAPS)));
        ClickHouseSettings ch =
                new ClickHouseSettings(
                        ClickHouseSinkKeys.options(conf, env),
                        conf.get(JobKeys.CLICKHOUSE_FLOWS_TTL_DAYS),
                        conf.get(JobKeys.CLICKHOUSE_ENABLED));
        return new PipelineSettings(
                conf.get(JobKeys.JOB_NAME),
                conf.get(JobKeys.KAFKA_BOOTSTRAP_SERVERS),
                conf.get(JobKeys.TOPIC_RAW),
                conf.get(JobKeys.TOPIC_REJECTED),
                conf.get(JobKeys.TOPIC_TEMPLATES),
                conf.get(JobKeys.GROUP_ID),
                conf.get(JobKeys.START),
                conf.get(JobKeys.STOP).equals("latest"),
                conf.get(JobKeys.PARALLELISM),
                conf.get(JobKeys.MAX_PARALLELISM),
                conf.get(JobKeys.CHECKPOINT_INTERVAL),
                conf.get(JobKeys.ALLOW_MEMORY_CHECKPOINTS),
                conf.get(JobKeys.MAX_OUT_OF_ORDERNESS),
                conf.get(JobKeys.IDLENESS),
                conf.get(JobKeys.QUIET_AFTER),
                decode,
                ch,
                AgeingSettings.from(conf),
                RollupSettings.from(conf),
                FanOutSettings.from(conf),
                FlowsTopicKeys.options(conf),
                EnrichKeys.settings(conf),
                new TreeMap<>(conf.get(JobKeys.KAFKA_PROPERTIES)));
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
