// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import io.flowhouse.codec.template.OptionsLimits;
import io.flowhouse.codec.template.TemplateLimits;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Every setting of the flow pipeline job, each documented where it is defined. Values come from a
 * YAML or properties file ({@code --config FILE}) and {@code --key value} flags, parsed by {@link
 * JobConfigLoader} into an immutable {@link PipelineSettings}.
 */
public final class JobOptions {

    public static final ConfigOption<String> KAFKA_BOOTSTRAP_SERVERS =
            ConfigOptions.key("flowhouse.kafka.bootstrap-servers")
                    .stringType()
                    .defaultValue("127.0.0.1:9092")
                    .withDescription("Kafka bootstrap servers, host:port[,host:port...].");

    public static final ConfigOption<String> TOPIC_RAW =
            ConfigOptions.key("flowhouse.kafka.topic.raw")
                    .stringType()
                    .defaultValue("flows.raw")
                    .withDescription(
                            "Topic of raw export datagrams (RawDatagram envelopes keyed by"
                                    + " exporter), written by the capture agent.");

    public static final ConfigOption<String> TOPIC_REJECTED =
            ConfigOptions.key("flowhouse.kafka.topic.rejected")
                    .stringType()
                    .defaultValue("flows.rejected")
                    .withDescription(
                            "Dead-letter topic: datagrams that could not be decoded (malformed,"
                                    + " template never seen within the hold time), with the reason"
                                    + " in the record headers.");

    public static final ConfigOption<String> TOPIC_TEMPLATES =
            ConfigOptions.key("flowhouse.kafka.topic.templates")
                    .stringType()
                    .defaultValue("flows.templates")
                    .withDescription(
                            "Compacted topic of every template and options record the decode"
                                    + " step learned (key = exporter, version, domain, template"
                                    + " id). Read back at start so that a replay from any offset"
                                    + " or timestamp can decode data whose template was sent"
                                    + " earlier.");

    public static final ConfigOption<Boolean> TEMPLATES_ARCHIVE_ENABLED =
            ConfigOptions.key("flowhouse.templates.archive")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Write learned templates to the templates topic and read that topic"
                                    + " back at job start.");

    public static final ConfigOption<String> GROUP_ID =
            ConfigOptions.key("flowhouse.kafka.group-id")
                    .stringType()
                    .defaultValue("flowhouse-pipeline")
                    .withDescription(
                            "Consumer group id. Offsets are committed on checkpoints (for"
                                    + " monitoring and for start=committed); the checkpoint is"
                                    + " the source of truth on recovery.");

    public static final ConfigOption<String> START =
            ConfigOptions.key("flowhouse.kafka.start")
                    .stringType()
                    .defaultValue("committed")
                    .withDescription(
                            "Where to start reading flows.raw when not restoring from a"
                                    + " checkpoint/savepoint: earliest, latest, committed (falls"
                                    + " back to earliest when the group has no offset) or"
                                    + " timestamp:<epoch-ms>.");

    public static final ConfigOption<String> STOP =
            ConfigOptions.key("flowhouse.kafka.stop")
                    .stringType()
                    .defaultValue("none")
                    .withDescription(
                            "none (streaming) or latest: stop at the offsets that are the latest"
                                    + " when the job starts (bounded reprocessing of a range).");

    public static final ConfigOption<Integer> PARALLELISM =
            ConfigOptions.key("flowhouse.job.parallelism")
                    .intType()
                    .defaultValue(0)
                    .withDescription("Job parallelism; 0 keeps the cluster default.");

    public static final ConfigOption<Integer> MAX_PARALLELISM =
            ConfigOptions.key("flowhouse.job.max-parallelism")
                    .intType()
                    .defaultValue(128)
                    .withDescription(
                            "Maximum parallelism (number of key groups). Fixed for the life of the"
                                    + " job's state: savepoints restore at any parallelism up to"
                                    + " it.");

    public static final ConfigOption<Duration> CHECKPOINT_INTERVAL =
            ConfigOptions.key("flowhouse.job.checkpoint-interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withDescription(
                            "Exactly-once checkpoint interval. ClickHouse batches and Kafka"
                                    + " offsets are aligned on checkpoints, so this bounds the"
                                    + " end-to-end latency of a row.");

    public static final ConfigOption<String> JOB_NAME =
            ConfigOptions.key("flowhouse.job.name")
                    .stringType()
                    .defaultValue("flowhouse-pipeline")
                    .withDescription("Name of the Flink job.");

    public static final ConfigOption<Duration> MAX_OUT_OF_ORDERNESS =
            ConfigOptions.key("flowhouse.decode.max-out-of-orderness")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withDescription(
                            "Bounded out-of-orderness of receive times within one Kafka partition:"
                                    + " the raw source's watermark, per partition, trails the"
                                    + " newest receive time by this much. The agent writes in"
                                    + " receive order, so a few seconds cover its threads and"
                                    + " several agents' clocks; how late a flow may end is the"
                                    + " rollups' flowhouse.rollup.max-out-of-orderness.");

    public static final ConfigOption<Duration> IDLENESS =
            ConfigOptions.key("flowhouse.decode.idleness")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "A Kafka partition silent this long stops holding back the watermark"
                                    + " (FLINK-9183).");

    public static final ConfigOption<Duration> EVENT_TIME_PAST =
            ConfigOptions.key("flowhouse.decode.event-time.past")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(5))
                    .withDescription(
                            "A flow may end at most this long before its datagram was received;"
                                    + " earlier is an exporter clock or uptime error and is"
                                    + " clamped or rejected (event-time.out-of-range). Keep it"
                                    + " below flowhouse.rollup.allowed-lateness minus the finest"
                                    + " resolution: a flow that ends earlier than that reaches"
                                    + " flows but is late for the rollups.");

    public static final ConfigOption<Duration> EVENT_TIME_FUTURE =
            ConfigOptions.key("flowhouse.decode.event-time.future")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(5))
                    .withDescription(
                            "A flow may end at most this long after its datagram was received (a"
                                    + " clock a little ahead); later is clamped or rejected.");

    public static final ConfigOption<Duration> EVENT_TIME_MAX_FLOW_DURATION =
            ConfigOptions.key("flowhouse.decode.event-time.max-flow-duration")
                    .durationType()
                    .defaultValue(Duration.ofHours(1))
                    .withDescription(
                            "The longest a flow may last (exporters cut flows at their active"
                                    + " timeout, at most an hour on common routers); an earlier"
                                    + " start is moved to the end minus this, which bounds the"
                                    + " rollup pieces of one flow.");

    public static final ConfigOption<String> EVENT_TIME_OUT_OF_RANGE =
            ConfigOptions.key("flowhouse.decode.event-time.out-of-range")
                    .stringType()
                    .defaultValue("clamp")
                    .withDescription(
                            "A flow that ends outside the window: clamp (its times are moved into"
                                    + " the window and the exporter's kept in exported_flow_start"
                                    + " / exported_flow_end) or reject (dropped; its datagram goes"
                                    + " to the dead-letter topic, reason EVENT_TIME_OUT_OF_RANGE).");

    public static final ConfigOption<Integer> DEDUP_MAX_STREAMS =
            ConfigOptions.key("flowhouse.decode.dedup.max-streams-per-exporter")
                    .intType()
                    .defaultValue(16)
                    .withDescription(
                            "Agent streams (one per agent run, exporter and receive thread) whose"
                                    + " seen datagrams each exporter key remembers, to drop"
                                    + " re-sends; the least recently received is forgotten when"
                                    + " another begins (dedup_streams_evicted_total).");

    public static final ConfigOption<Integer> DEDUP_MAX_GAPS =
            ConfigOptions.key("flowhouse.decode.dedup.max-gaps-per-stream")
                    .intType()
                    .defaultValue(64)
                    .withDescription(
                            "Runs of not yet seen datagrams a stream remembers (16 bytes each);"
                                    + " beyond, the oldest is forgotten and a datagram below it is"
                                    + " accepted unchecked (dedup_unverified_datagrams_total).");

    public static final ConfigOption<Duration> TEMPLATE_HOLD_TIME =
            ConfigOptions.key("flowhouse.decode.template-hold-time")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription(
                            "How long data that arrives before its template is held in keyed"
                                    + " state (processing time). When the template comes the data"
                                    + " is decoded; when the time runs out it goes to the"
                                    + " dead-letter topic with reason TEMPLATE_MISSING. 0 rejects"
                                    + " at once.");

    public static final ConfigOption<Integer> TEMPLATE_HOLD_MAX_DATAGRAMS =
            ConfigOptions.key("flowhouse.decode.template-hold-max-datagrams")
                    .intType()
                    .defaultValue(1024)
                    .withDescription(
                            "At most this many datagrams are held per exporter; the oldest is"
                                    + " rejected when more arrive.");

    public static final ConfigOption<Integer> TEMPLATES_MAX_PER_EXPORTER =
            ConfigOptions.key("flowhouse.decode.templates.max-per-exporter")
                    .intType()
                    .defaultValue(TemplateLimits.DEFAULT_MAX_TEMPLATES_PER_EXPORTER)
                    .withDescription(
                            "Templates (data and options) one exporter key may hold across its"
                                    + " domains; more are refused and counted as TEMPLATE_FLOOD.");

    public static final ConfigOption<Integer> TEMPLATES_MAX_FIELDS =
            ConfigOptions.key("flowhouse.decode.templates.max-fields")
                    .intType()
                    .defaultValue(TemplateLimits.DEFAULT_MAX_FIELDS_PER_TEMPLATE)
                    .withDescription(
                            "Fields one template may declare; a larger template is refused and"
                                    + " counted as TEMPLATE_TOO_LARGE.");

    public static final ConfigOption<Integer> TEMPLATES_MAX_BYTES_PER_SCOPE =
            ConfigOptions.key("flowhouse.decode.templates.max-bytes-per-scope")
                    .intType()
                    .defaultValue(TemplateLimits.DEFAULT_MAX_BYTES_PER_SCOPE)
                    .withDescription(
                            "Template bytes (7 + 8 per field each, as stored) one scope (exporter,"
                                    + " version, domain) may hold; more are refused and counted"
                                    + " as TEMPLATE_FLOOD.");

    public static final ConfigOption<Integer> OPTIONS_MAX_STRING_BYTES =
            ConfigOptions.key("flowhouse.decode.options.max-string-bytes")
                    .intType()
                    .defaultValue(OptionsLimits.DEFAULT_MAX_STRING_BYTES)
                    .withDescription(
                            "Longest options string kept (interface names), in UTF-8 bytes;"
                                    + " longer ones are cut and counted as OPTION_TRUNCATED.");

    public static final ConfigOption<Integer> OPTIONS_MAX_ENTRIES_PER_SCOPE =
            ConfigOptions.key("flowhouse.decode.options.max-entries-per-scope")
                    .intType()
                    .defaultValue(OptionsLimits.DEFAULT_MAX_ENTRIES_PER_SCOPE)
                    .withDescription(
                            "Interface names, and sampling rates, one scope may hold; options"
                                    + " records adding more are refused and counted as"
                                    + " OPTIONS_LIMIT.");

    public static final ConfigOption<Integer> OPTIONS_MAX_BYTES_PER_SCOPE =
            ConfigOptions.key("flowhouse.decode.options.max-bytes-per-scope")
                    .intType()
                    .defaultValue(OptionsLimits.DEFAULT_MAX_BYTES_PER_SCOPE)
                    .withDescription(
                            "Bytes one scope's options data may take as stored and archived;"
                                    + " options records growing it beyond are refused and counted"
                                    + " as OPTIONS_LIMIT.");

    public static final ConfigOption<String> TEMPLATE_SCOPE =
            ConfigOptions.key("flowhouse.decode.template-scope")
                    .stringType()
                    .defaultValue("address-and-port")
                    .withDescription(
                            "address-and-port (RFC 7011 transport session: exporter address,"
                                    + " UDP source port and observation domain) or address-only"
                                    + " (for exporters that change source port; templates are"
                                    + " then shared across ports of one address).");

    public static final ConfigOption<Long> SAMPLING_DEFAULT =
            ConfigOptions.key("flowhouse.decode.sampling.default-rate")
                    .longType()
                    .defaultValue(1L)
                    .withDescription(
                            "Sampling rate (1 in N) applied to flows whose exporter announces"
                                    + " none and has no override.");

    public static final ConfigOption<List<String>> SAMPLING_OVERRIDES =
            ConfigOptions.key("flowhouse.decode.sampling.overrides")
                    .stringType()
                    .asList()
                    .defaultValues()
                    .withDescription(
                            "Per-exporter sampling rates that win over what the exporter"
                                    + " announces, as a list of ADDRESS=RATE or"
                                    + " [ADDRESS]:PORT=RATE entries separated by ';', e.g."
                                    + " '192.0.2.1=1000;[2001:db8::1]:2055=100'.");

    public static final ConfigOption<String> CLICKHOUSE_URL =
            ConfigOptions.key("flowhouse.clickhouse.url")
                    .stringType()
                    .defaultValue("http://127.0.0.1:8123")
                    .withDescription("ClickHouse HTTP endpoint.");

    public static final ConfigOption<String> CLICKHOUSE_DATABASE =
            ConfigOptions.key("flowhouse.clickhouse.database")
                    .stringType()
                    .defaultValue("flowhouse")
                    .withDescription("ClickHouse database; migrations create it.");

    public static final ConfigOption<String> CLICKHOUSE_USER =
            ConfigOptions.key("flowhouse.clickhouse.user")
                    .stringType()
                    .defaultValue("default")
                    .withDescription(
                            "ClickHouse user; the environment variable FLOWHOUSE_CLICKHOUSE_USER"
                                    + " wins when set.");

    public static final ConfigOption<String> CLICKHOUSE_PASSWORD_FILE =
            ConfigOptions.key("flowhouse.clickhouse.password-file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "File holding the ClickHouse password, read on the TaskManagers."
                                    + " Otherwise their environment variable"
                                    + " FLOWHOUSE_CLICKHOUSE_PASSWORD, else empty. Passwords are"
                                    + " never read from flags or put into the job graph.");

    public static final ConfigOption<Integer> CLICKHOUSE_BATCH_SIZE =
            ConfigOptions.key("flowhouse.clickhouse.batch-size")
                    .intType()
                    .defaultValue(50_000)
                    .withDescription("Rows per RowBinary insert (a batch is also cut on flush).");

    public static final ConfigOption<Duration> CLICKHOUSE_FLUSH_INTERVAL =
            ConfigOptions.key("flowhouse.clickhouse.flush-interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withDescription("Longest time a row waits in a batch.");

    public static final ConfigOption<Integer> CLICKHOUSE_MAX_RETRIES =
            ConfigOptions.key("flowhouse.clickhouse.max-retries")
                    .intType()
                    .defaultValue(20)
                    .withDescription(
                            "Retries (exponential backoff) of an insert that failed for a"
                                    + " retriable reason (connection refused, timeout, server"
                                    + " overloaded) before the job fails and restarts from its last"
                                    + " checkpoint.");

    public static final ConfigOption<Duration> CLICKHOUSE_STARTUP_TIMEOUT =
            ConfigOptions.key("flowhouse.clickhouse.startup-timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(5))
                    .withDescription(
                            "How long a ClickHouse writer that opens (job start or restart) keeps"
                                    + " retrying, with backoff, while the server is unreachable"
                                    + " before the task fails; 0 tries once.");

    public static final ConfigOption<Integer> CLICKHOUSE_FLOWS_TTL_DAYS =
            ConfigOptions.key("flowhouse.clickhouse.flows-ttl-days")
                    .intType()
                    .defaultValue(0)
                    .withDescription("Days raw flows are kept, on servers with TTL; 0 keeps them.");

    private JobOptions() {}
}
