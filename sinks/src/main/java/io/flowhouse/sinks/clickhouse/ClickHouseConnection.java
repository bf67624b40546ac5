// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.client.api.query.QueryResponse;
import com.clickhouse.client.api.query.QuerySettings;
import com.clickhouse.data.ClickHouseFormat;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code client-v2} client per configured endpoint with the settings every Flowhouse ClickHouse
 * user needs: HTTP, no compression (the zstd library is not on the classpath and 18.16 does not
 * need it), timeouts from the options. Queries are read as {@code TabSeparated} text, which every
 * server version speaks (18.16 has no {@code RowBinaryWithNamesAndTypes}, the client's default for
 * reads).
 *
 * <p>With several endpoints (the replicas of one shard) every request goes to the active one; a
 * retriable failure moves the connection to the next, so the caller's retry reaches another
 * replica. With several shards each shard has its own replicas and active one: queries go to the
 * first shard, inserts to the shard the caller names. DDL goes through {@link #executeDdl}, which
 * runs it {@code ON CLUSTER} when a cluster is configured ({@link ClusterDdl#plan}).
 */
public final class ClickHouseConnection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClickHouseConnection.class);

    private final List<Shard> shards;
    private final ClusterDdl ddl;

    /** One shard's replicas and the one requests go to now. */
    private static final class Shard {
        final List<String> urls;
        final List<Client> clients;
        volatile int active;

        Shard(List<String> urls, List<Client> clients) {
            this.urls = urls;
            this.clients = clients;
        }

        /** After a retriable failure on {@code failed}: the next endpoint takes the requests. */
        void failedOver(int failed) {
            if (clients.size() > 1 && active == failed) {
                active = (failed + 1) % clients.size();
                LOG.warn("clickhouse {} failed; moving to {}", urls.get(failed), urls.get(active));
            }
        }
    }

    public ClickHouseConnection(ClickHouseSinkOptions options) {
        this.ddl = options.clusterDdl();
        List<Shard> built = new ArrayList<>();
        for (List<String> urls : options.shards()) {
            List<Client> clients = new ArrayList<>();
            for (String url : urls) {
                clients.add(client(options, url));
            }
            built.add(new Shard(List.copyOf(urls), List.copyOf(clients)));
        }
        this.shards = List.copyOf(built);
    }

    private static Client client(ClickHouseSinkOptions options, String url) {
        return new Client.Builder()
                .addEndpoint(url)
                .setUsername(options.user())
                .setPassword(options.resolvePassword())
                .compressServerResponse(false)
                .compressClientRequest(false)
                .useHttpCompression(false)
                .setConnectTimeout(options.connectTimeout().toMillis(), ChronoUnit.MILLIS)
                .setSocketTimeout(options.socketTimeout().toMillis(), ChronoUnit.MILLIS)
                // The sink owns retries (with backoff and metrics); the client makes one
                // try.
                .setMaxRetries(0)
                .build();
    }

    /** The endpoint queries go to now (the first shard's active replica). */
    public String endpoint() {
        return endpoint(0);
    }

    /** The endpoint a shard's requests go to now. */
    public String endpoint(int shard) {
        Shard s = shards.get(shard);
        return s.urls.get(s.active);
    }

    /** How many shards the endpoints form (1 without {@code ;} in the URL). */
    public int shards() {
        return shards.size();
    }

    /** How DDL is run here. */
    public ClusterDdl clusterDdl() {
        return ddl;
    }

    /** Runs a statement and returns its TabSeparated lines. */
    public List<String> query(String sql) throws ClickHouseSinkException {
        return query(0, sql);
    }

    /** Runs a statement on one shard (its active replica) and returns its TabSeparated lines. */
    public List<String> query(int shard, String sql) throws ClickHouseSinkException {
        Shard s = shards.get(shard);
        return query(s, s.active, sql);
    }

    private List<String> query(Shard s, int used, String sql) throws ClickHouseSinkException {
        QuerySettings settings = new QuerySettings().setFormat(ClickHouseFormat.TabSeparated);
        QueryResponse response = null;
        try {
            response = s.clients.get(used).query(sql, settings).get();
            String body;
            try (InputStream in = response.getInputStream()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            List<String> lines = new ArrayList<>();
            for (String line : body.split("\n", -1)) {
                if (!line.isEmpty()) {
                    lines.add(line);
                }
            }
            return lines;
        } catch (Exception e) {
            throw failed(s, used, wrap("query", sql, e));
        } finally {
            closeResponse(response);
        }
    }

    private static void closeResponse(QueryResponse response) {
        if (response == null) {
            return;
        }
        try {
            response.close();
        } catch (Exception ignored) {
            // the body was read or the request failed; nothing more to release
        }
    }

    /** Runs a statement whose result is not needed. */
    public void execute(String sql) throws ClickHouseSinkException {
        query(sql);
    }

    /**
     * Runs a schema statement, on the cluster when one is configured: every step of {@link
     * ClusterDdl#plan}, where its scope says (the first shard's active replica, each shard's, or
     * every server). A step that fails with "already exists" does not stop the ones after it (a
     * start that died between two steps left the first done); the first such failure is thrown at
     * the end, so callers count the statement as applied.
     */
    public void executeDdl(String sql) throws ClickHouseSinkException {
        ClickHouseSinkException existed = null;
        for (ClusterDdl.Step step : ddl.plan(sql)) {
            for (Shard s : step.scope() == ClusterDdl.Scope.ONCE ? shards.subList(0, 1) : shards) {
                boolean every = step.scope() == ClusterDdl.Scope.EACH_SERVER;
                for (int r = every ? 0 : s.active;
                        r < (every ? s.clients.size() : s.active + 1);
                        r++) {
                    try {
                        query(s, r, step.sql());
                    } catch (ClickHouseSinkException e) {
                        if (!ClickHouseMigrator.alreadyApplied(e)) {
                            throw e;
                        }
                        existed = existed == null ? e : existed;
                    }
                }
            }
        }
        if (existed != null) {
            throw existed;
        }
    }

    private static ClickHouseSinkException failed(
            Shard shard, int used, ClickHouseSinkException e) {
        if (e.isRetriable()) {
            shard.failedOver(used);
        }
        return e;
    }

    /**
     * Inserts RowBinary rows into {@code table} (qualified) for the named columns, in one request.
     *
     * @return rows written as the server reports them, or -1 when it does not (18.16)
     */
    public long insertRowBinary(
            String table, List<String> columns, InputStream rows, InsertSettings settings)
            throws ClickHouseSinkException {
        return insertRowBinary(0, table, columns, rows, settings);
    }

    /** Inserts RowBinary rows into one shard's {@code table} (its active replica). */
    public long insertRowBinary(
            int shard,
            String table,
            List<String> columns,
            InputStream rows,
            InsertSettings settings)
            throws ClickHouseSinkException {
        settings.compressClientRequest(false).useHttpCompression(false);
        Shard s = shards.get(shard);
        int used = s.active;
        try (InsertResponse response =
                s.clients
                        .get(used)
                        .insert(table, columns, rows, ClickHouseFormat.RowBinary, settings)
                        .get()) {
            return response.getWrittenRows();
        } catch (Exception e) {
            throw failed(s, used, wrap("insert into", table, e));
        }
    }

    public boolean ping() {
        Shard s = shards.get(0);
        return s.clients.get(s.active).ping();
    }

    @Override
    public void close() {
        shards.forEach(s -> s.clients.forEach(Client::close));
    }

    private static ClickHouseSinkException wrap(String what, String sql, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        Throwable cause =
                e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        String text = sql.length() <= 300 ? sql : sql.substring(0, 300) + "...";
        return new ClickHouseSinkException(
                "clickhouse " + what + " [" + text + "] failed: " + firstLine(cause),
                cause,
                ClickHouseErrors.serverCode(cause),
                ClickHouseErrors.isRetriable(cause) && !(e instanceof InterruptedException));
    }

    private static String firstLine(Throwable t) {
        String m = String.valueOf(t.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    /** For tests: closes quietly. */
    static void closeQuietly(ClickHouseConnection c) {
        if (c != null) {
            try {
                c.close();
            } catch (RuntimeException ignored) {
                // closing a client that never connected
            }
        }
    }
}
