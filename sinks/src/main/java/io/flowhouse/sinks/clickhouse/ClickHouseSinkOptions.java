// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Configuration of the ClickHouse sink and migrator, checked here once: from its keys ({@link
 * ClickHouseSinkKeys#options}) or, in tests, the {@link #builder()}. The password is never logged
 * ({@link #toString()} redacts it) and is best given indirectly: the name of an environment
 * variable or a secret file, read on the TaskManager when the writer opens ({@link
 * #resolvePassword()}).
 *
 * @param url HTTP endpoint, e.g. {@code http://127.0.0.1:8123}; or several, comma-separated: the
 *     replicas of one shard, tried in order (the writer moves to the next when one fails); or
 *     several shards, separated by {@code ;}, each its replicas (needs {@code cluster})
 * @param database database of the flow tables ({@code flowhouse})
 * @param user ClickHouse user
 * @param password literal password; empty when given by {@code passwordEnv} or {@code passwordFile}
 *     or when there is none
 * @param passwordEnv name of an environment variable holding the password, or empty
 * @param passwordFile path of a file holding the password (trailing newline ignored), or empty
 * @param batchMaxRows a batch is sent when it holds this many rows
 * @param batchMaxBytes ... or this many RowBinary bytes
 * @param flushInterval ... or when its oldest row is this old (0: only by size and checkpoints)
 * @param maxInFlightBatches batches handed to the background inserter and not yet written, beyond
 *     which {@code write} blocks (back-pressure)
 * @param maxRetries attempts after the first one for a retriable failure
 * @param initialBackoff wait before the first retry; doubled each time
 * @param maxBackoff upper bound of the wait between retries
 * @param connectTimeout TCP connect timeout
 * @param socketTimeout read timeout of one insert or query
 * @param startupTimeout how long a writer that opens keeps retrying, with the same backoff, while
 *     the server is unreachable (migrations and feature detection); then it fails (0: one attempt)
 * @param migrate bring the sink's schema ({@link ClickHouseSchema}) up when the writer opens
 * @param deduplicationTokens on servers that have it, send {@code insert_deduplication_token}
 *     derived from the batch content so a retried insert that already landed is ignored
 * @param cluster the {@code remote_servers} cluster the schema is created on ({@code ON CLUSTER},
 *     replicated engines: {@link ClusterDdl}), or empty for one server
 */
public record ClickHouseSinkOptions(
        String url,
        String database,
        String user,
        String password,
        String passwordEnv,
        String passwordFile,
        int batchMaxRows,
        long batchMaxBytes,
        Duration flushInterval,
        int maxInFlightBatches,
        int maxRetries,
        Duration initialBackoff,
        Duration maxBackoff,
        Duration connectTimeout,
        Duration socketTimeout,
        Duration startupTimeout,
        boolean migrate,
        boolean deduplicationTokens,
        String cluster)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    public ClickHouseSinkOptions {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(passwordEnv, "passwordEnv");
        Objects.requireNonNull(passwordFile, "passwordFile");
        Objects.requireNonNull(flushInterval, "flushInterval");
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(socketTimeout, "socketTimeout");
        Objects.requireNonNull(startupTimeout, "startupTimeout");
        Objects.requireNonNull(cluster, "cluster");
        if (!isHttpUrl(url)) {
            throw new IllegalArgumentException("url " + url + " (expected: http:// or https://)");
        }
        if (url.contains(";") && cluster.isEmpty()) {
            throw new IllegalArgumentException(
                    "url " + url + " names several shards (;) but no cluster is set");
        }
        new ClusterDdl(cluster, url.contains(";"));
        if (!isDatabaseName(database)) {
            throw new IllegalArgumentException(
                    "database " + database + " (expected: letters, digits, underscore)");
        }
        if (batchMaxRows < 1 || batchMaxBytes < 1 || maxInFlightBatches < 1 || maxRetries < 0) {
            throw new IllegalArgumentException(
                    "batchMaxRows "
                            + batchMaxRows
                            + ", batchMaxBytes "
                            + batchMaxBytes
                            + ", maxInFlightBatches "
                            + maxInFlightBatches
                            + ", maxRetries "
                            + maxRetries
                            + " (expected: >= 1, >= 1, >= 1, >= 0)");
        }
        if (flushInterval.isNegative()
                || initialBackoff.isNegative()
                || maxBackoff.isNegative()
                || startupTimeout.isNegative()) {
            // Not redacted(): the fields are not assigned yet in a compact constructor.
            throw new IllegalArgumentException(
                    "negative duration: flushInterval "
                            + flushInterval
                            + ", initialBackoff "
                            + initialBackoff
                            + ", maxBackoff "
                            + maxBackoff
                            + ", startupTimeout "
                            + startupTimeout
                            + " (expected: >= 0)");
        }
    }

    /**
     * Whether {@code url} is an HTTP(S) endpoint, or a list of them: replicas separated by {@code
     * ,}, shards by {@code ;}.
     */
    public static boolean isHttpUrl(String url) {
        for (String u : url.split("[,;]", -1)) {
            String t = u.strip();
            if (!t.startsWith("http://") && !t.startsWith("https://")) {
                return false;
            }
        }
        return true;
    }

    /** Every endpoint of {@link #url()}, shard after shard, in the order they are tried. */
    public List<String> urls() {
        return Arrays.stream(url.split("[,;]")).map(String::strip).toList();
    }

    /** The shards of {@link #url()}, each its replicas in the order they are tried. */
    public List<List<String>> shards() {
        return Arrays.stream(url.split(";"))
                .map(s -> Arrays.stream(s.split(",")).map(String::strip).toList())
                .toList();
    }

    /** How DDL is run: on this cluster (sharded with several shards), or on the one server. */
    public ClusterDdl clusterDdl() {
        return new ClusterDdl(cluster, url.contains(";"));
    }

    /** Whether {@code name} can be a database name without quoting. */
    public static boolean isDatabaseName(String name) {
        return name.matches("[A-Za-z_][A-Za-z0-9_]*");
    }

    /**
     * Local server, database {@code flowhouse}, 100k-row/64 MiB/1 s batches, 20 retries: the
     * builder's defaults, for tests. A configured sink ({@link ClickHouseSinkKeys}) defaults to
     * 50,000-row batches flushed every 5 s.
     */
    public static ClickHouseSinkOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder()
                .url(url)
                .database(database)
                .user(user)
                .password(password)
                .passwordEnv(passwordEnv)
                .passwordFile(passwordFile)
                .batchMaxRows(batchMaxRows)
                .batchMaxBytes(batchMaxBytes)
                .flushInterval(flushInterval)
                .maxInFlightBatches(maxInFlightBatches)
                .maxRetries(maxRetries)
                .initialBackoff(initialBackoff)
                .maxBackoff(maxBackoff)
                .connectTimeout(connectTimeout)
                .socketTimeout(socketTimeout)
                .startupTimeout(startupTimeout)
                .migrate(migrate)
                .deduplicationTokens(deduplicationTokens)
                .cluster(cluster);
    }

    /**
     * The password to use: the literal one, else the environment variable's value, else the secret
     * file's content without its trailing newline, else empty.
     */
    public String resolvePassword() {
        if (!password.isEmpty()) {
            return password;
        }
        if (!passwordEnv.isEmpty()) {
            String v = System.getenv(passwordEnv);
            if (v == null) {
                throw new IllegalStateException(
                        "environment variable " + passwordEnv + " (clickhouse password) is unset");
            }
            return v;
        }
        if (!passwordFile.isEmpty()) {
            try {
                return Files.readString(Path.of(passwordFile), StandardCharsets.UTF_8)
                        .stripTrailing();
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot read clickhouse password file " + passwordFile, e);
            }
        }
        return "";
    }

    private String redacted() {
        return "ClickHouseSinkOptions[url="
                + url
                + ", database="
                + database
                + ", user="
                + user
                + ", password="
                + (password.isEmpty() ? "" : "***")
                + ", passwordEnv="
                + passwordEnv
                + ", passwordFile="
                + passwordFile
                + ", batchMaxRows="
                + batchMaxRows
                + ", batchMaxBytes="
                + batchMaxBytes
                + ", flushInterval="
                + flushInterval
                + ", maxInFlightBatches="
                + maxInFlightBatches
                + ", maxRetries="
                + maxRetries
                + ", initialBackoff="
                + initialBackoff
                + ", maxBackoff="
                + maxBackoff
                + ", startupTimeout="
                + startupTimeout
                + ", migrate="
                + migrate
                + ", cluster="
                + cluster
                + "]";
    }

    @Override
    public String toString() {
        return redacted();
    }

    /**
     * Mutable builder starting from the keys' defaults, except that its batches are smaller and
     * flushed every second (tests see their rows sooner).
     */
    public static final class Builder {
        private String url = ClickHouseSinkKeys.URL.defaultValue();
        private String database = ClickHouseSinkKeys.DATABASE.defaultValue();
        private String user = ClickHouseSinkKeys.USER.defaultValue();
        private String password = "";
        private String passwordEnv = "";
        private String passwordFile = "";
        private int batchMaxRows = 100_000;
        private long batchMaxBytes = ClickHouseSinkKeys.BATCH_MAX_BYTES.defaultValue();
        private Duration flushInterval = Duration.ofSeconds(1);
        private int maxInFlightBatches = ClickHouseSinkKeys.MAX_IN_FLIGHT_BATCHES.defaultValue();
        private int maxRetries = ClickHouseSinkKeys.MAX_RETRIES.defaultValue();
        private Duration initialBackoff = ClickHouseSinkKeys.INITIAL_BACKOFF.defaultValue();
        private Duration maxBackoff = ClickHouseSinkKeys.MAX_BACKOFF.defaultValue();
        private Duration connectTimeout = ClickHouseSinkKeys.CONNECT_TIMEOUT.defaultValue();
        private Duration socketTimeout = ClickHouseSinkKeys.SOCKET_TIMEOUT.defaultValue();
        private Duration startupTimeout = ClickHouseSinkKeys.STARTUP_TIMEOUT.defaultValue();
        private boolean migrate = true;
        private boolean deduplicationTokens = true;
        private String cluster = ClickHouseSinkKeys.CLUSTER.defaultValue();

        private Builder() {}

        public Builder url(String v) {
            this.url = v;
            return this;
        }

        public Builder database(String v) {
            this.database = v;
            return this;
        }

        public Builder user(String v) {
            this.user = v;
            return this;
        }

        public Builder password(String v) {
            this.password = v;
            return this;
        }

        public Builder passwordEnv(String v) {
            this.passwordEnv = v;
            return this;
        }

        public Builder passwordFile(String v) {
            this.passwordFile = v;
            return this;
        }

        public Builder batchMaxRows(int v) {
            this.batchMaxRows = v;
            return this;
        }

        public Builder batchMaxBytes(long v) {
            this.batchMaxBytes = v;
            return this;
        }

        public Builder flushInterval(Duration v) {
            this.flushInterval = v;
            return this;
        }

        public Builder maxInFlightBatches(int v) {
            this.maxInFlightBatches = v;
            return this;
        }

        public Builder maxRetries(int v) {
            this.maxRetries = v;
            return this;
        }

        public Builder initialBackoff(Duration v) {
            this.initialBackoff = v;
            return this;
        }

        public Builder maxBackoff(Duration v) {
            this.maxBackoff = v;
            return this;
        }

        public Builder connectTimeout(Duration v) {
            this.connectTimeout = v;
            return this;
        }

        public Builder socketTimeout(Duration v) {
            this.socketTimeout = v;
            return this;
        }

        public Builder startupTimeout(Duration v) {
            this.startupTimeout = v;
            return this;
        }

        public Builder migrate(boolean v) {
            this.migrate = v;
            return this;
        }

        public Builder deduplicationTokens(boolean v) {
            this.deduplicationTokens = v;
            return this;
        }

        public Builder cluster(String v) {
            this.cluster = v;
            return this;
        }

        public ClickHouseSinkOptions build() {
            return new ClickHouseSinkOptions(
                    url,
                    database,
                    user,
                    password,
                    passwordEnv,
                    passwordFile,
                    batchMaxRows,
                    batchMaxBytes,
                    flushInterval,
                    maxInFlightBatches,
                    maxRetries,
                    initialBackoff,
                    maxBackoff,
                    connectTimeout,
                    socketTimeout,
                    startupTimeout,
                    migrate,
                    deduplicationTokens,
                    cluster);
        }
    }
}
