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
                    .defaultValue(Duration.ofMinutes(2))
                    .withDescription(
                            "Bounded out-of-orderness of flow end times. Exporters emit a flow"
                                    + " when it ends or hits its active timeout, so flows of one"
                                    + " exporter arrive out of end-time order by up to the active"
                                    + " timeout.");

    public static final ConfigOption<Duration> IDLENESS =
            ConfigOptions.key("flowhouse.decode.idleness")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "A Kafka partition silent this long stops holding back the watermark"
                                    + " (FLINK-9183).");

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

    public static final ConfigOption<Long> STATE_MAX_BYTES_PER_EXPORTER =
            ConfigOptions.key("flowhouse.decode.state.max-bytes-per-exporter")
                    .longType()
                    .defaultValue(DecodeStateLimits.DEFAULT_MAX_BYTES_PER_EXPORTER)
                    .withDescription(
                            "Decode state one exporter key may hold, in bytes as stored:"
                                    + " templates, options data and held datagrams. A template"
                                    + " beyond it is refused (TEMPLATE_FLOOD), options data keeps"
                                    + " its last value, a datagram is not held (dead-lettered"
                                    + " as TEMPLATE_MISSING); counted in"
                                    + " state_refused_{templates,options,held}_total.");

    public static final ConfigOption<Long> STATE_MAX_BYTES =
            ConfigOptions.key("flowhouse.decode.state.max-bytes")
                    .longType()
                    .defaultValue(DecodeStateLimits.DEFAULT_MAX_BYTES)
                    .withDescription(
                            "Decode state of all exporters of one parallel decode instance, in"
                                    + " bytes as stored; beyond it new state is refused as for"
                                    + " one exporter.");

    public static final ConfigOption<Integer> STATE_MAX_SCOPES_PER_EXPORTER =
            ConfigOptions.key("flowhouse.decode.state.max-scopes-per-exporter")
                    .intType()
                    .defaultValue(DecodeStateLimits.DEFAULT_MAX_SCOPES_PER_EXPORTER)
                    .withDescription(
                            "Observation domains / source ids one exporter key may keep"
                                    + " templates or options data for; templates and options of"
                                    + " further domains are refused.");

    public static final ConfigOption<Long> TEMPLATE_HOLD_MAX_BYTES =
            ConfigOptions.key("flowhouse.decode.template-hold-max-bytes")
                    .longType()
                    .defaultValue(DecodeStateLimits.DEFAULT_MAX_HELD_BYTES)
                    .withDescription(
                            "Bytes of datagrams held per exporter key; the oldest is released"
                                    + " (dead-lettered as TEMPLATE_MISSING) when more arrive.");

    public static final ConfigOption<Duration> TEMPLATE_LIFETIME =
            ConfigOptions.key("flowhouse.decode.template-lifetime")
                    .durationType()
                    .defaultValue(DecodeStateLimits.DEFAULT_TEMPLATE_LIFETIME)
                    .withDescription(
                            "A template not sent again within this much receive time expires"
                                    + " (RFC 7011 section 8.4, UDP): data using it is then held"
                                    + " and dead-lettered as TEMPLATE_MISSING, and the expiry is"
                                    + " archived. Every re-send refreshes it.");

    public static final ConfigOption<Duration> EXPORTER_IDLE_TIMEOUT =
            ConfigOptions.key("flowhouse.decode.exporter-idle-timeout")
                    .durationType()
                    .defaultValue(DecodeStateLimits.DEFAULT_EXPORTER_IDLE_TIMEOUT)
                    .withDescription(
                            "An exporter key that sends nothing for this long (processing"
                                    + " time) loses all its decode state: templates (their"
                                    + " expiry archived), options data, held datagrams.");

    public static final ConfigOption<Integer> TEMPLATES_ARCHIVE_MAX_RECORD_BYTES =
            ConfigOptions.key("flowhouse.templates.archive.max-record-bytes")
                    .intType()
                    .defaultValue(DecodeStateLimits.DEFAULT_ARCHIVE_MAX_RECORD_BYTES)
                    .withDescription(
                            "Largest templates-topic record written (below Kafka's 1 MiB"
                                    + " message limit); larger templates or options data are"
                                    + " not archived and counted in"
                                    + " templates_archive_skipped_total.");

    public static final ConfigOption<Duration> STATS_SCOPE_IDLE_TIMEOUT =
            ConfigOptions.key("flowhouse.decode.stats.scope-idle-timeout")
                    .durationType()
                    .defaultValue(DecodeStateLimits.DEFAULT_STATS_SCOPE_IDLE_TIMEOUT)
                    .withDescription(
                            "The exporter statistics forget a domain that sent nothing for this"
                                    + " long (processing time): its last minute has been"
                                    + " written, and its sequence state is dropped (the next"
                                    + " datagram resynchronises).");

    public static final ConfigOption<Integer> STATS_MAX_SCOPES_PER_EXPORTER =
            ConfigOptions.key("flowhouse.decode.stats.max-scopes-per-exporter")
                    .intType()
                    .defaultValue(DecodeStateLimits.DEFAULT_STATS_MAX_SCOPES_PER_EXPORTER)
                    .withDescription(
                            "Domains one exporter key has exporter_stats rows for at a time;"
                                    + " datagrams of further domains are counted in one row"
                                    + " per version with observation_domain 4294967295.");

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
