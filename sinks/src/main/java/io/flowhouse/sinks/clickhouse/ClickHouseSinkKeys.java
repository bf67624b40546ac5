// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import io.flowhouse.config.ValueType;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

/**
 * The keys of the ClickHouse sink ({@code flowhouse.clickhouse.*}), declared once, and the {@link
 * ClickHouseSinkOptions} they resolve to. The job takes them into its schema; the key table in
 * {@code sinks/README-clickhouse.md} is generated from them ({@code SinkConfigDocsTest}).
 *
 * <p>The password is not a key: it never travels in the job graph. The writer reads it where it
 * runs, from {@link #PASSWORD_FILE}, else from {@value #PASSWORD_ENV} when that was set where the
 * job was built.
 */
public final class ClickHouseSinkKeys {

    /** Environment variable with the password when no password file is given. */
    public static final String PASSWORD_ENV = "FLOWHOUSE_CLICKHOUSE_PASSWORD";

    public static final Key<String> URL =
            Key.of("clickhouse.url", Types.STRING)
                    .defaultValue("http://127.0.0.1:8123")
                    .check(
                            ClickHouseSinkOptions::isHttpUrl,
                            "http:// or https:// URLs, comma-separated, shards separated by ;")
                    .doc(
                            "ClickHouse HTTP endpoint; or the replicas of one shard,"
                                    + " comma-separated: each writer uses the first that answers"
                                    + " and moves to the next when an insert or query fails"
                                    + " (replicated tables drop a retried block that already"
                                    + " landed); or several shards separated by ; (each its"
                                    + " replicas, comma-separated; needs clickhouse.cluster):"
                                    + " rows go to the shard of their exporter.");

    public static final Key<String> CLUSTER =
            Key.of("clickhouse.cluster", Types.STRING)
                    .defaultValue("")
                    .defaultText("none")
                    .check(
                            s -> s.isEmpty() || s.matches("[A-Za-z_][A-Za-z0-9_]*"),
                            "a remote_servers cluster name")
                    .doc(
                            "The servers' remote_servers cluster: when set, the migrations run ON"
                                    + " CLUSTER and every MergeTree table is created in its"
                                    + " Replicated form (ZooKeeper path"
                                    + " /clickhouse/tables/{shard}/DB.TABLE, the {replica}"
                                    + " macro); with several shards in clickhouse.url as a"
                                    + " TABLE_local per shard under a Distributed TABLE. Unset:"
                                    + " one server, DDL unchanged.");

    public static final Key<String> DATABASE =
            Key.of("clickhouse.database", Types.STRING)
                    .defaultValue("flowhouse")
                    .check(ClickHouseSinkOptions::isDatabaseName, "letters, digits, underscore")
                    .doc("ClickHouse database of every table; migrations create it.");

    public static final Key<String> USER =
            Key.of("clickhouse.user", Types.STRING)
                    .defaultValue("default")
                    .check(s -> !s.isBlank(), "a user name")
                    .doc("ClickHouse user.");

    public static final Key<String> PASSWORD_FILE =
            Key.of("clickhouse.password-file", Types.STRING)
                    .defaultText("none")
                    .doc(
                            "File holding the ClickHouse password (trailing newline ignored), read"
                                    + " where the writer runs (the TaskManagers). Otherwise their"
                                    + " environment variable "
                                    + PASSWORD_ENV
                                    + " when it was set where the job was submitted, else empty."
                                    + " Passwords are never read from flags, put into the job"
                                    + " graph or logged.");

    public static final Key<Integer> BATCH_SIZE =
            Key.of("clickhouse.batch-size", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(50_000)
                    .doc(
                            "Rows per RowBinary insert (a batch is also cut on flush and checkpoint).");

    public static final Key<Long> BATCH_MAX_BYTES =
            Key.of("clickhouse.batch-max-bytes", Types.size(1, Long.MAX_VALUE))
                    .defaultValue(64L << 20)
                    .doc(
                            "RowBinary bytes per insert: a batch is also sent when it holds this many.");

    public static final Key<Duration> FLUSH_INTERVAL =
            Key.of("clickhouse.flush-interval", millis())
                    .defaultValue(Duration.ofSeconds(5))
                    .doc(
                            "Longest time a row waits in a batch; 0 sends batches only by size and"
                                    + " on checkpoints.");

    public static final Key<Integer> MAX_IN_FLIGHT_BATCHES =
            Key.of("clickhouse.max-in-flight-batches", Types.integer(1, 1024))
                    .defaultValue(2)
                    .doc(
                            "Batches handed to the background inserter and not yet written;"
                                    + " beyond them the writer blocks (back-pressure).");

    public static final Key<Integer> MAX_RETRIES =
            Key.of("clickhouse.max-retries", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(20)
                    .doc(
                            "Retries (exponential backoff with jitter) of an insert that failed for"
                                    + " a retriable reason (connection refused, timeout, server"
                                    + " overloaded) before the job fails and restarts from its last"
                                    + " checkpoint.");

    public static final Key<Duration> INITIAL_BACKOFF =
            Key.of("clickhouse.initial-backoff", millis())
                    .defaultValue(Duration.ofMillis(200))
                    .doc("Wait before the first retry; doubled each time.");

    public static final Key<Duration> MAX_BACKOFF =
            Key.of("clickhouse.max-backoff", millis())
                    .defaultValue(Duration.ofSeconds(10))
                    .doc("Longest wait between two retries.");

    public static final Key<Duration> CONNECT_TIMEOUT =
            Key.of("clickhouse.connect-timeout", millis())
                    .defaultValue(Duration.ofSeconds(5))
                    .doc("TCP connect timeout of a request.");

    public static final Key<Duration> SOCKET_TIMEOUT =
            Key.of("clickhouse.socket-timeout", millis())
                    .defaultValue(Duration.ofSeconds(120))
                    .doc("Read timeout of one insert or query.");

    public static final Key<Duration> STARTUP_TIMEOUT =
            Key.of("clickhouse.startup-timeout", millis())
                    .defaultValue(Duration.ofMinutes(5))
                    .doc(
                            "How long a writer that opens (job start or restart) keeps retrying,"
                                    + " with the same backoff, while the server is unreachable"
                                    + " (migrations and feature detection) before the task fails;"
                                    + " 0 tries once.");

    /** In declaration order, as the job's schema and the README list them. */
    public static final List<Key<?>> KEYS =
            List.of(
                    URL,
                    CLUSTER,
                    DATABASE,
                    USER,
                    PASSWORD_FILE,
                    BATCH_SIZE,
                    BATCH_MAX_BYTES,
                    FLUSH_INTERVAL,
                    MAX_IN_FLIGHT_BATCHES,
                    MAX_RETRIES,
                    INITIAL_BACKOFF,
                    MAX_BACKOFF,
                    CONNECT_TIMEOUT,
                    SOCKET_TIMEOUT,
                    STARTUP_TIMEOUT);

    /** These keys alone under {@code flowhouse}, for their README table. */
    public static final ConfigSchema SCHEMA = ConfigSchema.of("flowhouse", "ClickHouse sink", KEYS);

    private ClickHouseSinkKeys() {}

    /**
     * The sink options of a configuration that holds these keys.
     *
     * @param env where the job is built: whether {@value #PASSWORD_ENV} is set there (its value is
     *     not read here)
     */
    public static ClickHouseSinkOptions options(Config c, Map<String, String> env) {
        ClickHouseSinkOptions.Builder b =
                ClickHouseSinkOptions.builder()
                        .url(c.get(URL))
                        .cluster(c.get(CLUSTER))
                        .database(c.get(DATABASE))
                        .user(c.get(USER))
                        .batchMaxRows(c.get(BATCH_SIZE))
                        .batchMaxBytes(c.get(BATCH_MAX_BYTES))
                        .flushInterval(c.get(FLUSH_INTERVAL))
                        .maxInFlightBatches(c.get(MAX_IN_FLIGHT_BATCHES))
                        .maxRetries(c.get(MAX_RETRIES))
                        .initialBackoff(c.get(INITIAL_BACKOFF))
                        .maxBackoff(c.get(MAX_BACKOFF))
                        .connectTimeout(c.get(CONNECT_TIMEOUT))
                        .socketTimeout(c.get(SOCKET_TIMEOUT))
                        .startupTimeout(c.get(STARTUP_TIMEOUT));
        String file = c.get(PASSWORD_FILE);
        if (file != null && !file.isBlank()) {
            b.passwordFile(file.trim());
        } else if (env.containsKey(PASSWORD_ENV)) {
            b.passwordEnv(PASSWORD_ENV);
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new ConfigException("config clickhouse: " + e.getMessage(), e);
        }
    }

    private static ValueType<Duration> millis() {
        return Types.duration(ChronoUnit.MILLIS, Duration.ZERO, null);
    }
}
