// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/** ClickHouse's HTTP interface as the bench reads it: one statement, its TabSeparated answer. */
final class ClickHouseHttp {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    private final String url;

    /** The bound of a query that reads. */
    static final Duration QUERY_TIMEOUT = Duration.ofSeconds(20);

    private final Map<String, String> auth;

    ClickHouseHttp(String url, Map<String, String> auth) {
        this.url = url;
        this.auth = Map.copyOf(auth);
    }

    /** Runs {@code sql}; its rows as TabSeparated text (empty for a statement without rows). */
    String query(String sql) throws IOException, InterruptedException {
        return query(sql, QUERY_TIMEOUT);
    }

    /**
     * Runs {@code sql} with its own bound: a {@code TRUNCATE} waits for the table's merges to stop,
     * which on a large table outlasts the queries' {@link #QUERY_TIMEOUT}.
     */
    String query(String sql, Duration timeout) throws IOException, InterruptedException {
        boolean select = sql.stripLeading().regionMatches(true, 0, "SELECT", 0, 6);
        HttpRequest.Builder b =
                HttpRequest.newBuilder(
                                URI.create(
                                        url
                                                + "/?query="
                                                + URLEncoder.encode(
                                                        select ? sql + " FORMAT TabSeparated" : sql,
                                                        StandardCharsets.UTF_8)))
                        .timeout(timeout);
        auth.forEach(b::header);
        // A statement that changes something goes as a POST: ClickHouse takes GETs as read-only.
        if (!select) {
            b.POST(HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> res = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (res.statusCode() != 200) {
            throw new IOException("ClickHouse answered " + res.statusCode() + ": " + res.body());
        }
        return res.body();
    }

    /** The one number {@code sql} selects. */
    long scalar(String sql) throws IOException, InterruptedException {
        return Long.parseLong(query(sql).trim());
    }
}
