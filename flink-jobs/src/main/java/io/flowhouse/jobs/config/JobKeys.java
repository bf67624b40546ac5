// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import io.flowhouse.codec.template.OptionsLimits;
import io.flowhouse.codec.template.TemplateLimits;
import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import io.flowhouse.config.ValueType;
import io.flowhouse.enrich.EnrichKeys;
import io.flowhouse.enrich.snmp.SnmpKeys;
import io.flowhouse.jobs.ageing.AgeingConfigKeys;
import io.flowhouse.jobs.rollup.RollupConfigKeys;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkKeys;
import io.flowhouse.sinks.ipfix.IpfixExporterKeys;
import io.flowhouse.sinks.kafka.FlowsTopicKeys;
import io.flowhouse.sinks.zmq.ZmqSinkKeys;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The flow pipeline job's own keys, declared once, and {@link #SCHEMA}: every key the job reads,
 * under {@code flowhouse}, with those of the packets path ({@link AgeingConfigKeys}), the rollups
 * ({@link RollupConfigKeys}) and the sinks ({@link ClickHouseSinkKeys}, {@link ZmqSinkKeys}, {@link
 * IpfixExporterKeys}, {@link FlowsTopicKeys}). Names are relative to {@code flowhouse} ({@code
 * kafka.start}); a file may also write them in full. Values come from defaults, a YAML or
 * properties file ({@code --config}), the environment ({@code FLOWHOUSE_KAFKA_START}) and flags
 * ({@code --set kafka.start=earliest} or {@code --kafka.start earliest}); {@link
 * PipelineSettings#from} turns them into the job's record. The key tables of {@code
 * flink-jobs/README.md}, {@code README-rollups.md} and the sinks' READMEs are generated from these
 * declarations ({@code JobConfigDocsTest}).
 */
public final class JobKeys {

    private static final ValueType<StartPosition> START_POSITION =
            ValueType.of(
                    "earliest, latest, committed or timestamp:<epoch-ms>",
                    StartPosition::parse,
                    StartPosition::toString);

    private static final ValueType<TemplateScopeMode> SCOPE =
            ValueType.of(
                    "one of address-and-port, address-only",
                    TemplateScopeMode::parse,
                    m -> m.name().toLowerCase(Locale.ROOT).replace('_', '-'));

    public static final Key<String> KAFKA_BOOTSTRAP_SERVERS =
            Key.of("kafka.bootstrap-servers", Types.STRING)
                    .defaultValue("127.0.0.1:9092")
                    .check(s -> !s.isBlank(), "host:port[,host:port...]")
                    .doc("Kafka bootstrap servers, host:port[,host:port...].");

    public static final Key<String> TOPIC_RAW =
            Key.of("kafka.topic.raw", Types.STRING)
                    .defaultValue("flows.raw")
                    .doc(
                            "Topic of raw export datagrams (RawDatagram envelopes keyed by"
                                    + " exporter), written by the capture agent; created at"
                                    + " submit when missing.");

    public static final Key<String> TOPIC_REJECTED =
            Key.of("kafka.topic.rejected", Types.STRING)
                    .defaultValue("flows.rejected")
                    .doc(
                            "Dead-letter topic: datagrams that could not be decoded (malformed,"
                                    + " template never seen within the hold time), with the reason"
                                    + " in the record headers.");

    public static final Key<String> TOPIC_TEMPLATES =
            Key.of("kafka.topic.templates", Types.STRING)
                    .defaultValue("flows.templates")
                    .doc(
                            "Compacted topic of every template and options record the decode"
                                    + " step learned (key = exporter, version, domain, template"
                                    + " id). Read back at start so that a replay from any offset"
                                    + " or timestamp can decode data whose template was sent"
                                    + " earlier.");

    public static final Key<String> GROUP_ID =
            Key.of("kafka.group-id", Types.STRING)
                    .defaultValue("flowhouse-pipeline")
                    .doc(
                            "Consumer group id. Offsets are committed on checkpoints (for"
                                    + " monitoring and for start=committed); the checkpoint is"
                                    + " the source of truth on recovery.");

    public static final Key<StartPosition> START =
            Key.of("kafka.start", START_POSITION)
                    .defaultValue(new StartPosition(StartPosition.Mode.COMMITTED, 0L))
                    .doc(
                            "Where to start reading flows.raw when not restoring from a"
                                    + " checkpoint/savepoint: earliest, latest, committed (falls"
                                    + " back to earliest when the group has no offset) or"
                                    + " timestamp:<epoch-ms>.");

    public static final Key<String> STOP =
            Key.of("kafka.stop", Types.oneOf("none", "latest"))
                    .defaultValue("none")
                    .doc(
                            "none (streaming) or latest: stop at the offsets that are the latest"
                                    + " when the job starts (bounded reprocessing of a range).");

    public static final Key<Map<String, String>> KAFKA_PROPERTIES =
            Key.of("kafka.properties", Types.PROPERTIES)
                    .defaultValue(Map.of())
                    .defaultText("{}")
                    .doc(
                            "Any Kafka client setting (kafka.properties.<client key>), passed to"
                                    + " every Kafka source, sink and admin client of the job (raw,"
                                    + " templates, packets, rejected; topic creation), after the"
                                    + " job's own so these win. bootstrap.servers, group.id,"
                                    + " client.id, (de)serializers, transactional.id and"
                                    + " enable.auto.commit are refused. Secrets through Kafka's"
                                    + " FileConfigProvider (${file:/path:key}), resolved where the"
                                    + " client runs.");

    public static final Key<Boolean> TEMPLATES_ARCHIVE_ENABLED =
            Key.of("templates.archive", Types.BOOLEAN)
                    .defaultValue(true)
                    .doc(
                            "Write learned templates to the templates topic and read that topic"
                                    + " back at job start.");

    public static final Key<Integer> PARALLELISM =
            Key.of("job.parallelism", Types.integer(0, 32_768))
                    .defaultValue(0)
                    .doc("Job parallelism; 0 keeps the cluster default.");

    public static final Key<Integer> MAX_PARALLELISM =
            Key.of("job.max-parallelism", Types.integer(1, 32_768))
                    .defaultValue(128)
                    .doc(
                            "Maximum parallelism (number of key groups). Fixed for the life of the"
                                    + " job's state: savepoints restore at any parallelism up to"
                                    + " it.");

    public static final Key<Duration> CHECKPOINT_INTERVAL =
            Key.of(
                            "job.checkpoint-interval",
                            Types.duration(ChronoUnit.MILLIS, Duration.ofMillis(10), null))
                    .defaultValue(Duration.ofSeconds(10))
                    .doc(
                            "Exactly-once checkpoint interval. ClickHouse batches and Kafka"
                                    + " offsets are aligned on checkpoints, so this bounds the"
                                    + " end-to-end latency of a row.");

    public static final Key<Boolean> ALLOW_MEMORY_CHECKPOINTS =
            Key.of("job.allow-memory-checkpoints", Types.BOOLEAN)
                    .defaultValue(false)
                    .doc(
                            "Let the job start in STREAMING mode without execution.checkpointing.dir"
                                    + " (or with execution.checkpointing.storage jobmanager): its"
                                    + " checkpoints then go to the JobManager's memory, which"
                                    + " refuses task state over 5 MiB, and every refused"
                                    + " checkpoint fails the job (the rollup windows pass it"
                                    + " within minutes, a hostile exporter's decode state"
                                    + " sooner). Off: the job refuses to start and names the key."
                                    + " For tests and short trials only; BATCH runs need no"
                                    + " checkpoints.");

    public static final Key<String> JOB_NAME =
            Key.of("job.name", Types.STRING)
                    .defaultValue("flowhouse-pipeline")
                    .doc("Name of the Flink job.");

    public static final Key<Duration> MAX_OUT_OF_ORDERNESS =
            Key.of("decode.max-out-of-orderness", millis())
                    .defaultValue(Duration.ofSeconds(5))
                    .doc(
                            "Bounded out-of-orderness of receive times within one Kafka partition:"
                                    + " the raw source's watermark, per partition, trails the"
                                    + " newest receive time by this much. The agent writes in"
                                    + " receive order, so a few seconds cover its threads and"
                                    + " several agents' clocks; how late a flow may end is the"
                                    + " rollups' flowhouse.rollup.max-out-of-orderness.");

    public static final Key<Duration> IDLENESS =
            Key.of("decode.idleness", millis())
                    .defaultValue(Duration.ofMinutes(1))
                    .doc(
                            "A Kafka partition silent this long stops holding back the watermark"
                                    + " (FLINK-9183).");

    public static final Key<Duration> QUIET_AFTER =
            Key.of("decode.quiet-after", millis())
                    .defaultValue(Duration.ofSeconds(30))
                    .doc(
                            "When no raw datagram has reached the job for this long (processing"
                                    + " time, every partition quiet), event time moves on with the"
                                    + " wall clock: the receive time of the last watermark carried"
                                    + " on by the elapsed time, minus this much, so the last rollup"
                                    + " windows and exporter_stats minute of a quiet stream close"
                                    + " without waiting for traffic"
                                    + " (flowhouse_decode_watermark_wall_clock_advances_total). A"
                                    + " datagram that reaches the job more than this (plus"
                                    + " decode.max-out-of-orderness) after the agent received it"
                                    + " (a spool drained after an outage) can then be late: see"
                                    + " 'When the stream goes quiet' in flink-jobs/README.md. 0"
                                    + " keeps pure event time; off anyway for job reprocess (BATCH)"
                                    + " and kafka.stop=latest.");

    private static final ValueType<EventTimeSettings.OutOfRange> OUT_OF_RANGE =
            ValueType.of(
                    "one of clamp, reject",
                    EventTimeSettings.OutOfRange::parse,
                    m -> m.name().toLowerCase(Locale.ROOT));

    public static final Key<Duration> EVENT_TIME_PAST =
            Key.of("decode.event-time.past", millis())
                    .defaultValue(Duration.ofMinutes(5))
                    .doc(
                            "A flow may end at most this long before its datagram was received;"
                                    + " earlier is an exporter clock or uptime error and is"
                                    + " clamped or rejected (event-time.out-of-range). Keep it"
                                    + " below flowhouse.rollup.allowed-lateness minus the finest"
                                    + " resolution: a flow that ends earlier than that reaches"
                                    + " flows but is late for the rollups.");

    public static final Key<Duration> EVENT_TIME_FUTURE =
            Key.of("decode.event-time.future", millis())
                    .defaultValue(Duration.ofMinutes(5))
                    .doc(
                            "A flow may end at most this long after its datagram was received (a"
                                    + " clock a little ahead); later is clamped or rejected.");

    public static final Key<Duration> EVENT_TIME_MAX_FLOW_DURATION =
            Key.of("decode.event-time.max-flow-duration", millis())
                    .defaultValue(Duration.ofHours(1))
                    .doc(
                            "The longest a flow may last (exporters cut flows at their active"
                                    + " timeout, at most an hour on common routers); an earlier"
                                    + " start is moved to the end minus this (counted in"
                                    + " event_time_duration_cut_total), which bounds the rollup"
                                    + " pieces of one flow: six per window of the finest"
                                    + " resolution, 366 at 1h and 1m.");

    public static final Key<EventTimeSettings.OutOfRange> EVENT_TIME_OUT_OF_RANGE =
            Key.of("decode.event-time.out-of-range", OUT_OF_RANGE)
                    .defaultValue(EventTimeSettings.OutOfRange.CLAMP)
                    .doc(
                            "A flow that ends outside the window: clamp (its times are moved into"
                                    + " the window and the exporter's kept in exported_flow_start"
                                    + " / exported_flow_end) or reject (dropped; its datagram goes"
                                    + " to the dead-letter topic, reason EVENT_TIME_OUT_OF_RANGE).");

    public static final Key<Integer> DEDUP_MAX_STREAMS =
            Key.of("decode.dedup.max-streams-per-exporter", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(16)
                    .doc(
                            "Agent streams (one per agent run, exporter and receive thread) whose"
                                    + " seen datagrams each exporter key remembers, to drop"
                                    + " re-sends; the least recently received is forgotten when"
                                    + " another begins (dedup_streams_evicted_total).");

    public static final Key<Integer> DEDUP_MAX_GAPS =
            Key.of("decode.dedup.max-gaps-per-stream", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(64)
                    .doc(
                            "Runs of not yet seen datagrams a stream remembers (16 bytes each);"
                                    + " beyond, the oldest is forgotten and a datagram below it is"
                                    + " accepted unchecked (dedup_unverified_datagrams_total).");

    public static final Key<Duration> TEMPLATE_HOLD_TIME =
            Key.of("decode.template-hold-time", millis())
                    .defaultValue(Duration.ofSeconds(30))
                    .doc(
                            "How long data that arrives before its template is held in keyed"
                                    + " state (processing time). When the template comes the data"
                                    + " is decoded; when the time runs out it goes to the"
                                    + " dead-letter topic with reason TEMPLATE_MISSING. 0 rejects"
                                    + " at once.");

    public static final Key<Integer> TEMPLATE_HOLD_MAX_DATAGRAMS =
            Key.of("decode.template-hold-max-datagrams", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(1024)
                    .doc(
                            "At most this many datagrams are held per exporter; the oldest is"
                                    + " rejected when more arrive.");

    public static final Key<TemplateScopeMode> TEMPLATE_SCOPE =
            Key.of("decode.template-scope", SCOPE)
                    .defaultValue(TemplateScopeMode.ADDRESS_AND_PORT)
                    .doc(
                            "address-and-port (RFC 7011 transport session: exporter address,"
                                    + " UDP source port and observation domain) or address-only"
                                    + " (for exporters that change source port; templates are"
                                    + " then shared across ports of one address).");

    public static final Key<Integer> TEMPLATES_MAX_PER_EXPORTER =
            Key.of("decode.templates.max-per-exporter", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(TemplateLimits.DEFAULT_MAX_TEMPLATES_PER_EXPORTER)
                    .doc(
                            "Templates (data and options) one exporter key may hold across its"
                                    + " domains; more are refused and counted as TEMPLATE_FLOOD."
                                    + " Also the most withdrawal marks it keeps (a withdrawn"
                                    + " template or scope, so a replay does not restore it);"
                                    + " more are counted in"
                                    + " state_refused_withdrawal_marks_total.");

    public static final Key<Integer> TEMPLATES_MAX_FIELDS =
            Key.of("decode.templates.max-fields", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(TemplateLimits.DEFAULT_MAX_FIELDS_PER_TEMPLATE)
                    .doc(
                            "Fields one template may declare (RFC 7011 allows 16,383); a larger"
                                    + " template is refused, counted as TEMPLATE_TOO_LARGE, and"
                                    + " not restored from the templates topic.");

    public static final Key<Integer> TEMPLATES_MAX_BYTES_PER_SCOPE =
            Key.of("decode.templates.max-bytes-per-scope", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(TemplateLimits.DEFAULT_MAX_BYTES_PER_SCOPE)
                    .doc(
                            "Template bytes (7 + 8 per field each, as stored) one scope (exporter,"
                                    + " version, domain) may hold; more are refused and counted"
                                    + " as TEMPLATE_FLOOD.");

    public static final Key<Integer> OPTIONS_MAX_STRING_BYTES =
            Key.of("decode.options.max-string-bytes", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(OptionsLimits.DEFAULT_MAX_STRING_BYTES)
                    .doc(
                            "Longest options string kept (interface names and descriptions,"
                                    + " sampler names), in UTF-8 bytes;"
                                    + " longer ones are cut and counted as OPTION_TRUNCATED.");

    public static final Key<Integer> OPTIONS_MAX_ENTRIES_PER_SCOPE =
            Key.of("decode.options.max-entries-per-scope", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(OptionsLimits.DEFAULT_MAX_ENTRIES_PER_SCOPE)
                    .doc(
                            "Interface names, interface descriptions, sampler names and"
                                    + " sampling rates (each) one scope may hold; options records"
                                    + " adding more are refused and counted as OPTIONS_LIMIT.");

    public static final Key<Integer> OPTIONS_MAX_BYTES_PER_SCOPE =
            Key.of("decode.options.max-bytes-per-scope", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(OptionsLimits.DEFAULT_MAX_BYTES_PER_SCOPE)
                    .doc(
                            "Bytes one scope's options data may take as stored and archived (one"
                                    + " flows.templates record, far below Kafka's 1 MiB); options"
                                    + " records growing it beyond are refused and counted as"
                                    + " OPTIONS_LIMIT.");

    public static final Key<Long> STATE_MAX_BYTES_PER_EXPORTER =
            Key.of("decode.state.max-bytes-per-exporter", Types.size(0, Long.MAX_VALUE))
                    .defaultValue(DecodeStateLimits.DEFAULT_MAX_BYTES_PER_EXPORTER)
                    .doc(
                            "Decode state one exporter key may hold, in bytes as stored:"
                                    + " templates, options data and held datagrams. A template"
                                    + " beyond it is refused (TEMPLATE_FLOOD), options data keeps"
                                    + " its last value, a datagram is not held (dead-lettered"
                                    + " as TEMPLATE_MISSING); counted in"
                                    + " state_refused_{templates,options,held}_total.");

    public static final Key<Long> STATE_MAX_BYTES =
            Key.of("decode.state.max-bytes", Types.size(0, Long.MAX_VALUE))
                    .defaultValue(DecodeStateLimits.DEFAULT_MAX_BYTES)
                    .doc(
                            "Decode state of all exporters of one parallel decode instance, in"
                                    + " bytes as stored; beyond it new state is refused as for"
                                    + " one exporter.");

    public static final Key<Integer> STATE_MAX_SCOPES_PER_EXPORTER =
            Key.of("decode.state.max-scopes-per-exporter", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(DecodeStateLimits.DEFAULT_MAX_SCOPES_PER_EXPORTER)
                    .doc(
                            "Observation domains / source ids one exporter key may keep"
                                    + " templates or options data for; templates and options of"
                                    + " further domains are refused.");

    public static final Key<Long> TEMPLATE_HOLD_MAX_BYTES =
            Key.of("decode.template-hold-max-bytes", Types.size(0, Long.MAX_VALUE))
                    .defaultValue(DecodeStateLimits.DEFAULT_MAX_HELD_BYTES)
                    .doc(
                            "Bytes of datagrams held per exporter key; the oldest is released"
                                    + " (dead-lettered as TEMPLATE_MISSING) when more arrive.");

    public static final Key<Duration> TEMPLATE_LIFETIME =
            Key.of("decode.template-lifetime", millis())
                    .defaultValue(DecodeStateLimits.DEFAULT_TEMPLATE_LIFETIME)
                    .doc(
                            "A template not sent again within this much receive time expires"
                                    + " (RFC 7011 section 8.4, UDP): data using it is then held"
                                    + " and dead-lettered as TEMPLATE_MISSING, and the expiry is"
                                    + " archived. Every re-send refreshes it.");

    public static final Key<Duration> EXPORTER_IDLE_TIMEOUT =
            Key.of("decode.exporter-idle-timeout", millis())
                    .defaultValue(DecodeStateLimits.DEFAULT_EXPORTER_IDLE_TIMEOUT)
                    .doc(
                            "An exporter key that sends nothing for this long (processing"
                                    + " time) loses all its decode state: templates (their"
                                    + " expiry archived), options data, held datagrams.");

    public static final Key<Integer> TEMPLATES_ARCHIVE_MAX_RECORD_BYTES =
            Key.of("templates.archive-max-record-bytes", Types.integer(1024, Integer.MAX_VALUE))
                    .defaultValue(DecodeStateLimits.DEFAULT_ARCHIVE_MAX_RECORD_BYTES)
                    .doc(
                            "Largest templates-topic record written (below Kafka's 1 MiB"
                                    + " message limit); larger templates or options data are"
                                    + " not archived and counted in"
                                    + " templates_archive_skipped_total.");

    public static final Key<Duration> STATS_SCOPE_IDLE_TIMEOUT =
            Key.of("decode.stats.scope-idle-timeout", millis())
                    .defaultValue(DecodeStateLimits.DEFAULT_STATS_SCOPE_IDLE_TIMEOUT)
                    .doc(
                            "The exporter statistics forget a domain that sent nothing for this"
                                    + " long (processing time): its last minute has been"
                                    + " written, and its sequence state is dropped (the next"
                                    + " datagram resynchronises).");

    public static final Key<Integer> STATS_MAX_SCOPES_PER_EXPORTER =
            Key.of("decode.stats.max-scopes-per-exporter", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(DecodeStateLimits.DEFAULT_STATS_MAX_SCOPES_PER_EXPORTER)
                    .doc(
                            "Domains one exporter key has exporter_stats rows for at a time;"
                                    + " datagrams of further domains are counted in one row"
                                    + " per version with observation_domain 4294967295.");

    public static final Key<Integer> STATS_MAX_SFLOW_SOURCES =
            Key.of("decode.stats.max-sflow-sources", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(DecodeStateLimits.DEFAULT_STATS_MAX_SFLOW_SOURCES)
                    .doc(
                            "sFlow data sources (interface, VLAN or entity) one statistics"
                                    + " domain (agent and sub-agent) keeps sample-sequence and"
                                    + " drops accounting for (lost_samples, sample_drops);"
                                    + " flow samples of further sources are not accounted,"
                                    + " counted in flowhouse_decode_stats_sflow_samples_untracked_total.");

    public static final Key<Long> SAMPLING_DEFAULT =
            Key.of("decode.sampling.default-rate", Types.longRange(1, Long.MAX_VALUE))
                    .defaultValue(1L)
                    .doc(
                            "Sampling rate (1 in N) applied to flows whose exporter announces"
                                    + " none and has no override.");

    public static final Key<List<String>> SAMPLING_OVERRIDES =
            Key.of("decode.sampling.overrides", Types.list(Types.STRING))
                    .defaultValue(List.of())
                    .doc(
                            "Per-exporter sampling rates that win over what the exporter"
                                    + " announces: ADDRESS=RATE or [ADDRESS]:PORT=RATE entries"
                                    + " separated by ';' or ',' (or a YAML list), e.g."
                                    + " '192.0.2.1=1000;[2001:db8::1]:2055=100'.");

    /** The ClickHouse connection: the sink's keys. */
    public static final Key<String> CLICKHOUSE_URL = ClickHouseSinkKeys.URL;

    public static final Key<String> CLICKHOUSE_DATABASE = ClickHouseSinkKeys.DATABASE;
    public static final Key<String> CLICKHOUSE_USER = ClickHouseSinkKeys.USER;
    public static final Key<String> CLICKHOUSE_PASSWORD_FILE = ClickHouseSinkKeys.PASSWORD_FILE;
    public static final Key<Integer> CLICKHOUSE_BATCH_SIZE = ClickHouseSinkKeys.BATCH_SIZE;
    public static final Key<Duration> CLICKHOUSE_FLUSH_INTERVAL = ClickHouseSinkKeys.FLUSH_INTERVAL;
    public static final Key<Integer> CLICKHOUSE_MAX_RETRIES = ClickHouseSinkKeys.MAX_RETRIES;
    public static final Key<Duration> CLICKHOUSE_STARTUP_TIMEOUT =
            ClickHouseSinkKeys.STARTUP_TIMEOUT;

    public static final Key<Boolean> CLICKHOUSE_ENABLED =
            Key.of("clickhouse.enabled", Types.BOOLEAN)
                    .defaultValue(true)
                    .doc(
                            "Write the job's ClickHouse tables (flows, exporter_stats,"
                                    + " interface_counters and the rollups). false is a topic-only"
                                    + " deployment: decoded flows go only to the fan-out"
                                    + " (flows-topic, ZMQ, IPFIX), one of which must be on; the"
                                    + " rollups are off with it.");

    public static final Key<Integer> CLICKHOUSE_FLOWS_TTL_DAYS =
            Key.of("clickhouse.flows-ttl-days", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(0)
                    .doc(
                            "Days raw flows are kept, on servers with TTL (set when the migrations"
                                    + " create the table); 0 keeps them.");

    /** The job's own keys, in the order of the job README's table. */
    public static final List<Key<?>> KEYS =
            List.of(
                    KAFKA_BOOTSTRAP_SERVERS,
                    TOPIC_RAW,
                    TOPIC_REJECTED,
                    TOPIC_TEMPLATES,
                    GROUP_ID,
                    START,
                    STOP,
                    KAFKA_PROPERTIES,
                    TEMPLATES_ARCHIVE_ENABLED,
                    PARALLELISM,
                    MAX_PARALLELISM,
                    CHECKPOINT_INTERVAL,
                    ALLOW_MEMORY_CHECKPOINTS,
                    JOB_NAME,
                    MAX_OUT_OF_ORDERNESS,
                    IDLENESS,
                    QUIET_AFTER,
                    EVENT_TIME_PAST,
                    EVENT_TIME_FUTURE,
                    EVENT_TIME_MAX_FLOW_DURATION,
                    EVENT_TIME_OUT_OF_RANGE,
                    DEDUP_MAX_STREAMS,
                    DEDUP_MAX_GAPS,
                    TEMPLATE_HOLD_TIME,
                    TEMPLATE_HOLD_MAX_DATAGRAMS,
                    TEMPLATE_SCOPE,
                    TEMPLATES_MAX_PER_EXPORTER,
                    TEMPLATES_MAX_FIELDS,
                    TEMPLATES_MAX_BYTES_PER_SCOPE,
                    OPTIONS_MAX_STRING_BYTES,
                    OPTIONS_MAX_ENTRIES_PER_SCOPE,
                    OPTIONS_MAX_BYTES_PER_SCOPE,
                    STATE_MAX_BYTES_PER_EXPORTER,
                    STATE_MAX_BYTES,
                    STATE_MAX_SCOPES_PER_EXPORTER,
                    TEMPLATE_HOLD_MAX_BYTES,
                    TEMPLATE_LIFETIME,
                    EXPORTER_IDLE_TIMEOUT,
                    TEMPLATES_ARCHIVE_MAX_RECORD_BYTES,
                    STATS_SCOPE_IDLE_TIMEOUT,
                    STATS_MAX_SCOPES_PER_EXPORTER,
                    STATS_MAX_SFLOW_SOURCES,
                    SAMPLING_DEFAULT,
                    SAMPLING_OVERRIDES,
                    CLICKHOUSE_ENABLED,
                    CLICKHOUSE_FLOWS_TTL_DAYS);

    /** Every key the job reads, under {@code flowhouse}. */
    public static final ConfigSchema SCHEMA =
            ConfigSchema.of(
                    "flowhouse",
                    "flow pipeline job",
                    concat(
                            KEYS,
                            ClickHouseSinkKeys.KEYS,
                            AgeingConfigKeys.KEYS,
                            RollupConfigKeys.KEYS,
                            ZmqSinkKeys.KEYS,
                            IpfixExporterKeys.KEYS,
                            FlowsTopicKeys.KEYS,
                            EnrichKeys.KEYS,
                            SnmpKeys.KEYS));

    private JobKeys() {}

    @SafeVarargs
    private static List<Key<?>> concat(List<Key<?>>... parts) {
        List<Key<?>> all = new ArrayList<>();
        for (List<Key<?>> p : parts) {
            all.addAll(p);
        }
        return List.copyOf(all);
    }

    private static ValueType<Duration> millis() {
        return Types.duration(ChronoUnit.MILLIS, Duration.ZERO, null);
    }
}
