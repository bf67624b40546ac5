// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the console's SELECTs over ClickHouse's HTTP interface as the console's read-only user and
 * reads {@code JSONCompact} (rows, totals and the server's own statistics: rows and bytes read,
 * elapsed). It sends the query text and the database, nothing else: the user's profile holds the
 * limits ({@code readonly = 1}, execution time, rows to read, result rows), which a read-only user
 * cannot change, and a query asking to change a setting is refused by the server. The HTTP request
 * has its own timeout too.
 */
public final class ClickHouseReader {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern CODE = Pattern.compile("Code: (\\d+)");

    private final String url;
    private final String database;
    private final String user;
    private final Supplier<String> password;
    private final Duration timeout;
    private final HttpClient http;

    /**
     * @param url HTTP endpoint, e.g. {@code http://127.0.0.1:8123}
     * @param database the job's database
     * @param user the console's user
     * @param password read at each query (a rotated password file takes effect at once)
     * @param timeout per query, on top of the server's own {@code max_execution_time}
     */
    public ClickHouseReader(
            String url, String database, String user, Supplier<String> password, Duration timeout) {
        this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.database = database;
        this.user = user;
        this.password = password;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    public String database() {
        return database;
    }

    /** Runs one SELECT; its statistics go into {@code log}. */
    public Result query(String sql, QueryLog log) {
        HttpRequest request =
                HttpRequest.newBuilder(
                                URI.create(
                                        url
                                                + "/?database="
                                                + URLEncoder.encode(
                                                        database, StandardCharsets.UTF_8)))
                        .timeout(timeout)
                        .header(
                                "Authorization",
                                "Basic "
                                        + Base64.getEncoder()
                                                .encodeToString(
                                                        (user + ":" + password.get())
                                                                .getBytes(StandardCharsets.UTF_8)))
                        .POST(
                                HttpRequest.BodyPublishers.ofString(
                                        sql + "\nFORMAT JSONCompact", StandardCharsets.UTF_8))
                        .build();
        long start = System.nanoTime();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (java.net.http.HttpTimeoutException e) {
            throw new QueryException(
                    504, "clickhouse did not answer within " + timeout.toSeconds() + " s", -1);
        } catch (IOException e) {
            throw new QueryException(502, "clickhouse unreachable at " + url + ": " + e, -1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueryException(503, "interrupted", -1);
        }
        double millis = (System.nanoTime() - start) / 1e6;
        if (response.statusCode() != 200) {
            throw QueryException.fromServer(response.statusCode(), response.body(), code(response));
        }
        try {
            JsonNode root = JSON.readTree(response.body());
            List<String> names = new ArrayList<>();
            for (JsonNode m : root.path("meta")) {
                names.add(m.path("name").asText());
            }
            List<JsonNode> rows = new ArrayList<>();
            root.path("data").forEach(rows::add);
            JsonNode stats = root.path("statistics");
            Result r =
                    new Result(
                            names,
                            rows,
                            root.has("totals") ? root.get("totals") : null,
                            stats.path("rows_read").asLong(),
                            stats.path("bytes_read").asLong(),
                            millis);
            log.add(sql, r);
            return r;
        } catch (IOException e) {
            throw new QueryException(502, "unreadable answer from clickhouse: " + e, -1);
        }
    }

    private static int code(HttpResponse<String> response) {
        String header = response.headers().firstValue("X-ClickHouse-Exception-Code").orElse(null);
        if (header != null) {
            try {
                return Integer.parseInt(header.trim());
            } catch (NumberFormatException e) {
                // fall through to the text
            }
        }
        Matcher m = CODE.matcher(response.body());
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /**
     * One answer.
     *
     * @param names column names
     * @param rows one JSON array per row (64-bit integers arrive as strings)
     * @param totals the {@code WITH TOTALS} row, or null
     * @param rowsRead rows the server read
     * @param bytesRead bytes the server read
     * @param millis wall time of the request
     */
    public record Result(
            List<String> names,
            List<JsonNode> rows,
            JsonNode totals,
            long rowsRead,
            long bytesRead,
            double millis) {}
}
