// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.config;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.config.ConfigResolver;
import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import io.flowhouse.config.ValueType;
import io.flowhouse.console.filter.FilterParser;
import io.flowhouse.console.query.ConsoleLimits;
import io.flowhouse.console.sql.SqlLiteral;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * Every key of the console, declared once, and the {@link ConsoleConfig} they resolve to. The key
 * table in {@code console/README.md} is generated from these ({@code ConsoleConfigDocsTest}).
 */
public final class ConsoleKeys {

    /** Default port of the console. */
    public static final int DEFAULT_PORT = 8090;

    /** The read-only user the console creates on the local services' ClickHouse. */
    public static final String CONSOLE_USER = "flowhouse_console";

    private static final ValueType<Duration> SECONDS =
            Types.duration(ChronoUnit.SECONDS, Duration.ofSeconds(1), Duration.ofDays(400));

    public static final Key<String> LISTEN_HOST =
            Key.of("listen.host", Types.STRING)
                    .defaultValue("127.0.0.1")
                    .check(s -> !s.isBlank(), "an address")
                    .doc(
                            "Address the console binds. Anything but loopback needs auth.token or"
                                    + " auth.user + auth.password.")
                    .flag("--host", "ADDRESS");

    public static final Key<Integer> LISTEN_PORT =
            Key.of("listen.port", Types.integer(0, 65_535))
                    .defaultValue(DEFAULT_PORT)
                    .doc("TCP port of the console; 0 takes a free one.")
                    .flag("--port", "PORT");

    public static final Key<String> AUTH_TOKEN =
            Key.of("auth.token", Types.STRING)
                    .secret()
                    .check(s -> s.length() >= 16, "at least 16 characters")
                    .doc(
                            "Bearer token every request must carry (Authorization: Bearer TOKEN, or"
                                    + " as the basic-auth password of any user).");

    public static final Key<String> AUTH_USER =
            Key.of("auth.user", Types.STRING).doc("Basic-auth user (with auth.password).");

    public static final Key<String> AUTH_PASSWORD =
            Key.of("auth.password", Types.STRING)
                    .secret()
                    .check(s -> s.length() >= 12, "at least 12 characters")
                    .doc("Basic-auth password (with auth.user).");

    public static final Key<String> CLICKHOUSE_URL =
            Key.of("clickhouse.url", Types.STRING)
                    .defaultValue("http://127.0.0.1:8123")
                    .check(s -> s.startsWith("http://") || s.startsWith("https://"), "an http URL")
                    .doc("ClickHouse HTTP endpoint (./flowhouse services: its port).")
                    .flag("--clickhouse-url", "URL");

    public static final Key<String> CLICKHOUSE_DATABASE =
            Key.of("clickhouse.database", Types.STRING)
                    .defaultValue("flowhouse")
                    .check(SqlLiteral::isIdentifier, "a name of letters, digits and _")
                    .doc("The job's database.");

    public static final Key<String> CLICKHOUSE_USER =
            Key.of("clickhouse.user", Types.STRING)
                    .defaultValue(CONSOLE_USER)
                    .check(SqlLiteral::isIdentifier, "a name of letters, digits and _")
                    .doc(
                            "User the console queries as: a read-only one (its profile holds the"
                                    + " limits below; README: 'Read-only user').");

    public static final Key<String> CLICKHOUSE_PASSWORD =
            Key.of("clickhouse.password", Types.STRING)
                    .secret()
                    .doc(
                            "Password of clickhouse.user; unset with clickhouse.local-user: the"
                                    + " generated one (local-user.password-file).");

    public static final Key<Boolean> LOCAL_USER =
            Key.of("clickhouse.local-user", Types.BOOLEAN)
                    .defaultValue(true)
                    .doc(
                            "Create (or refresh) clickhouse.user as a read-only user with the limits"
                                    + " below in the local services' ClickHouse (users.d file under"
                                    + " the state directory); off for any other server.");

    public static final Key<Path> STATE_DIR =
            Key.of("local-user.state-dir", Types.PATH)
                    .defaultValue(Path.of(".flowhouse"))
                    .doc(
                            "The local services' state directory (./flowhouse services): the"
                                    + " ClickHouse users.d and the console's password file live"
                                    + " there.");

    public static final Key<Duration> QUERY_TIMEOUT =
            Key.of("query.max-execution-time", SECONDS)
                    .defaultValue(Duration.ofSeconds(20))
                    .doc(
                            "Per query: the read-only profile's max_execution_time, and the HTTP"
                                    + " request's timeout (+5 s).");

    public static final Key<Long> QUERY_MAX_ROWS_TO_READ =
            Key.of("query.max-rows-to-read", Types.longRange(1_000, Long.MAX_VALUE))
                    .defaultValue(500_000_000L)
                    .doc("Per query: the read-only profile's max_rows_to_read.");

    public static final Key<Long> QUERY_MAX_RESULT_ROWS =
            Key.of("query.max-result-rows", Types.longRange(1, 100_000_000))
                    .defaultValue(100_000L)
                    .doc("Per query: the read-only profile's max_result_rows.");

    public static final Key<Long> QUERY_MAX_MEMORY =
            Key.of("query.max-memory-bytes", Types.size(64L << 20, Long.MAX_VALUE))
                    .defaultValue(2L << 30)
                    .doc("Per query: the read-only profile's max_memory_usage.");

    public static final Key<List<Duration>> RESOLUTIONS =
            Key.of("views.resolutions", Types.list(SECONDS))
                    .defaultValue(List.of(Duration.ofMinutes(1), Duration.ofHours(1)))
                    .check(l -> !l.isEmpty(), "at least one")
                    .doc(
                            "The rollup tables (flows_<r>), finest first: the job's"
                                    + " flowhouse.rollup.resolutions.");

    public static final Key<Duration> AUTO_RAW_UP_TO =
            Key.of("views.auto-raw-up-to", SECONDS)
                    .defaultValue(Duration.ofMinutes(10))
                    .doc("Automatic resolution: the raw table for ranges up to this.");

    public static final Key<Duration> AUTO_FINEST_UP_TO =
            Key.of("views.auto-finest-up-to", SECONDS)
                    .defaultValue(Duration.ofDays(2))
                    .doc(
                            "Automatic resolution: the finest rollup up to this, the next one"
                                    + " beyond.");

    public static final Key<Duration> RAW_MAX_RANGE =
            Key.of("views.raw-max-range", SECONDS)
                    .defaultValue(Duration.ofHours(6))
                    .doc(
                            "Longest range read from the raw table (resolution=raw, or fields that"
                                    + " no rollup holds together).");

    public static final Key<Duration> MAX_RANGE =
            Key.of("views.max-range", SECONDS)
                    .defaultValue(Duration.ofDays(30))
                    .doc("Longest range of any view.");

    public static final Key<Integer> MAX_POINTS =
            Key.of("views.max-points", Types.integer(10, 5_000))
                    .defaultValue(300)
                    .doc("Most time buckets of a chart.");

    public static final Key<Integer> MAX_TOP_N =
            Key.of("views.max-top-n", Types.integer(1, 500))
                    .defaultValue(50)
                    .doc("Most rows of a top-N (the limit parameter).");

    public static final Key<Integer> JOB_TOP_N =
            Key.of("views.job-top-n", Types.integer(1, 10_000))
                    .defaultValue(20)
                    .doc(
                            "The job's flowhouse.rollup.top-n (rows per window), for the error"
                                    + " bounds of top talkers.");

    public static final Key<Integer> SANKEY_LINKS =
            Key.of("views.sankey-combinations", Types.integer(1, 1_000))
                    .defaultValue(60)
                    .doc("Most key combinations a Sankey draws; the rest is reported as other.");

    public static final Key<Integer> FILTER_MAX_LENGTH =
            Key.of("filter.max-length", Types.integer(16, 100_000))
                    .defaultValue(2_000)
                    .doc("Longest filter, characters.");

    public static final Key<Integer> FILTER_MAX_TERMS =
            Key.of("filter.max-terms", Types.integer(1, 10_000))
                    .defaultValue(200)
                    .doc("Most values in one filter (comparisons plus IN-list entries).");

    public static final Key<String> KAFKA_BOOTSTRAP =
            Key.of("kafka.bootstrap-servers", Types.STRING)
                    .defaultValue("127.0.0.1:9092")
                    .doc(
                            "Kafka for the rejected topic's dead letters (exporters view); empty:"
                                    + " none.")
                    .flag("--bootstrap-servers", "LIST");

    public static final Key<String> KAFKA_REJECTED_TOPIC =
            Key.of("kafka.rejected-topic", Types.STRING)
                    .defaultValue("flows.rejected")
                    .doc("The dead-letter topic.");

    public static final Key<Integer> KAFKA_MAX_RECORDS =
            Key.of("kafka.max-records", Types.integer(1, 100_000_000))
                    .defaultValue(200_000)
                    .doc("Most dead letters read per request (then the answer is truncated).");

    public static final Key<Duration> KAFKA_MAX_TIME =
            Key.of("kafka.max-time", SECONDS)
                    .defaultValue(Duration.ofSeconds(5))
                    .doc("Longest read of the rejected topic per request.");

    public static final Key<Integer> HTTP_THREADS =
            Key.of("http.threads", Types.integer(1, 64))
                    .defaultValue(4)
                    .doc("Requests served at once (each runs its queries one after another).");

    public static final ConfigSchema SCHEMA =
            ConfigSchema.of(
                    "flowhouse.console",
                    "web console",
                    List.of(
                            LISTEN_HOST,
                            LISTEN_PORT,
                            AUTH_TOKEN,
                            AUTH_USER,
                            AUTH_PASSWORD,
                            CLICKHOUSE_URL,
                            CLICKHOUSE_DATABASE,
                            CLICKHOUSE_USER,
                            CLICKHOUSE_PASSWORD,
                            LOCAL_USER,
                            STATE_DIR,
                            QUERY_TIMEOUT,
                            QUERY_MAX_ROWS_TO_READ,
                            QUERY_MAX_RESULT_ROWS,
                            QUERY_MAX_MEMORY,
                            RESOLUTIONS,
                            AUTO_RAW_UP_TO,
                            AUTO_FINEST_UP_TO,
                            RAW_MAX_RANGE,
                            MAX_RANGE,
                            MAX_POINTS,
                            MAX_TOP_N,
                            JOB_TOP_N,
                            SANKEY_LINKS,
                            FILTER_MAX_LENGTH,
                            FILTER_MAX_TERMS,
                            KAFKA_BOOTSTRAP,
                            KAFKA_REJECTED_TOPIC,
                            KAFKA_MAX_RECORDS,
                            KAFKA_MAX_TIME,
                            HTTP_THREADS));

    private ConsoleKeys() {}

    public static ConsoleConfig defaults() {
        return config(ConfigResolver.of(SCHEMA).resolve());
    }

    /** The console's record, with the checks that span keys. */
    public static ConsoleConfig config(Config c) {
        String host = c.get(LISTEN_HOST);
        String token = c.get(AUTH_TOKEN);
        String user = c.get(AUTH_USER);
        String password = c.get(AUTH_PASSWORD);
        if ((user == null) != (password == null)) {
            throw new ConfigException("config auth.user and auth.password go together");
        }
        boolean auth = token != null || user != null;
        if (!auth && !isLoopback(host)) {
            throw new ConfigException(
                    "config listen.host = "
                            + host
                            + " is not loopback: set auth.token or auth.user + auth.password"
                            + " (FLOWHOUSE_CONSOLE_AUTH_TOKEN, ..._FILE) to bind it, from "
                            + c.origin(LISTEN_HOST));
        }
        List<Duration> resolutions = c.get(RESOLUTIONS);
        for (int i = 1; i < resolutions.size(); i++) {
            if (resolutions.get(i).compareTo(resolutions.get(i - 1)) <= 0) {
                throw new ConfigException("config views.resolutions must grow: " + resolutions);
            }
        }
        ConsoleLimits limits =
                new ConsoleLimits(
                        c.get(CLICKHOUSE_DATABASE),
                        resolutions,
                        c.get(AUTO_RAW_UP_TO),
                        c.get(AUTO_FINEST_UP_TO),
                        c.get(RAW_MAX_RANGE),
                        c.get(MAX_RANGE),
                        c.get(MAX_POINTS),
                        c.get(MAX_TOP_N),
                        c.get(JOB_TOP_N),
                        c.get(SANKEY_LINKS));
        return new ConsoleConfig(
                host,
                c.get(LISTEN_PORT),
                token,
                user,
                password,
                new ConsoleConfig.ClickHouse(
                        c.get(CLICKHOUSE_URL),
                        c.get(CLICKHOUSE_DATABASE),
                        c.get(CLICKHOUSE_USER),
                        c.get(CLICKHOUSE_PASSWORD),
                        c.get(LOCAL_USER),
                        c.get(STATE_DIR),
                        c.get(QUERY_TIMEOUT),
                        c.get(QUERY_MAX_ROWS_TO_READ),
                        c.get(QUERY_MAX_RESULT_ROWS),
                        c.get(QUERY_MAX_MEMORY)),
                limits,
                new FilterParser.Limits(c.get(FILTER_MAX_LENGTH), c.get(FILTER_MAX_TERMS), 16),
                new ConsoleConfig.Kafka(
                        c.get(KAFKA_BOOTSTRAP),
                        c.get(KAFKA_REJECTED_TOPIC),
                        c.get(KAFKA_MAX_RECORDS),
                        c.get(KAFKA_MAX_TIME)),
                c.get(HTTP_THREADS));
    }

    /** True for 127.0.0.0/8, ::1 and localhost (resolved without DNS). */
    public static boolean isLoopback(String host) {
        if (host.equals("localhost")) {
            return true;
        }
        if (!host.matches("[0-9a-fA-F:.]+")) {
            return false;
        }
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
