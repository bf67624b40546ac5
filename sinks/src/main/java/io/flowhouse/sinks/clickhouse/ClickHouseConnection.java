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
 * replica. DDL goes through {@link #executeDdl}, which runs it {@code ON CLUSTER} when a cluster is
 * configured.
 */
public final class ClickHouseConnection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClickHouseConnection.class);

    private final List<String> urls;
    private final List<Client> clients;
    private final ClusterDdl ddl;
    private volatile int active;

    public ClickHouseConnection(ClickHouseSinkOptions options) {
        this.urls = options.urls();
        this.ddl = options.clusterDdl();
        List<Client> built = new ArrayList<>();
        for (String url : urls) {
            built.add(client(options, url));
        }
        this.clients = List.copyOf(built);
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

    /** The endpoint requests go to now. */
    public String endpoint() {
        return urls.get(active);
    }

    /** How DDL is run here. */
    public ClusterDdl clusterDdl() {
        return ddl;
    }

    private Client client() {
        return clients.get(active);
    }

    /** After a retriable failure on {@code failed}: the next endpoint takes the requests. */
    private void failedOver(int failed) {
        if (clients.size() > 1 && active == failed) {
            active = (failed + 1) % clients.size();
            LOG.warn("clickhouse {} failed; moving to {}", urls.get(failed), urls.get(active));
        }
    }

    /** Runs a statement and returns its TabSeparated lines. */
    public List<String> query(String sql) throws ClickHouseSinkException {
        QuerySettings settings = new QuerySettings().setFormat(ClickHouseFormat.TabSeparated);
        QueryResponse response = null;
        int used = active;
        try {
            response = clients.get(used).query(sql, settings).get();
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
            throw failed(used, wrap("query", sql, e));
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

    /** Runs a schema statement, on the cluster when one is configured ({@link ClusterDdl}). */
    public void executeDdl(String sql) throws ClickHouseSinkException {
        query(ddl.apply(sql));
    }

    private ClickHouseSinkException failed(int used, ClickHouseSinkException e) {
        if (e.isRetriable()) {
            failedOver(used);
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
        settings.compressClientRequest(false).useHttpCompression(false);
        int used = active;
        try (InsertResponse response =
                clients.get(used)
                        .insert(table, columns, rows, ClickHouseFormat.RowBinary, settings)
                        .get()) {
            return response.getWrittenRows();
        } catch (Exception e) {
            throw failed(used, wrap("insert into", table, e));
        }
    }

    public boolean ping() {
        return client().ping();
    }

    @Override
    public void close() {
        clients.forEach(Client::close);
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
